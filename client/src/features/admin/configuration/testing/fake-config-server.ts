/**
 * The network edge for the Configuration tab's component tests: a stand-in for `fetch` that keeps
 * a configuration and answers the Config API routes like the server (envelopes, masked keys, a
 * key kept when none is sent), records every call, and lets a test override any route.
 */
import { vi } from 'vitest';
import { CHAT_LIMIT_DEFAULTS } from '@shared/contracts/limits';
import type { AgentConfig, GlobalSettings, SystemConfig } from '../api/config-api';

export interface FakeReply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}
export type FakeHandler = (body: any, path: string) => FakeReply | 'network-error' | Promise<FakeReply | 'network-error'>;

export function makeAgent(overrides: Partial<Omit<AgentConfig, 'llmConfig'>> & { llmConfig?: Partial<AgentConfig['llmConfig']> } = {}): AgentConfig {
  const { llmConfig, ...rest } = overrides;
  return {
    agentId: 'hr-agent',
    agentName: 'Employee Support Agent',
    vertical: 'hr',
    enabled: true,
    systemPrompt: 'You are a knowledgeable HR assistant.',
    timeout: 30000,
    keyStatus: 'set',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...rest,
    llmConfig: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-...abcd', temperature: 0.7, maxTokens: 2000, endpoint: null, baseUrl: null, apiVersion: null, ...llmConfig },
  };
}

export function makeGlobal(overrides: Partial<GlobalSettings> = {}): GlobalSettings {
  return {
    responseTemperature: 0.7,
    maxResponseLength: 500,
    defaultLanguage: 'en',
    verticals: { 'customer-service': true, hr: true, legal: true, sales: true },
    enableAnalytics: true,
    debugMode: false,
    conversationRetentionDays: 90,
    chatLimits: { ...CHAT_LIMIT_DEFAULTS },
    budgets: { list: [], visitorDailyTokens: null },
    requireApiKey: false,
    ...overrides,
  };
}

export const ok = (data: unknown): FakeReply => ({ status: 200, body: { success: true, data } });
export const fail = (status: number, code: string, message: string): FakeReply => ({ status, body: { success: false, error: { code, message }, requestId: 'test' } });

export function fakeConfigServer(initial: Partial<SystemConfig> = {}) {
  const state: SystemConfig = {
    agents: initial.agents ?? [
      makeAgent({ agentId: 'universal-agent', agentName: 'Universal Agent', vertical: 'universal', systemPrompt: 'You are a helpful support assistant.' }),
      makeAgent(),
      makeAgent({ agentId: 'sales-agent', agentName: 'Sales Advisor Agent', vertical: 'sales', enabled: false, keyStatus: 'missing', llmConfig: { provider: 'anthropic', model: 'claude-haiku-4-5', apiKey: '', temperature: null } }),
    ],
    global: initial.global ?? makeGlobal(),
    settingsProblems: initial.settingsProblems ?? [],
  };
  const calls: Array<{ route: string; body: any }> = [];
  const overrides: Record<string, FakeHandler> = {};

  const builtIn = (route: string, body: any, path: string): FakeReply => {
    if (route === 'GET /api/config') return ok(state);
    const agentMatch = /^PUT \/api\/config\/agents\/(.+)$/.exec(route);
    if (agentMatch) {
      const agent = state.agents.find((a) => a.agentId === decodeURIComponent(agentMatch[1]));
      if (!agent) return fail(404, 'not_found', 'No such agent.');
      const { apiKey, ...llm } = body.llmConfig ?? {};
      Object.assign(agent, { ...body, llmConfig: { ...agent.llmConfig, ...llm } });
      if (apiKey) {
        agent.llmConfig.apiKey = `${apiKey.slice(0, 3)}...${apiKey.slice(-4)}`;
        agent.keyStatus = 'set';
      }
      return ok(agent);
    }
    if (route === 'POST /api/config/agents') {
      const agentId = body.agentId ?? `${String(body.agentName).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-agent`;
      if (state.agents.some((a) => a.agentId === agentId)) return fail(409, 'conflict', `Agent ${agentId} already exists.`);
      const agent = makeAgent({ agentId, agentName: body.agentName, vertical: body.vertical, keyStatus: 'missing', llmConfig: { provider: body.llmConfig.provider, model: 'gpt-4o-mini', apiKey: '', temperature: null } });
      state.agents.push(agent);
      return { status: 201, body: { success: true, data: agent } };
    }
    const deleteMatch = /^DELETE \/api\/config\/agents\/(.+)$/.exec(route);
    if (deleteMatch) {
      const id = decodeURIComponent(deleteMatch[1]);
      if (!state.agents.some((a) => a.agentId === id)) return fail(404, 'not_found', 'No such agent.');
      state.agents = state.agents.filter((a) => a.agentId !== id);
      return ok({ agentId: id });
    }
    if (route === 'PUT /api/config/global') {
      state.global = { ...state.global, ...body, verticals: { ...state.global.verticals, ...(body.verticals ?? {}) } };
      return ok(state.global);
    }
    if (route === 'POST /api/config/test-api-key') return ok({ isValid: true, reason: 'OpenAI accepted the key (8 models available).' });
    if (route === 'GET /api/config/validate') return ok({ valid: true, problems: [], checkedAt: new Date().toISOString() });
    if (route === 'GET /api/config/export') {
      return { status: 200, body: { format: 'support-assistant-config', version: 1, ...state }, headers: { 'Content-Disposition': 'attachment; filename="support-assistant-config-2026-01-01.json"' } };
    }
    return fail(404, 'not_found', `No route ${route} ${path}`);
  };

  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const route = `${init?.method ?? 'GET'} ${url.pathname}`;
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ route, body });
    const handler = overrides[route];
    const result = handler ? await handler(body, url.pathname) : builtIn(route, body, url.pathname);
    if (result === 'network-error') throw new TypeError('Failed to fetch');
    return new Response(result.body === undefined ? '' : JSON.stringify(result.body), {
      status: result.status ?? 200,
      headers: { 'Content-Type': 'application/json', ...(result.headers ?? {}) },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    state,
    calls,
    callsTo: (route: string) => calls.filter((c) => c.route === route),
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
