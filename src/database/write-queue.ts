/**
 * SQLite runs every query of a DataSource on ONE connection, and TypeORM turns a second
 * concurrent transaction into a savepoint of the first (and a plain INSERT issued meanwhile joins
 * whichever transaction is open). Every write that must stand on its own therefore goes through
 * this per-DataSource queue on SQLite. Postgres has a pool, so writes run at once there.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { dialectOf } from './data-source';

const queues = new WeakMap<DataSource, Promise<unknown>>();

/** Runs `work` after the writes queued before it (SQLite), or at once (Postgres). */
export function queuedWrite<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dialectOf(dataSource) !== 'sqlite') return work();
  const previous = queues.get(dataSource) ?? Promise.resolve();
  const run = previous.then(work);
  queues.set(
    dataSource,
    run.catch(() => undefined),
  );
  return run;
}

/** A transaction of its own, queued like any other write on SQLite. */
export function writeTransaction<T>(dataSource: DataSource, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return queuedWrite(dataSource, () => dataSource.transaction(work));
}
