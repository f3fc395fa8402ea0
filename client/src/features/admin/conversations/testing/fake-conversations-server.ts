/**
 * The network edge for the Conversations tab's component tests: a stand-in for `fetch` that keeps
 * conversations, transcripts and knowledge gaps and answers like the server (envelopes, pages,
 * the filters it is given recorded), and a fake `/admin` socket a test pushes events through.
 */
import type { ConversationSummary, ConversationTranscript, KnowledgeGap } from '@shared/contracts/conversations';
import { vi } from 'vitest';
import type { ConversationsFeed } from '../hooks/useConversationsLive';

let sequence = 0;
const id = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

export function makeSummary(overrides: Partial<ConversationSummary> = {}): ConversationSummary {
  return {
    id: id(),
    vertical: 'customer-service',
    jurisdiction: null,
    subJurisdiction: null,
    language: 'en',
    title: 'Where is my parcel?',
    messageCount: 2,
    unanswered: 0,
    feedback: { up: 0, down: 0 },
    channel: 'socket',
    open: true,
    createdAt: '2026-03-02T10:00:00.000Z',
    updatedAt: '2026-03-02T10:00:05.000Z',
    match: null,
    ...overrides,
  };
}

export function makeTranscript(summary: ConversationSummary, messages: ConversationTranscript['messages'] = []): ConversationTranscript {
  const { match: _match, ...rest } = summary;
  return { ...rest, messages };
}

export function makeGap(overrides: Partial<KnowledgeGap> = {}): KnowledgeGap {
  return {
    id: id(),
    vertical: 'customer-service',
    question: 'Do you ship to Mars?',
    examples: ['Can you deliver to Mars?'],
    terms: ['mar', 'ship'],
    count: 3,
    reasons: { notFound: 2, lowConfidence: 0, thumbsDown: 1 },
    status: 'open',
    firstAskedAt: '2026-03-01T10:00:00.000Z',
    lastAskedAt: '2026-03-02T10:00:00.000Z',
    resolvedAt: null,
    reopenedAt: null,
    ...overrides,
  };
}

const ok = (data: unknown) => new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { 'Content-Type': 'application/json' } });

export function fakeConversationsServer(state: { conversations: ConversationSummary[]; transcripts?: ConversationTranscript[]; gaps?: KnowledgeGap[] }) {
  const calls: Array<{ method: string; path: string; query: Record<string, string>; body: unknown }> = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    const query = Object.fromEntries(url.searchParams);
    calls.push({ method, path: url.pathname, query, body });
    if (method === 'GET' && url.pathname === '/api/conversations') {
      const size = Number(query.pageSize ?? 20);
      const page = Number(query.page ?? 1);
      const items = state.conversations.filter((c) => !query.vertical || c.vertical === query.vertical);
      return ok({ items: items.slice((page - 1) * size, page * size), total: items.length, page, pageSize: size });
    }
    const transcript = /^\/api\/conversations\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && transcript) return ok(state.transcripts?.find((t) => t.id === transcript[1]));
    if (method === 'GET' && url.pathname === '/api/knowledge-gaps') {
      const items = (state.gaps ?? []).filter((g) => query.status === 'all' || g.status === (query.status ?? 'open'));
      return ok({ items, total: items.length, page: 1, pageSize: 50 });
    }
    const gap = /^\/api\/knowledge-gaps\/([^/]+)$/.exec(url.pathname);
    if (method === 'PUT' && gap) {
      const found = state.gaps!.find((g) => g.id === gap[1])!;
      found.status = body.status;
      return ok(found);
    }
    return new Response(JSON.stringify({ success: false, error: { code: 'not_found', message: 'not here' } }), { status: 404 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, state, callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path) };
}

export function fakeFeed() {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const feed: ConversationsFeed = {
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    disconnect() {},
  };
  return {
    connect: () => feed,
    push(event: string, ...args: unknown[]) {
      for (const listener of listeners.get(event) ?? []) listener(...args);
    },
  };
}
