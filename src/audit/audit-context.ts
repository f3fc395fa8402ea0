/**
 * Where the current request comes from (client IP, user agent, request id), kept while its handler
 * runs (AsyncLocalStorage, entered by the audit interceptor), so an audit entry recorded anywhere
 * during the request (the sign-in service, a feature's own event) carries them without being
 * handed them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request } from 'express';
import { clientAddressOf } from '../common/client-address';
import { requestIdOf } from '../common/request-id';

export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

const storage = new AsyncLocalStorage<RequestOrigin>();

export function originOf(req: Request): RequestOrigin {
  return { ip: clientAddressOf(req).ip ?? null, userAgent: req.header('user-agent')?.slice(0, 300) ?? null, requestId: requestIdOf(req) };
}

export function runWithOrigin<T>(origin: RequestOrigin, work: () => T): T {
  return storage.run(origin, work);
}

/** The current request's origin, or nothing known (a job, the command line). */
export function currentOrigin(): RequestOrigin {
  return storage.getStore() ?? { ip: null, userAgent: null, requestId: null };
}
