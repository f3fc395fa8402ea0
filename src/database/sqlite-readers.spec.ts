/**
 * Reads on SQLite never wait behind a write: a SELECT built by TypeORM
 * outside a transaction, and readQuery(), run on read-only connections of their own, see what
 * was committed when they started, and answer while the writer is busy with a long statement.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app-config';
import { Setting } from './setting.entity';
import { openDataSource } from './data-source';
import { readQuery } from './sql';
import { writeTransaction } from './write-queue';

/** A statement that keeps SQLite busy for a while (a few hundred ms or more). */
const LONG_STATEMENT = 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 4000000) SELECT sum(x) AS s FROM n';

describe('SQLite read connections', () => {
  let dataDir: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-readers-'));
    dataSource = await openDataSource(loadConfig({}, { dataDir, databaseUrl: undefined, seedSampleKnowledge: false }));
  });

  afterAll(async () => {
    await dataSource.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers reads while the writer runs a long statement inside a transaction, without seeing its uncommitted rows', async () => {
    const settings = dataSource.getRepository(Setting);
    let readsDone = 0;
    let writerDone = 0;
    let uncommitted: { key: string }[] = [];
    const started = performance.now();
    let inserted!: () => void;
    const insertedInTransaction = new Promise<void>((resolve) => (inserted = resolve));
    const write = writeTransaction(dataSource, async (manager) => {
      await manager.insert(Setting, { key: 'readers.spec', value: '"uncommitted"', updatedAt: Date.now() } as Setting);
      const long = manager.query(LONG_STATEMENT);
      inserted();
      await long;
      writerDone = performance.now() - started;
    });
    // The reads start once the uncommitted row is in and the long statement has been sent (not
    // after a guessed delay: reads done before the transaction would prove nothing).
    await insertedInTransaction;
    const reads = (async () => {
      for (let i = 0; i < 5; i += 1) {
        await readQuery(dataSource, 'SELECT 1 AS one');
        uncommitted = await settings.find({ where: { key: 'readers.spec' } });
      }
      readsDone = performance.now() - started;
    })();
    await Promise.all([write, reads]);
    console.log(`10 reads done after ${Math.round(readsDone)} ms; the writer's long statement ended after ${Math.round(writerDone)} ms`);
    expect(readsDone).toBeLessThan(writerDone);
    expect(uncommitted).toEqual([]);
    // Committed: every read started after the commit sees it.
    expect(await settings.find({ where: { key: 'readers.spec' } })).toHaveLength(1);
    expect(await readQuery(dataSource, 'SELECT key FROM settings WHERE key = ?', ['readers.spec'])).toEqual([{ key: 'readers.spec' }]);
  }, 30_000);

  it('refuses writes on a read connection, and closes them with the DataSource', async () => {
    await expect(readQuery(dataSource, "INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 0)")).rejects.toThrow(/readonly|read-only/i);
    const other = await openDataSource(loadConfig({}, { dataDir, databaseUrl: undefined, seedSampleKnowledge: false }));
    await other.destroy();
    await expect(readQuery(other, 'SELECT 1')).rejects.toThrow();
  });
});
