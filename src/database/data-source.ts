/**
 * How the database is opened, for the configured dialect: SQLite at DATA_DIR/app.db by default
 * (WAL, busy timeout, the plain sqlite3 module), Postgres when DATABASE_URL is set. Migrations
 * run at start in both modes (the schema's source of truth; `synchronize` stays off).
 *
 * The server opens it through TypeOrmModule (database.module.ts: entities come from each
 * feature's `TypeOrmModule.forFeature`); the admin CLI, the benchmarks and the unit specs through
 * openDataSource. Both use connectionOptions and initializeDataSource, so they open it alike.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { Client } from 'pg';
import * as sqlite3 from 'sqlite3';
import type { AppConfig } from '../config/app-config';
import { closeAfterBackgroundWrites } from './background-writes';
import { POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS } from './migrations';
import { attachSqliteReaders } from './sqlite-readers';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(dataSource: DataSource): Dialect {
  return dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
}

/**
 * Every entity file of the app, for a DataSource opened outside Nest (openDataSource). A glob
 * rather than a list kept by hand: entities are `<name>.entity.ts` in their feature's folder
 * (`.js` once built). Inside Nest each feature module registers its own; a spec checks that both
 * give the same set (test/database.e2e-spec.ts).
 */
export const ENTITY_FILES = path.join(__dirname, '..', '**', '*.entity.{ts,js}');

/** Connection options without entities (the caller adds them: autoLoadEntities or ENTITY_FILES). */
export function connectionOptions(config: AppConfig): DataSourceOptions {
  // Migrations run in initializeDataSource, after the SQLite pragmas.
  const common = { synchronize: false, logging: false, migrationsRun: false } as const;
  if (config.databaseUrl) {
    const schema = config.databaseSchema;
    return {
      ...common,
      type: 'postgres',
      url: config.databaseUrl,
      // A server that accepts TCP and never answers must not hang the start (or a request) forever.
      connectTimeoutMS: config.databaseConnectTimeoutMs,
      migrations: POSTGRES_MIGRATIONS,
      ...(schema ? { schema } : {}),
      extra: {
        max: 20,
        // A server that stops answering on an open connection (frozen, cut off without a reset)
        // must not hold a request for as long as it is silent: the client gives up after
        // query_timeout (a 503 database_unavailable), and the server drops a statement that runs
        // longer than that, so an abandoned one does not go on holding locks.
        query_timeout: config.databaseQueryTimeoutMs,
        options: [`-c statement_timeout=${config.databaseQueryTimeoutMs}`, ...(schema ? [`-c search_path=${schema}`] : [])].join(' '),
      },
    };
  }
  return {
    ...common,
    type: 'sqlite',
    database: path.join(config.dataDir, 'app.db'),
    migrations: SQLITE_MIGRATIONS,
    // TypeORM sets journal_mode = WAL, busy_timeout and foreign_keys = ON on connect.
    enableWAL: true,
    busyTimeout: 5000,
    busyErrorRetry: 5000,
    // TypeORM calls sqlite3.verbose(), which records a stack trace and inspects the SQL of every
    // statement (measured: about a quarter of retrieval CPU). Hand it the plain module instead.
    driver: { ...sqlite3, verbose: () => sqlite3 },
  };
}

/**
 * What must exist before connecting: the data directory (SQLite), or the Postgres schema a test
 * suite isolates itself in (nothing for `public`).
 */
export async function prepareDatabase(config: AppConfig): Promise<void> {
  if (!config.databaseUrl) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    return;
  }
  if (!config.databaseSchema || config.databaseSchema === 'public') return;
  if (!/^[a-z_][a-z0-9_]*$/.test(config.databaseSchema)) {
    throw new Error(`DATABASE_SCHEMA must be a plain lower-case identifier (got "${config.databaseSchema}")`);
  }
  const client = new Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: config.databaseConnectTimeoutMs });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${config.databaseSchema}`);
  } finally {
    await client.end();
  }
}

/**
 * Connects, tunes SQLite, and runs the pending migrations (before anything else uses the
 * database). A failure after connecting closes the connection again. Closing it waits for its
 * background writes first.
 */
export async function initializeDataSource(dataSource: DataSource): Promise<DataSource> {
  await dataSource.initialize();
  try {
    if (dialectOf(dataSource) === 'sqlite') {
      await dataSource.query('PRAGMA synchronous = NORMAL');
      // 64 MiB of page cache (the default is 2 MiB): every chunk written updates ~100 rows of the
      // knowledge search index, one per term, spread over the whole table. Measured on 100,000
      // chunks: 1.0-1.2 ms -> 0.7 ms per chunk inserted (search reads were not measurably faster).
      await dataSource.query('PRAGMA cache_size = -65536');
    }
    await runMigrationsExclusively(dataSource);
    // Reads on connections of their own, so that they never wait behind a write (sqlite-readers.ts).
    if (dialectOf(dataSource) === 'sqlite') await attachSqliteReaders(dataSource);
    // Closing (shutdown) waits for the writes nobody awaits (background-writes.ts).
    closeAfterBackgroundWrites(dataSource);
  } catch (error) {
    await dataSource.destroy().catch(() => undefined);
    throw error;
  }
  return dataSource;
}

/**
 * Runs the pending migrations. On Postgres, servers starting at the same time on a new schema
 * (`docker compose up --scale app=3`) would each find the migrations pending and all but one fail
 * ("duplicate key value violates unique constraint"): a session advisory lock per schema makes
 * them take turns, and the later ones find nothing left to do.
 */
async function runMigrationsExclusively(dataSource: DataSource): Promise<void> {
  if (dialectOf(dataSource) !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'each' });
    return;
  }
  // A migration may rewrite a large table: it runs on a pool of its own without the statement
  // bound that every request's query has.
  const migrator = new DataSource({ ...dataSource.options, extra: withoutStatementBound(dataSource.options) } as DataSourceOptions);
  await migrator.initialize();
  try {
    const runner = migrator.createQueryRunner();
    await runner.connect();
    try {
      await runner.query("SELECT pg_advisory_lock(hashtext('support-assistant:migrations:' || current_schema()))");
      try {
        await migrator.runMigrations({ transaction: 'each' });
      } finally {
        await runner.query("SELECT pg_advisory_unlock(hashtext('support-assistant:migrations:' || current_schema()))").catch(() => undefined);
      }
    } finally {
      await runner.release();
    }
  } finally {
    await migrator.destroy();
  }
}

/** The pool settings of `options` without query_timeout and statement_timeout. */
function withoutStatementBound(options: DataSourceOptions): Record<string, unknown> {
  const { query_timeout: _readTimeout, ...extra } = ((options as { extra?: Record<string, unknown> }).extra ?? {}) as Record<string, unknown>;
  const startup = typeof extra.options === 'string' ? extra.options.replace(/-c statement_timeout=\d+\s*/, '').trim() : undefined;
  return { ...extra, max: 2, ...(startup ? { options: startup } : { options: undefined }) };
}

/** A migrated DataSource with every entity, outside Nest (admin CLI, benchmarks, unit specs). */
export async function openDataSource(config: AppConfig): Promise<DataSource> {
  await prepareDatabase(config);
  return initializeDataSource(new DataSource({ ...connectionOptions(config), entities: [ENTITY_FILES] }));
}

/** Drops a test schema (Postgres) — used by test teardown. */
export async function dropPostgresSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
