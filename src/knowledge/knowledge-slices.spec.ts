/**
 * Large knowledge items on SQLite (issue 18, defect 2): written in slices of short transactions,
 * so the one writer is never held for long, and hidden from every search until the last slice
 * has committed; a server stopped half-way indexes the item again at its next start.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app-config';
import { openDataSource } from '../database/data-source';
import { knowledgeServiceOn } from '../../test/support/standalone';
import { KnowledgeItemInputSchema } from '../shared/contracts/knowledge';
import { chunkContent } from './chunker';
import { KnowledgeService } from './knowledge.service';

const MARKER = 'zorblatt';

/** ~`bytes` of prose, the marker word in every 60th paragraph (so that a search's 100 hits hold them all). */
function largeText(bytes: number, marker = MARKER): string {
  const paragraph = (p: number) =>
    `Paragraph ${p} of the ${p % 60 === 0 ? marker : 'returns'} handbook covers returns, shipping labels and refunds for damaged parcels. ` +
    'Customers keep the receipt, fill in the form and hand the parcel to the courier within fourteen days. ' +
    'The support team answers questions about the process by mail and by phone on working days.\n\n';
  const parts: string[] = [];
  let size = 0;
  for (let p = 0; size < bytes; p += 1) {
    const text = paragraph(p);
    parts.push(text);
    size += text.length;
  }
  return parts.join('');
}

/** How many of the chunks of `texts` hold `word`. */
function chunksWith(word: string, ...texts: string[]): number {
  return texts.flatMap((t) => chunkContent(t)).filter((c) => c.text.includes(word)).length;
}

function itemWith(text: string, title = 'Returns handbook') {
  return KnowledgeItemInputSchema.parse({
    title,
    content: 'How returns work.',
    category: 'Returns',
    vertical: 'customer-service',
    attachments: [{ name: 'handbook.txt', type: 'text/plain', content: text }],
  });
}

