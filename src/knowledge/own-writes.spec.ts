/**
 * The embedded mode's search (soleServer: no DATABASE_URL, no REDIS_URL): the server writes every
 * knowledge item itself, so a warm search is answered from memory without a statement, and each of
 * its own writes is seen by the very next search. A write made behind its back (the sqlite3 shell)
 * is seen within FRESH_MS.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../config/app-config';
import { openDataSource } from '../database/data-source';
import { KnowledgeItemInputSchema, type CheckedKnowledgeItem } from '../shared/contracts/knowledge';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import { KnowledgeItem } from './knowledge-item.entity';
import { KnowledgeService } from './knowledge.service';
import { FRESH_MS } from './postings-search-index';

const item = (title: string, content: string): CheckedKnowledgeItem => KnowledgeItemInputSchema.parse({ title, content, category: 'General', vertical: 'customer-service' }) as CheckedKnowledgeItem;

describe('KnowledgeService as the only writer (embedded mode)', () => {
  let dataDir: string;
  let dataSource: DataSource;
  let service: KnowledgeService;
  /** Read statements run since the last call (TypeORM's read query runners: readQuery and repository reads). */
  let reads = 0;
  const readsSince = () => {
    const n = reads;
    reads = 0;
    return n;
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-writes-spec-'));
    const config = loadConfig({}, { dataDir, seedSampleKnowledge: false });
    dataSource = await openDataSource(config);
    const create = dataSource.createQueryRunner.bind(dataSource);
    dataSource.createQueryRunner = (mode) => {
      if (mode === 'slave') reads += 1;
      return create(mode);
    };
    service = new KnowledgeService(
      dataSource,
      dataSource.getRepository(KnowledgeItem),
      dataSource.getRepository(KnowledgeChunk),
      dataSource.getRepository(KnowledgeAttachment),
      config,
    );
  });

  afterAll(async () => {
    await service.onModuleDestroy();
    await dataSource.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a warm search from memory, and sees its own writes at once', async () => {
    const kayak = await service.create(item('Kayak rental', 'Kayaks are rented by the hour at the lake shop.'));
    expect((await service.search('kayak rental')).map((p) => p.itemId)).toEqual([kayak.id]);
    readsSince();
    // Warm now: the same search, and the chat pipeline's retrieval, read nothing.
    expect((await service.search('kayak rental')).map((p) => p.itemId)).toEqual([kayak.id]);
    const retrieval = await service.retrieve('How much is a kayak rental?');
    expect(retrieval.sources.map((s) => s.id)).toEqual([kayak.id]);
    expect(retrieval.passages[0].text).toContain('rented by the hour');
    expect(readsSince()).toBe(0);

    // Its own writes: the next search reads the index again and finds them.
    const storage = await service.create(item('Kayak storage', 'Your own kayak can stay in the boathouse over winter.'));
    expect(new Set((await service.search('kayak')).map((p) => p.itemId))).toEqual(new Set([kayak.id, storage.id]));
    await service.update(storage.id, { title: 'Canoe storage', content: 'Your own canoe can stay in the boathouse over winter.' });
    expect((await service.search('kayak')).map((p) => p.itemId)).toEqual([kayak.id]);
    await service.remove(kayak.id);
    expect(await service.search('kayak')).toEqual([]);
    expect((await service.search('canoe')).map((p) => p.itemId)).toEqual([storage.id]);
  });

  it('keeps the versions read in the background while searches come, so that a lone visitor every few seconds is answered from memory', async () => {
    const tent = await service.create(item('Tent hire', 'Tents are hired by the night at the camp shop.'));
    expect((await service.retrieve('Can I hire a tent?')).sources.map((s) => s.id)).toEqual([tent.id]);
    // Longer than FRESH_MS with no search: the versions were read again meanwhile, off the search path.
    await new Promise((resolve) => setTimeout(resolve, FRESH_MS + 600));
    readsSince();
    const retrieval = await service.retrieve('Can I hire a tent?');
    expect(retrieval.sources.map((s) => s.id)).toEqual([tent.id]);
    expect(readsSince()).toBe(0);
  });

  it(`sees a write made behind its back within FRESH_MS (${FRESH_MS} ms)`, async () => {
    const paddle = await service.create(item('Paddle sizes', 'Paddles come in three lengths.'));
    expect((await service.search('paddle lengths')).map((p) => p.itemId)).toEqual([paddle.id]);
    // As the sqlite3 shell would: the index's triggers update it, the service is not told.
    await dataSource.query('DELETE FROM knowledge_chunks WHERE item_id = ?', [paddle.id]);
    await dataSource.query('DELETE FROM knowledge_items WHERE id = ?', [paddle.id]);
    const started = Date.now();
    let found = (await service.search('paddle lengths')).length;
    while (found > 0 && Date.now() - started < FRESH_MS + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = (await service.search('paddle lengths')).length;
    }
    expect(found).toBe(0);
    expect(Date.now() - started).toBeLessThanOrEqual(FRESH_MS + 500);
  });
});
