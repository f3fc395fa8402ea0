/**
 * Reads that never wait behind a write, on SQLite.
 *
 * TypeORM's sqlite driver runs every statement on ONE connection, so a search issued while an
 * admin's large item is being indexed would wait for that write: a chat during a 10 MB upload
 * would take seconds. In WAL mode readers and the writer
 * do not block each other, as long as they are on different connections. So this opens a few
 * read-only connections to the same file and routes TypeORM's read query runners to them:
 *
 * - TypeORM asks for a 'slave' query runner for every SELECT it builds outside a transaction
 *   (repositories' find/count, query builders' getMany, ...): those get a ReadQueryRunner.
 *   Reads inside a transaction use the transaction's runner (the writer), as before.
 * - Raw SQL reads go through readQuery() (sql.ts), which asks for a 'slave' runner too.
 * - Writes, transactions, migrations and the default `dataSource.query()` stay on the one
 *   writer connection (and SQLite writes still go through the write queue, write-queue.ts).
 *
 * A read sees what was committed when its statement started (WAL snapshot), never a write that
 * is under way; a write that has committed is visible to every read started after it.
 */
import type { DataSource, ReplicationMode } from 'typeorm';
import type { SqliteDriver } from 'typeorm/driver/sqlite/SqliteDriver';
import { SqliteQueryRunner } from 'typeorm/driver/sqlite/SqliteQueryRunner';
import * as sqlite3 from 'sqlite3';

/** Read-only connections per DataSource (2 cores here; more add little, as measured: see README). */
export const READ_CONNECTIONS = 2;

interface ReadConnection {
  db: sqlite3.Database;
  /** Statements running or queued on it. */
  busy: number;
}

class ReadPool {
  constructor(readonly connections: ReadConnection[]) {}

  /** The connection with the fewest statements under way. */
  pick(): ReadConnection {
    let best = this.connections[0];
    for (const c of this.connections) if (c.busy < best.busy) best = c;
    return best;
  }

  close(): Promise<void> {
    return Promise.all(this.connections.map((c) => new Promise<void>((resolve) => c.db.close(() => resolve())))).then(() => undefined);
  }
}

/** A query runner whose statements run on the pool's least busy read-only connection. */
class ReadQueryRunner extends SqliteQueryRunner {
  private current: ReadConnection | undefined;

  constructor(
    driver: SqliteDriver,
    private readonly pool: ReadPool,
  ) {
    super(driver);
  }

  override connect(): Promise<any> {
    return Promise.resolve((this.current ?? this.pool.pick()).db);
  }

  override async query(query: string, parameters?: any[], useStructuredResult = false): Promise<any> {
    const connection = this.pool.pick();
    // SqliteQueryRunner.query calls connect() before its first await: `current` is read there.
    this.current = connection;
    connection.busy += 1;
    try {
      return await super.query(query, parameters, useStructuredResult);
    } finally {
      connection.busy -= 1;
      this.current = undefined;
    }
  }
}

function open(file: string, busyTimeoutMs: number): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => {
      if (error) return reject(error);
      db.configure('busyTimeout', busyTimeoutMs);
      // The same page cache as the writer's (data-source.ts): searches read postings spread over the file.
      db.run('PRAGMA cache_size = -65536', (e) => (e ? reject(e) : resolve(db)));
    });
  });
}

const pools = new WeakMap<DataSource, ReadPool>();

/**
 * Opens the read-only connections of a SQLite DataSource (after it is initialized and in WAL
 * mode) and routes its 'slave' query runners to them; they close with the DataSource.
 */
export async function attachSqliteReaders(dataSource: DataSource, count = READ_CONNECTIONS): Promise<void> {
  if (pools.has(dataSource) || count <= 0) return;
  const driver = dataSource.driver as SqliteDriver;
  const file = String(dataSource.options.database);
  const busyTimeout = Number((dataSource.options as { busyTimeout?: number }).busyTimeout ?? 5000);
  const connections: ReadConnection[] = [];
  try {
    for (let i = 0; i < count; i += 1) connections.push({ db: await open(file, busyTimeout), busy: 0 });
  } catch (error) {
    await new ReadPool(connections).close();
    throw error;
  }
  const pool = new ReadPool(connections);
  pools.set(dataSource, pool);
  const createQueryRunner = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode: ReplicationMode) => (mode === 'slave' ? new ReadQueryRunner(driver, pool) : createQueryRunner(mode));
  const disconnect = driver.disconnect.bind(driver);
  driver.disconnect = async () => {
    pools.delete(dataSource);
    driver.createQueryRunner = createQueryRunner;
    await pool.close();
    await disconnect();
  };
}
