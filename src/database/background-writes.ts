/**
 * Writes that run off the request path and that nobody awaits: a knowledge gap counted after a
 * reply is stored or voted down, a budget alert with its mails, a session's last activity. They
 * are registered here, per DataSource, and closing the DataSource (initializeDataSource makes its
 * destroy() do so) first waits for them, including any they start meanwhile. Without this a
 * SIGTERM closed the database under them ("SQLITE_MISUSE: Database handle is closed") and the
 * records were lost, although the replies they belonged to were stored.
 */
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

/**
 * How long closing waits for them at most. Every query on the request paths is bounded well below
 * this (the database's query timeouts), so only a database that stopped answering meets it.
 */
export const BACKGROUND_WRITES_WAIT_MS = 15_000;

const pending = new WeakMap<DataSource, Set<Promise<unknown>>>();

/** Registers a write nobody awaits; returns it. Its failure stays its own (it is not rethrown here). */
export function backgroundWrite<T>(dataSource: DataSource, write: Promise<T>): Promise<T> {
  let set = pending.get(dataSource);
  if (!set) pending.set(dataSource, (set = new Set()));
  const tracked = write.then(
    () => undefined,
    () => undefined,
  );
  set.add(tracked);
  void tracked.then(() => set.delete(tracked));
  return write;
}

/** How many background writes of the DataSource are still running. */
export function backgroundWritesRunning(dataSource: DataSource): number {
  return pending.get(dataSource)?.size ?? 0;
}

/** Resolves once every background write is done (and those they started), or after `timeoutMs`; the number left. */
export async function settleBackgroundWrites(dataSource: DataSource, timeoutMs = BACKGROUND_WRITES_WAIT_MS): Promise<number> {
  const set = pending.get(dataSource);
  if (!set || set.size === 0) return 0;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    while (set.size > 0) {
      if ((await Promise.race([Promise.all([...set]), deadline])) === 'timeout') break;
    }
  } finally {
    clearTimeout(timer);
  }
  return set.size;
}

/** Makes `dataSource.destroy()` wait for its background writes first. */
export function closeAfterBackgroundWrites(dataSource: DataSource): void {
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    const left = await settleBackgroundWrites(dataSource);
    if (left > 0) new Logger('Database').warn(`Closing the database with ${left} background write(s) still running after ${BACKGROUND_WRITES_WAIT_MS} ms`);
    return destroy();
  };
}
