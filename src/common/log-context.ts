import { AsyncLocalStorage } from 'node:async_hooks';

/** Ids that every log line written while handling one request or one reply carries. */
export interface LogFields {
  requestId?: string;
  replyId?: string;
}

const storage = new AsyncLocalStorage<LogFields>();

/**
 * Runs `fn` (and everything it starts, awaited or not) with `fields` added to the ids already in
 * scope, so that a log line written deep inside, by any Logger, names the request and the reply.
 */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/** The ids in scope here, if any. */
export function currentLogFields(): LogFields | undefined {
  return storage.getStore();
}
