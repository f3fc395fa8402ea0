import type { DataSource } from 'typeorm';
import { dialectOf } from './data-source';

/**
 * Rewrites numbered parameters written as `$1`, `$2` (Postgres style) into the form the
 * current dialect understands (`?1`, `?2` for SQLite), so raw SQL is written once.
 */
export function portableSql(dataSource: DataSource, sql: string): string {
  return dialectOf(dataSource) === 'postgres' ? sql : sql.replace(/\$(\d+)/g, '?$1');
}

/** Runs an UPDATE or DELETE and returns how many rows it changed (both drivers report it). */
export async function changedRows(dataSource: DataSource, sql: string, parameters: unknown[]): Promise<number> {
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(portableSql(dataSource, sql), parameters, true);
    return result.affected ?? 0;
  } finally {
    await runner.release();
  }
}

/**
 * A raw SELECT that never waits behind a write: on SQLite it runs on a read-only connection
 * (sqlite-readers.ts) and sees what was committed when it started; on Postgres on the pool.
 */
export async function readQuery<T = any>(dataSource: DataSource, sql: string, parameters?: unknown[]): Promise<T> {
  const runner = dataSource.createQueryRunner('slave');
  try {
    return await dataSource.query(sql, parameters, runner);
  } finally {
    await runner.release();
  }
}
