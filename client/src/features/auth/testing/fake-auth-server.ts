/**
 * The network edge for component tests: a stand-in for `fetch` that answers the auth routes like
 * the server does (status + JSON envelope), records every call, and can fail like a dropped
 * connection. Only `fetch` is replaced; the client code under test runs as in the browser.
 */
import { vi } from 'vitest';

export interface FakeReply {
  status?: number;
  body?: unknown;
}

export type FakeHandler = (body: any) => FakeReply | 'network-error' | Promise<FakeReply | 'network-error'>;

export interface FakeCall {
  route: string;
  body: any;
}

export const USER = { id: '00000000-0000-4000-8000-00000000ada1', name: 'Ada Lovelace', email: 'ada@example.com', role: 'owner' as const };

export const reply = {
  ok: (body: Record<string, unknown> = {}): FakeReply => ({ status: 200, body: { success: true, ...body } }),
  error: (status: number, code: string, message: string): FakeReply => ({ status, body: { success: false, error: { code, message }, requestId: 'test' } }),
  unauthenticated: (): FakeReply => reply.error(401, 'unauthorized', 'Not authenticated'),
};

export function fakeAuthServer(routes: Record<string, FakeHandler> = {}) {
  const calls: FakeCall[] = [];
  const handlers: Record<string, FakeHandler> = { 'GET /api/auth/me': () => reply.unauthenticated(), ...routes };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const route = `${init?.method ?? 'GET'} ${url.pathname}`;
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ route, body });
    const handler = handlers[route];
    const result = handler ? await handler(body) : reply.error(404, 'not_found', 'No such route.');
    if (result === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(result.body === undefined ? '' : JSON.stringify(result.body), {
      status: result.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    callsTo: (route: string) => calls.filter((c) => c.route === route),
    on(route: string, handler: FakeHandler) {
      handlers[route] = handler;
    },
  };
}

/** A reply that arrives only when `release()` is called (to see busy states). */
export function deferredReply(final: FakeReply) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handler: FakeHandler = async () => {
    await gate;
    return final;
  };
  return { handler, release };
}
