/**
 * The network edge for the Analytics tab's component tests: `fetch` answers the analytics routes
 * like the server (status + JSON envelope) from replaceable fixtures, records every call, and can
 * fail. A fake live feed stands in for the /admin socket. The tab's own code runs unchanged.
 */
import type {
  AgentPerformanceRow,
  ModelCostRow,
  PerformanceAnalytics,
  SystemAnalytics,
} from '@shared/contracts/analytics';
import { vi } from 'vitest';
import type { LiveFeed } from '../hooks/useAnalyticsLive';

const HOUR = '2025-01-01T10:00:00.000Z';

export function makeSystem(overrides: Partial<SystemAnalytics> = {}): SystemAnalytics {
  return {
    hours: 24,
    from: '2025-01-01T09:30:00.000Z',
    to: '2025-01-01T10:30:00.000Z',
    totalRequests: 1234,
    totalErrors: 12,
    totalTokensUsed: 56789,
    promptTokens: 50000,
    completionTokens: 6789,
    totalCost: 12.3456,
    requestsByVertical: { 'customer-service': 900, hr: 334 },
    requestsByChannel: { socket: 1100, sse: 100, a2a: 30, mcp: 4 },
    recentErrors: [],
    hourly: [
      { hour: '2025-01-01T09:00:00.000Z', requests: 200, errors: 2, tokens: 9000, cost: 2.1 },
      { hour: HOUR, requests: 1034, errors: 10, tokens: 47789, cost: 10.2456 },
    ],
    answeredRate: null,
    conversations: 321,
    messagesPerConversation: 4.25,
    limitedRequests: { total: 0, byRule: {} },
    ...overrides,
  };
}

export function makeAgentRow(overrides: Partial<AgentPerformanceRow> = {}): AgentPerformanceRow {
  return {
    agentId: 'customer-service-agent',
    agentName: 'Customer Support Agent',
    totalRequests: 900,
    errorRate: 0.01,
    averageResponseTime: 812.4,
    totalCost: 9.87654,
    totalTokensUsed: 40000,
    helpfulRate: null,
    answeredRate: null,
    feedback: { up: 0, down: 0 },
    ...overrides,
  };
}

export function makeCostRow(overrides: Partial<ModelCostRow> = {}): ModelCostRow {
  return { provider: 'openai', model: 'gpt-4o-mini', requestCount: 1234, totalCost: 12.3456, totalTokens: 56789, ...overrides };
}

export function makePerformance(overrides: Partial<PerformanceAnalytics['summary']> = {}): PerformanceAnalytics {
  return {
    hours: 24,
    from: '2025-01-01T09:30:00.000Z',
    to: '2025-01-01T10:30:00.000Z',
    summary: {
      totalRequests: 1234,
      successfulRequests: 1222,
      errorRate: 0.0097,
      averageResponseTime: 245.6,
      p50ResponseTime: 230,
      p95ResponseTime: 610,
      averageTimeToFirstToken: 80.2,
      p50TimeToFirstToken: 75,
      p95TimeToFirstToken: 160,
      ...overrides,
    },
    hourly: [],
  };
}

export interface Fixtures {
  system: SystemAnalytics;
  agents: AgentPerformanceRow[];
  costs: ModelCostRow[];
  performance: PerformanceAnalytics;
}

export function fakeAnalyticsServer(initial: Partial<Fixtures> = {}) {
  const fixtures: Fixtures = {
    system: makeSystem(),
    agents: [makeAgentRow()],
    costs: [makeCostRow()],
    performance: makePerformance(),
    ...initial,
  };
  const calls: URL[] = [];
  let failing = false;
  let gate: Promise<void> | undefined;
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://localhost');
    calls.push(url);
    if (gate) await gate;
    const name = url.pathname.replace('/api/analytics/', '') as keyof Fixtures;
    if (failing || !(name in fixtures)) {
      return new Response(JSON.stringify({ success: false, error: { code: 'internal_error', message: 'Something went wrong' }, requestId: 't' }), {
        status: 500,
        headers: { 'Content-Type': 'application/json' },
      });
    }
    return new Response(JSON.stringify({ success: true, data: fixtures[name] }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    fixtures,
    calls,
    callsTo: (name: string) => calls.filter((u) => u.pathname === `/api/analytics/${name}`),
    set(next: Partial<Fixtures>) {
      Object.assign(fixtures, next);
    },
    fail(on = true) {
      failing = on;
    },
    /** Holds every answer until the returned function is called. */
    hold(): () => void {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** A stand-in for the /admin socket: `push()` delivers `analytics:update` like the server would. */
export function fakeLiveFeed() {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  let disconnected = false;
  const feed: LiveFeed = {
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
    },
    disconnect() {
      disconnected = true;
    },
  };
  const emit = (event: string, payload?: unknown) => listeners.get(event)?.forEach((l) => l(payload));
  return {
    connect: () => feed,
    push: () => emit('analytics:update', { at: new Date().toISOString(), events: 1, votes: 0 }),
    emit,
    get disconnected() {
      return disconnected;
    },
  };
}