describe('KnowledgeService on SQLite: large items in slices', () => {
  let dataDir: string;
  let dataSource: DataSource;
  let service: KnowledgeService;

  const chunkCount = async (itemId: string): Promise<number> =>
    Number((await dataSource.query('SELECT count(*) AS n FROM knowledge_chunks WHERE item_id = ?', [itemId]))[0].n);
  const pending = async (itemId: string): Promise<number> =>
    Number((await dataSource.query('SELECT index_pending AS p FROM knowledge_items WHERE id = ?', [itemId]))[0]?.p);

  /**
   * Runs `write` while searching for `word` over and over: how many of the item's chunks each
   * search found (before the write settled), and the transactions the write took.
   */
  async function searchDuring(word: string, write: () => Promise<unknown>): Promise<{ hits: number[]; transactions: number }> {
    const spy = jest.spyOn(dataSource, 'transaction');
    let settled = false;
    const writing = write().finally(() => (settled = true));
    const hits: number[] = [];
    try {
      while (!settled) {
        // search, retrieve, search: a retrieve between two searches that both found none of the
        // word's chunks must not quote the word (never from a half-written or hidden item). One
        // search beside the retrieve is not enough: the item may appear or vanish between them.
        const found = await service.search(word, { limit: 100 });
        const answer = await service.retrieve(`What does the ${word} handbook say about refunds?`, { vertical: 'customer-service' });
        const foundAfter = await service.search(word, { limit: 100 });
        if (settled) break;
        hits.push(found.length, foundAfter.length);
        const quoted = answer.passages.some((p) => p.text.toLowerCase().includes(word));
        if (found.length === 0 && foundAfter.length === 0) expect(quoted).toBe(false);
      }
      await writing;
      return { hits, transactions: spy.mock.calls.length };
    } finally {
      spy.mockRestore();
    }
  }

  /** The hit counts seen: each search found all `full` chunks or none. */
  function expectWholeOrNothing(hits: number[], full: number): void {
    expect(hits.filter((n) => n !== 0 && n !== full)).toEqual([]);
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'knowledge-slices-'));
    dataSource = await openDataSource(loadConfig({}, { dataDir, databaseUrl: undefined, seedSampleKnowledge: false }));
    service = knowledgeServiceOn(dataSource);
  });

  afterAll(async () => {
    await service.onModuleDestroy();
    await dataSource.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes a 1 MB attachment in many short transactions, found by no search until the last one, then whole', async () => {
    const text = largeText(1024 * 1024);
    let id = '';
    const during = await searchDuring(MARKER, async () => (id = (await service.create(itemWith(text))).id));
    const expected = chunkContent('How returns work.').length + chunkContent(text).length;
    const full = chunksWith(MARKER, text);
    console.log(
      `1 MB attachment: ${expected} chunks in ${during.transactions} transactions; ${during.hits.length} searches meanwhile, ` +
        `${during.hits.filter((n) => n === 0).length} found none of its ${full} chunks with the word, ${during.hits.filter((n) => n === full).length} all, the others part`,
    );
    expect(during.transactions).toBeGreaterThan(5);
    expect(during.hits.length).toBeGreaterThan(3);
    expectWholeOrNothing(during.hits, full);
    expect(during.hits.filter((n) => n === 0).length).toBeGreaterThan(during.hits.length / 2);
    expect(await chunkCount(id)).toBe(expected);
    expect(await pending(id)).toBe(0);
    expect((await service.search(MARKER, { limit: 100 })).length).toBe(full);
    expect((await service.retrieve(`What does the ${MARKER} handbook say about refunds?`)).sources[0]?.id).toBe(id);
  }, 60_000);

  it('replaces a large item in slices: neither its old nor its new text is found half-way', async () => {
    const before = largeText(512 * 1024, 'quillfeather');
    const after = largeText(512 * 1024, 'brambleton');
    const item = await service.create(itemWith(before, 'Old handbook'));
    const old = await searchDuring('quillfeather', () => service.update(item.id, { title: 'New handbook', attachments: itemWith(after).attachments }));
    expectWholeOrNothing(old.hits, chunksWith('quillfeather', before));
    expect(old.transactions).toBeGreaterThan(5);
    expect(await service.search('quillfeather')).toEqual([]);
    const hits = await service.search('brambleton', { limit: 100 });
    expect(hits.length).toBe(chunksWith('brambleton', after));
    expect(hits.every((h) => h.title === 'New handbook')).toBe(true);
    expect(await pending(item.id)).toBe(0);

    const back = await searchDuring('brambleton', () => service.update(item.id, { content: 'Short again.', attachments: [] }));
    expectWholeOrNothing(back.hits, chunksWith('brambleton', after));
    expect(await service.search('brambleton')).toEqual([]);
    expect(await chunkCount(item.id)).toBe(1);
  }, 60_000);

  it('deletes a large item in slices, hidden from the first one', async () => {
    const text = largeText(512 * 1024, 'wobblecrest');
    const item = await service.create(itemWith(text));
    const during = await searchDuring('wobblecrest', () => service.remove(item.id));
    expect(during.transactions).toBeGreaterThan(2);
    expectWholeOrNothing(during.hits, chunksWith('wobblecrest', text));
    expect(await chunkCount(item.id)).toBe(0);
    expect(await dataSource.query('SELECT id FROM knowledge_items WHERE id = ?', [item.id])).toEqual([]);
  }, 60_000);

  it('indexes again, at start, an item a stopped server left half-written, hiding it until done', async () => {
    const text = largeText(256 * 1024, 'glimmerfen');
    const item = await service.create(itemWith(text));
    const full = await chunkCount(item.id);
    // What a kill -9 half-way leaves: the mark, and only some of the chunks.
    await dataSource.query('UPDATE knowledge_items SET index_pending = 1 WHERE id = ?', [item.id]);
    await dataSource.query('DELETE FROM knowledge_chunks WHERE item_id = ? AND ord > ?', [item.id, Math.floor(full / 2)]);

    const restarted = knowledgeServiceOn(dataSource);
    try {
      await restarted.onApplicationBootstrap();
      expect(await restarted.search('glimmerfen')).toEqual([]);
      const deadline = Date.now() + 30_000;
      while ((await pending(item.id)) === 1 && Date.now() < deadline) {
        expect(await restarted.search('glimmerfen')).toEqual([]);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await pending(item.id)).toBe(0);
      expect(await chunkCount(item.id)).toBe(full);
      expect((await restarted.search('glimmerfen', { limit: 100 })).length).toBe(chunksWith('glimmerfen', text));
    } finally {
      await restarted.onModuleDestroy();
    }
  }, 60_000);
});
