/**
 * The network edge for the Knowledge Base tab's component tests: a stand-in for `fetch` that keeps
 * knowledge items and answers the Knowledge API like the server (envelopes; the list without
 * attachment content; an attachment sent with its id and no content keeps its stored content),
 * records every call with its query, and lets a test override any route. Also a fake `/admin`
 * socket the test pushes `knowledge:changed` through.
 */
import { vi } from 'vitest';
import type { KnowledgeAttachment, KnowledgeItem } from '../api/knowledge-api';
import type { KnowledgeFeed } from '../hooks/useKnowledgeLive';

export interface FakeReply {
  status?: number;
  body?: unknown;
}
export type FakeHandler = (body: any, url: URL) => FakeReply | 'network-error' | Promise<FakeReply | 'network-error'>;

let sequence = 0;

export function makeAttachment(overrides: Partial<KnowledgeAttachment> = {}): KnowledgeAttachment {
  sequence += 1;
  return { id: `att-${sequence}`, name: 'steps.txt', type: 'text/plain', size: 51, content: 'Hold the pairing button for five seconds.', uploadedAt: '2026-01-02T00:00:00.000Z', ...overrides };
}

export function makeKnowledgeItem(overrides: Partial<KnowledgeItem> = {}): KnowledgeItem {
  sequence += 1;
  return {
    id: `item-${sequence}`,
    title: 'Warranty claims',
    content: 'Every Zentrix blender has a two year warranty covering motor failure.',
    category: 'Products',
    vertical: 'customer-service',
    tags: ['warranty', 'blender'],
    attachments: [],
    jurisdiction: null,
    subRegion: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export const ok = (data: unknown, status = 200): FakeReply => ({ status, body: { success: true, data } });
export const fail = (status: number, code: string, message: string): FakeReply => ({ status, body: { success: false, error: { code, message }, requestId: 'test' } });

const withoutContent = (item: KnowledgeItem): KnowledgeItem => ({ ...item, attachments: item.attachments.map(({ content: _content, ...a }) => a) });

export function fakeKnowledgeServer(initial: KnowledgeItem[] = []) {
  const items: KnowledgeItem[] = initial.map((i) => structuredClone(i));
  const calls: Array<{ route: string; body: any; query: Record<string, string> }> = [];
  const overrides: Record<string, FakeHandler> = {};

  const toStored = (body: any, previous?: KnowledgeItem): KnowledgeItem['attachments'] =>
    (body.attachments ?? []).map((a: any) => {
      const kept = a.id ? previous?.attachments.find((p) => p.id === a.id) : undefined;
      if (kept && a.content === undefined) return { ...kept, name: a.name };
      return makeAttachment({ name: a.name, type: a.type, size: a.size, content: a.content });
    });

  const builtIn = (route: string, body: any, url: URL): FakeReply => {
    if (route === 'GET /api/knowledge') {
      const vertical = url.searchParams.get('vertical');
      const search = url.searchParams.get('search')?.toLowerCase();
      return ok(items.filter((i) => (!vertical || i.vertical === vertical) && (!search || `${i.title} ${i.content}`.toLowerCase().includes(search))).map(withoutContent));
    }
    const one = /^(GET|PUT|DELETE) \/api\/knowledge\/(.+)$/.exec(route);
    if (one) {
      const index = items.findIndex((i) => i.id === decodeURIComponent(one[2]));
      if (index < 0) return fail(404, 'not_found', 'No such knowledge item.');
      if (one[1] === 'GET') return ok(items[index]);
      if (one[1] === 'DELETE') {
        const [removed] = items.splice(index, 1);
        return ok({ id: removed.id });
      }
      const updated = { ...items[index], ...body, id: items[index].id, attachments: toStored(body, items[index]), updatedAt: new Date().toISOString() };
      items[index] = updated;
      return ok(updated);
    }
    if (route === 'POST /api/knowledge') {
      if (!body.title?.trim()) return fail(400, 'validation_failed', 'Title is required');
      const created = makeKnowledgeItem({ ...body, attachments: toStored(body) });
      items.unshift(created);
      return ok(created, 201);
    }
    return fail(404, 'not_found', `No route ${route}`);
  };

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const route = `${init?.method ?? 'GET'} ${url.pathname}`;
    // A multipart upload is recorded as its file's name.
    const form = init?.body instanceof FormData ? (init.body.get('file') as File | null) : null;
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : form ? { fileName: form.name } : undefined;
    calls.push({ route, body, query: Object.fromEntries(url.searchParams) });
    const handler = overrides[route];
    const result = handler ? await handler(body, url) : builtIn(route, body, url);
    if (result === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(result.body === undefined ? '' : JSON.stringify(result.body), { status: result.status ?? 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    items,
    calls,
    callsTo: (route: string) => calls.filter((c) => c.route === route),
    /** The queries of every list load, in order. */
    listQueries: () => calls.filter((c) => c.route === 'GET /api/knowledge').map((c) => c.query),
    on(route: string, handler: FakeHandler) {
      overrides[route] = handler;
    },
  };
}

/** A reply released by the test (to observe busy states). */
export function deferred(final: FakeReply | 'network-error') {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handler: FakeHandler = async () => {
    await gate;
    return final;
  };
  return { handler, release };
}

/** The `/admin` socket as the tab sees it: the test emits server events through `push`. */
export function fakeFeed() {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const feed: KnowledgeFeed & { disconnected: boolean } = {
    disconnected: false,
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    disconnect() {
      feed.disconnected = true;
    },
  };
  return {
    feed,
    connect: () => feed,
    push(event: string, ...args: unknown[]) {
      for (const listener of listeners.get(event) ?? []) listener(...args);
    },
  };
}
