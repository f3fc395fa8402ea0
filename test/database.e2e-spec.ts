/**
 * The database as the server opens it (TypeOrmModule.forRootAsync, src/database/database.module.ts):
 * SQLite always, and Postgres in a schema of its own when DATABASE_URL is set (as in CI).
 */
import { DataSource } from 'typeorm';
import { openDataSource } from '../src/database/data-source';
import { distributed, startTestApp } from './support/test-app';

const DIALECTS = distributed.databaseUrl ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);
const onDialect = (dialect: 'sqlite' | 'postgres') => (dialect === 'sqlite' ? { databaseUrl: undefined } : {});

const entityNames = (dataSource: DataSource) => dataSource.entityMetadatas.map((m) => m.name).sort();

describe.each(DIALECTS)('the database on %s', (dialect) => {
  it('is migrated at start and knows every entity through the feature modules: the same set as the entity files', async () => {
    const t = await startTestApp({ ...onDialect(dialect), seedSampleKnowledge: false });
    try {
      expect(t.dataSource.options.type).toBe(dialect);
      expect(await t.dataSource.showMigrations()).toBe(false);
      // Outside Nest (admin CLI, benchmarks) the entities come from the *.entity files instead.
      const standalone = await openDataSource(t.config);
      try {
        expect(entityNames(t.dataSource)).toEqual(entityNames(standalone));
      } finally {
        await standalone.destroy();
      }
      expect(entityNames(t.dataSource)).toEqual(expect.arrayContaining(['Agent', 'AdminUser', 'KnowledgeItem', 'MailOutbox', 'Setting', 'UsageEvent']));
      const runner = t.dataSource.createQueryRunner();
      try {
        for (const { tableName } of t.dataSource.entityMetadatas) expect([tableName, await runner.hasTable(tableName)]).toEqual([tableName, true]);
      } finally {
        await runner.release();
      }
    } finally {
      await t.close();
    }
  });

  it('app.close() closes the DataSource once, without an error', async () => {
    const t = await startTestApp({ ...onDialect(dialect), seedSampleKnowledge: false });
    const destroy = jest.spyOn(t.dataSource, 'destroy');
    await t.close();
    expect(destroy).toHaveBeenCalledTimes(1);
    await expect(destroy.mock.results[0].value).resolves.toBeUndefined();
    expect(t.dataSource.isInitialized).toBe(false);
  });
});

describe('SQLite', () => {
  it('runs with WAL, a busy timeout, foreign keys, synchronous NORMAL and a 64 MiB page cache', async () => {
    const t = await startTestApp({ databaseUrl: undefined, seedSampleKnowledge: false });
    try {
      const pragma = async (name: string) => Object.values((await t.dataSource.query(`PRAGMA ${name}`))[0])[0];
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('busy_timeout')).toBe(5000);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('synchronous')).toBe(1);
      expect(await pragma('cache_size')).toBe(-65536);
    } finally {
      await t.close();
    }
  });
});
