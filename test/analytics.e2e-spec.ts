/**
 * LLM usage analytics end to end: 30 chats across the verticals through a vendor provider (the
 * mock OpenAI server), some made to fail, then every figure of every analytics endpoint is
 * compared with what this test computes from its own record of what it sent (and what the mock
 * reported). Then: the hourly rollups give the same figures and are idempotent, a late event
 * re-rolls its hour, the export has one row per event, reply feedback drives the Helpful rate,
 * and the /admin socket gets `analytics:update` at most once a second while traffic flows.
 * Runs on SQLite + in-process jobs, or Postgres + Redis when DATABASE_URL / REDIS_URL are set.
 */
import { CookieAccessInfo } from 'cookiejar';
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { AgentRegistryService } from '../src/agents/agent-registry.service';
import { AnalyticsClock } from '../src/analytics/analytics-clock';
import { AnalyticsService } from '../src/analytics/analytics.service';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { UsageRecorderService } from '../src/analytics/usage-recorder.service';
import { UsageRollupService } from '../src/analytics/usage-rollup.service';
import { costUsd } from '../src/shared/catalog/providers';
import type { AgentPerformanceRow, AnalyticsUpdate, ModelCostRow, PerformanceAnalytics, SystemAnalytics } from '../src/shared/contracts/analytics';
import { EXPORT_COLUMNS } from '../src/shared/contracts/analytics';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { AdminServerToClientEvents } from '../src/shared/contracts/socket';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { eventually, startTestApp, TestApp, visitorCookieOf } from './support/test-app';

const ADMIN_EMAIL = 'analytics-admin@example.com';
const ADMIN_PASSWORD = 'analytics admin password';
const HOUR = 3_600_000;

const QUESTIONS: Record<string, { query: string; jurisdiction?: string }> = {
  'customer-service': { query: 'How long does shipping take?' },
  hr: { query: 'How many vacation days do employees earn?' },
  legal: { query: 'What should an employment contract include?', jurisdiction: 'JP' },
  sales: { query: 'How do I handle a price objection?' },
};
const VERTICALS = Object.keys(QUESTIONS);

/** What the test sent and what came back, per chat. */
interface SentChat {
  requestId: string;
  vertical: string;
  fails: boolean;
  reply?: ReplyData;
  /** The visitor cookie the reply was given to (only that visitor may rate it). */
  visitor?: string;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

/** The admin agent of test/support (signed in; signs in here if the helper has not yet). */
async function signedInAdmin(t: TestApp): Promise<AdminAgent> {
  const admin = await adminAgent(t);
  if ((await admin.get('/api/auth/me')).status !== 200) {
    await admin.post('/api/auth/login-password').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
  }
  return admin;
}

function cookieHeader(admin: AdminAgent): string {
  const jar = (admin as unknown as { jar: { getCookies(access: CookieAccessInfo): Array<{ name: string; value: string }> } }).jar;
  return jar
    .getCookies(CookieAccessInfo.All)
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}

type AdminSocket = Socket<AdminServerToClientEvents>;

function connectAdminSocket(url: string, cookie: string): Promise<AdminSocket> {
  return new Promise((resolve, reject) => {
    const socket: AdminSocket = io(`${url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function getData<T>(admin: AdminAgent, path: string): Promise<T> {
  const res = await admin.get(path).expect(200);
  expect(res.body.success).toBe(true);
  return res.body.data as T;
}

/** Sends one chat over POST /interact, tagged with its request id, and records what happened. */
async function sendChat(t: TestApp, mock: MockLlmServer, index: number, vertical: string, fails: boolean, tokens: number): Promise<SentChat> {
  const requestId = `an-${index}-${Math.random().toString(36).slice(2, 8)}`;
  const marker = fails ? '[mock:500]' : `[mock:tokens=${tokens}]`;
  const q = QUESTIONS[vertical];
  const res = await request(t.url)
    .post('/interact')
    .set('X-Request-Id', requestId)
    .send({ vertical, query: `${q.query} (chat ${requestId}) ${marker}`, jurisdiction: q.jurisdiction });
  const record = mock.requests.find((r) => JSON.stringify(r.messages ?? []).includes(`chat ${requestId}`));
  if (!record) throw new Error(`the mock never saw chat ${requestId}`);
  if (fails) {
    expect(res.status).toBe(502);
    // A call that failed before any text arrived is billed nothing.
    return { requestId, vertical, fails, promptTokens: 0, completionTokens: 0, cost: 0 };
  }
  expect(res.status).toBe(200);
  const reply = res.body.data as ReplyData;
  const visitor = visitorCookieOf(res.headers['set-cookie']);
  const usage = record.usage!;
  expect(usage.completionTokens).toBe(tokens);
  return {
    requestId,
    vertical,
    fails,
    reply,
    visitor,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cost: costUsd('openai', 'gpt-4o-mini', usage.promptTokens, usage.completionTokens),
  };
}

function sum<T>(items: T[], f: (item: T) => number): number {
  return items.reduce((total, item) => total + f(item), 0);
}

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

/** Histogram percentiles: exact below 100 ms, within 1.5% above. */
function expectPercentile(reported: number | null, exact: number) {
  expect(reported).not.toBeNull();
  if (exact < 100) expect(reported).toBe(exact);
  else expect(Math.abs(reported! - exact) / exact).toBeLessThanOrEqual(0.015);
}

function mean(values: number[]): number {
  return Math.round((sum(values, (v) => v) / values.length) * 10) / 10;
}

describe('LLM usage analytics', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;
  let chats: SentChat[];
  let agentOf: Map<string, { id: string; name: string }>;
  let events: UsageEvent[];

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 8 });
    t = await startTestApp({ openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, signInIpLimit: 10000 });
    admin = await signedInAdmin(t);

    // 30 chats, every vertical, every fifth made to fail, 3 to 12 completion tokens each.
    chats = [];
    for (let batch = 0; batch < 6; batch += 1) {
      const sent = await Promise.all(
        Array.from({ length: 5 }, (_, k) => {
          const i = batch * 5 + k;
          return sendChat(t, mock, i, VERTICALS[i % VERTICALS.length], i % 5 === 3, 3 + ((i * 7) % 10));
        }),
      );
      chats.push(...sent);
    }
    const repo = t.dataSource.getRepository(UsageEvent);
    events = await eventually(
      async () => {
        const rows = await repo.find();
        return rows.length >= 30 ? rows : undefined;
      },
      10000,
      '30 usage events',
    );

    const registry = t.app.get(AgentRegistryService, { strict: false });
    const names = new Map((await registry.list()).map((a) => [a.agentId, a.agentName]));
    agentOf = new Map();
    for (const chat of chats) if (chat.reply) agentOf.set(chat.vertical, { id: chat.reply.agentsInvolved[0], name: names.get(chat.reply.agentsInvolved[0])! });
  }, 120000);

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const successLatencies = (filter: (e: UsageEvent) => boolean = () => true) => events.filter((e) => e.status === 'success' && filter(e)).map((e) => e.latencyMs);

  function expectSystemFigures(system: SystemAnalytics) {
    expect(system.totalRequests).toBe(30);
    expect(system.totalErrors).toBe(6);
    expect(system.totalTokensUsed).toBe(sum(chats, (c) => c.promptTokens + c.completionTokens));
    expect(system.promptTokens).toBe(sum(chats, (c) => c.promptTokens));
    expect(system.totalCost).toBeGreaterThan(0);
    expect(system.totalCost).toBeCloseTo(sum(chats, (c) => c.cost), 6);
    expect(system.requestsByVertical).toEqual(Object.fromEntries(VERTICALS.map((v) => [v, chats.filter((c) => c.vertical === v).length])));
    expect(sum(system.hourly, (h) => h.requests)).toBe(30);
    expect(sum(system.hourly, (h) => h.errors)).toBe(6);
    expect(sum(system.hourly, (h) => h.tokens)).toBe(system.totalTokensUsed);
    expect(sum(system.hourly, (h) => h.cost)).toBeCloseTo(system.totalCost, 6);
    const failed = chats.filter((c) => c.fails);
    expect(system.recentErrors).toHaveLength(failed.length);
    for (const error of system.recentErrors) {
      const agent = [...agentOf.values()].find((a) => a.id === error.agentId)!;
      expect(error.agent).toBe(agent.name);
      expect(error.error).toMatch(/AI provider/i);
      expect(Date.parse(error.timestamp)).not.toBeNaN();
    }
    const times = system.recentErrors.map((e) => Date.parse(e.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  }

  function expectAgentFigures(rows: AgentPerformanceRow[]) {
    expect(rows).toHaveLength(VERTICALS.length);
    for (const vertical of VERTICALS) {
      const agent = agentOf.get(vertical)!;
      const mine = chats.filter((c) => c.vertical === vertical);
      const row = rows.find((r) => r.agentId === agent.id)!;
      expect(row).toBeDefined();
      expect(row.agentName).toBe(agent.name);
      expect(row.totalRequests).toBe(mine.length);
      expect(row.errorRate).toBeCloseTo(mine.filter((c) => c.fails).length / mine.length, 10);
      expect(row.totalTokensUsed).toBe(sum(mine, (c) => c.promptTokens + c.completionTokens));
      expect(row.totalCost).toBeCloseTo(sum(mine, (c) => c.cost), 6);
      expect(row.averageResponseTime).toBeCloseTo(mean(successLatencies((e) => e.agentId === agent.id)), 1);
    }
  }

  function expectCostFigures(rows: ModelCostRow[]) {
    expect(rows).toEqual([
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        requestCount: 30,
        totalCost: expect.any(Number),
        totalTokens: sum(chats, (c) => c.promptTokens + c.completionTokens),
      },
    ]);
    expect(rows[0].totalCost).toBeCloseTo(sum(chats, (c) => c.cost), 6);
  }

  function expectPerformanceFigures(performance: PerformanceAnalytics) {
    const latencies = successLatencies();
    const ttfts = events.filter((e) => e.status === 'success' && e.ttftMs !== null).map((e) => e.ttftMs!);
    expect(performance.summary.totalRequests).toBe(30);
    expect(performance.summary.successfulRequests).toBe(24);
    expect(performance.summary.errorRate).toBeCloseTo(0.2, 10);
    expect(performance.summary.averageResponseTime).toBeCloseTo(mean(latencies), 1);
    expectPercentile(performance.summary.p50ResponseTime, nearestRank(latencies, 50));
    expectPercentile(performance.summary.p95ResponseTime, nearestRank(latencies, 95));
    expect(performance.summary.averageTimeToFirstToken).toBeCloseTo(mean(ttfts), 1);
    expectPercentile(performance.summary.p50TimeToFirstToken, nearestRank(ttfts, 50));
    expectPercentile(performance.summary.p95TimeToFirstToken, nearestRank(ttfts, 95));
    expect(sum(performance.hourly, (h) => h.requests)).toBe(30);
    expect(sum(performance.hourly, (h) => h.successfulRequests)).toBe(24);
  }

  async function allFigures(hours = 24) {
    return {
      system: await getData<SystemAnalytics>(admin, `/api/analytics/system?hours=${hours}`),
      agents: await getData<AgentPerformanceRow[]>(admin, `/api/analytics/agents?hours=${hours}`),
      costs: await getData<ModelCostRow[]>(admin, `/api/analytics/costs?hours=${hours}`),
      performance: await getData<PerformanceAnalytics>(admin, `/api/analytics/performance?hours=${hours}`),
    };
  }

  it('recorded one usage event per chat, tagged with the request id the test sent', () => {
    expect(events.map((e) => e.requestId).sort()).toEqual(chats.map((c) => c.requestId).sort());
    for (const chat of chats.filter((c) => c.reply)) {
      expect(chat.reply!.replyId).toBe(events.find((e) => e.requestId === chat.requestId)!.id);
      expect(chat.reply!.usage).toMatchObject({ promptTokens: chat.promptTokens, completionTokens: chat.completionTokens });
    }
  });

  it.each([1, 24, 168, 720])('system, agents, costs and performance (%i h) equal what the test sent', async (hours) => {
    const figures = await allFigures(hours);
    expect(figures.system.hours).toBe(hours);
    expect(figures.system.hourly.length).toBeGreaterThanOrEqual(hours);
    expectSystemFigures(figures.system);
    expectAgentFigures(figures.agents);
    expectCostFigures(figures.costs);
    expectPerformanceFigures(figures.performance);
  });

  it('agents?agentId= returns just that agent', async () => {
    const agent = agentOf.get('hr')!;
    const rows = await getData<AgentPerformanceRow[]>(admin, `/api/analytics/agents?agentId=${encodeURIComponent(agent.id)}`);
    expect(rows.map((r) => r.agentId)).toEqual([agent.id]);
    expect(rows[0].totalRequests).toBe(chats.filter((c) => c.vertical === 'hr').length);
    expect(await getData(admin, '/api/analytics/agents?agentId=no-such-agent')).toEqual([]);
  });

  it('refuses any other window, format or a repeated parameter with 400, and strangers with 401', async () => {
    for (const path of ['system?hours=2', 'agents?hours=0', 'costs?hours=abc', 'performance?hours=24.5', 'export?hours=48', 'export?format=xml', 'system?hours=1&hours=24']) {
      const res = await admin.get(`/api/analytics/${path}`).expect(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'validation_failed' } });
    }
    for (const path of ['system', 'agents', 'costs', 'performance', 'export?format=csv']) await request(t.url).get(`/api/analytics/${path}`).expect(401);
  });

  it('exports every event of the window as CSV (header + one row per event) and as JSON, as a download', async () => {
    const csv = await admin.get('/api/analytics/export?format=csv&hours=24').buffer(true).parse(textBody).expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="usage-events-24h-\d{8}-\d{4}\.csv"$/);
    const lines = (csv.body as string).split('\r\n').filter((l) => l !== '');
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + 30);
    const requestIdColumn = EXPORT_COLUMNS.indexOf('requestId');
    expect(lines.slice(1).map((l) => l.split(',')[requestIdColumn]).sort()).toEqual(chats.map((c) => c.requestId).sort());

    const json = await admin.get('/api/analytics/export?hours=24').buffer(true).parse(textBody).expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.headers['content-disposition']).toMatch(/filename="usage-events-24h-.*\.json"/);
    const rows = JSON.parse(json.body as string) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(30);
    expect(sum(rows, (r) => Number(r.totalTokens))).toBe(sum(chats, (c) => c.promptTokens + c.completionTokens));
    expect(rows.filter((r) => r.status === 'error')).toHaveLength(6);
    const times = rows.map((r) => Date.parse(String(r.timestamp)));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  describe('hourly rollups', () => {
    const clockShift = 3 * HOUR;

    beforeAll(() => {
      // Three hours later: the chats' hour is complete and final, so the rollup job takes it.
      const clock = t.app.get(AnalyticsClock, { strict: false });
      clock.now = () => Date.now() + clockShift;
    });

    async function rollupRows() {
      return t.dataSource.query('SELECT * FROM usage_hourly ORDER BY hour_start, agent_id, vertical, provider, model');
    }

    it('rolls the hour up; the endpoints then read the rollups and give the same figures', async () => {
      const rollup = t.app.get(UsageRollupService, { strict: false });
      const result = await rollup.run();
      expect(result.hours).toBeGreaterThanOrEqual(1);
      const rows = await rollupRows();
      expect(sum(rows, (r: Record<string, unknown>) => Number(r.requests))).toBe(30);
      expect(sum(rows, (r: Record<string, unknown>) => Number(r.errors))).toBe(6);

      const analytics = t.app.get(AnalyticsService, { strict: false });
      const plan = await analytics.plan(24);
      expect(plan.segments.map((s) => s.source)).toContain('rollup');
      const figures = await allFigures(24);
      expectSystemFigures(figures.system);
      expectAgentFigures(figures.agents);
      expectCostFigures(figures.costs);
      expectPerformanceFigures(figures.performance);
      // And exactly what aggregating every raw event gives.
      expect(figures.system).toEqual(await analytics.system(24, { useRollups: false, now: Date.parse(figures.system.to) }));
      expect(figures.performance.summary).toEqual((await analytics.performance(24, { useRollups: false })).summary);
    });

    it('is idempotent: running the job again and recomputing the hour gives the same rows and figures', async () => {
      const rollup = t.app.get(UsageRollupService, { strict: false });
      const before = await rollupRows();
      const figures = await allFigures(168);
      await rollup.run();
      const hour = Math.floor(events[0].createdAt / HOUR) * HOUR;
      await rollup.recompute(hour, hour + HOUR);
      await Promise.all([rollup.recompute(hour, hour + HOUR), rollup.recompute(hour - HOUR, hour + 2 * HOUR)]);
      expect(await rollupRows()).toEqual(before);
      const again = await allFigures(168);
      expect({ ...again.system, to: '', from: '' }).toEqual({ ...figures.system, to: '', from: '' });
      expect(again.agents).toEqual(figures.agents);
      expect(again.costs).toEqual(figures.costs);
      expect(again.performance.summary).toEqual(figures.performance.summary);
    });

    it('re-rolls an hour that gets an event after it was finalised', async () => {
      // In the moved clock this chat's hour is already final: its event must re-roll the hour.
      const late = await sendChat(t, mock, 99, 'sales', false, 5);
      await eventually(
        async () => {
          const rows = await rollupRows();
          return sum(rows, (r: Record<string, unknown>) => Number(r.requests)) === 31;
        },
        10000,
        'the late event in the rollups',
      );
      const system = await getData<SystemAnalytics>(admin, '/api/analytics/system?hours=24');
      expect(system.totalRequests).toBe(31);
      expect(system.totalTokensUsed).toBe(sum([...chats, late], (c) => c.promptTokens + c.completionTokens));
      chats.push(late);
      events = await t.dataSource.getRepository(UsageEvent).find();
    });

    afterAll(() => {
      const clock = t.app.get(AnalyticsClock, { strict: false });
      clock.now = () => Date.now();
    });
  });

  describe('reply feedback', () => {
    it('records one changeable vote per reply and shows it in the agent\'s Helpful rate', async () => {
      const hrChats = chats.filter((c) => c.vertical === 'hr' && c.reply);
      const hrReplies = hrChats.map((c) => c.reply!.replyId!);
      const visitorOf = new Map(hrChats.map((c) => [c.reply!.replyId!, c.visitor!]));
      const agent = agentOf.get('hr')!;
      const helpful = async () => (await getData<AgentPerformanceRow[]>(admin, `/api/analytics/agents?agentId=${agent.id}`))[0];
      expect(await helpful()).toMatchObject({ helpfulRate: null, feedback: { up: 0, down: 0 } });

      const vote = (replyId: string, v: 'up' | 'down' | null) => request(t.url).post('/api/feedback').set('Cookie', visitorOf.get(replyId)!).send({ replyId, vote: v });
      expect((await vote(hrReplies[0], 'down').expect(200)).body).toEqual({ success: true, data: { replyId: hrReplies[0], vote: 'down' } });
      expect(await helpful()).toMatchObject({ helpfulRate: 0, feedback: { up: 0, down: 1 } });

      await vote(hrReplies[0], 'up').expect(200);
      expect(await helpful()).toMatchObject({ helpfulRate: 1, feedback: { up: 1, down: 0 } });

      await vote(hrReplies[1], 'down').expect(200);
      await vote(hrReplies[1], 'down').expect(200);
      expect(await helpful()).toMatchObject({ helpfulRate: 0.5, feedback: { up: 1, down: 1 } });

      await vote(hrReplies[0], null).expect(200);
      expect(await helpful()).toMatchObject({ helpfulRate: 0, feedback: { up: 0, down: 1 } });

      // Other agents are untouched; the export carries the vote.
      const others = (await getData<AgentPerformanceRow[]>(admin, '/api/analytics/agents')).filter((r) => r.agentId !== agent.id);
      expect(others.every((r) => r.helpfulRate === null)).toBe(true);
      const rows = JSON.parse((await admin.get('/api/analytics/export').buffer(true).parse(textBody)).body as string) as Array<Record<string, unknown>>;
      expect(rows.find((r) => r.id === hrReplies[1])!.feedback).toBe('down');
    });

    it('refuses a malformed vote with 400, an unknown reply with 404, and a cross-site post with 403', async () => {
      await request(t.url).post('/api/feedback').send({ replyId: 'nope', vote: 'up' }).expect(400);
      await request(t.url).post('/api/feedback').send({ replyId: chats.find((c) => c.reply)!.reply!.replyId, vote: 'meh' }).expect(400);
      const visitor = chats.find((c) => c.reply)!.visitor!;
      const res = await request(t.url).post('/api/feedback').set('Cookie', visitor).send({ replyId: '00000000-0000-4000-8000-000000000000', vote: 'up' }).expect(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'not_found' } });
      await request(t.url)
        .post('/api/feedback')
        .set('Origin', 'https://evil.example')
        .send({ replyId: chats.find((c) => c.reply)!.reply!.replyId, vote: 'up' })
        .expect(403);
    });
  });

  describe('live updates on the /admin namespace', () => {
    it('pushes analytics:update while chats flow, at most once a second, and nothing when idle', async () => {
      const socket = await connectAdminSocket(t.url, cookieHeader(admin));
      const updates: Array<{ at: number; payload: AnalyticsUpdate }> = [];
      socket.on('analytics:update', (payload) => updates.push({ at: Date.now(), payload: payload as AnalyticsUpdate }));
      try {
        const before = (await getData<SystemAnalytics>(admin, '/api/analytics/system?hours=1')).totalRequests;
        const started = Date.now();
        let sent = 0;
        while (Date.now() - started < 3200) {
          await Promise.all([0, 1].map((k) => sendChat(t, mock, 200 + sent + k, VERTICALS[(sent + k) % 4], false, 3)));
          sent += 2;
          await new Promise((r) => setTimeout(r, 100));
        }
        await eventually(() => sum(updates, (u) => u.payload.events) === sent, 5000, `updates announcing ${sent} events`);
        expect(updates.length).toBeGreaterThanOrEqual(3);
        // Spacing by the servers' push times (what the throttle controls; delivery may bunch up on a busy machine).
        const pushedAt = updates.map((u) => Date.parse(u.payload.at));
        for (let i = 1; i < pushedAt.length; i += 1) expect(pushedAt[i] - pushedAt[i - 1]).toBeGreaterThanOrEqual(950);
        // Each push means new data is there to read.
        expect((await getData<SystemAnalytics>(admin, '/api/analytics/system?hours=1')).totalRequests).toBe(before + sent);

        const count = updates.length;
        await new Promise((r) => setTimeout(r, 2000));
        expect(updates.length).toBe(count);
      } finally {
        socket.close();
      }
    });

    it('refuses the /admin namespace without a session', async () => {
      await expect(connectAdminSocket(t.url, '')).rejects.toThrow(/Not authenticated/);
    });
  });
});

describe('usage export of a large window', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({ adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, seedSampleKnowledge: false });
    admin = await signedInAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('streams every event, page after page, even when many share a millisecond; CSV fields are escaped', async () => {
    const recorder = t.app.get(UsageRecorderService, { strict: false });
    const base = Date.now() - 3 * HOUR;
    const total = 4321;
    for (let i = 0; i < total; i += 1) {
      recorder.record({
        createdAt: base + Math.floor(i / 700) * 1000, // 700 events per millisecond stamp
        requestId: `bulk-${i}`,
        agentId: 'hr-agent',
        vertical: 'hr',
        provider: 'openai',
        model: 'gpt-4o-mini',
        channel: 'rest',
        status: i === 7 ? 'error' : 'success',
        errorCode: i === 7 ? 'provider_error' : null,
        errorMessage: i === 7 ? '=HYPERLINK("http://x"), said "no"\nthen left' : null,
        promptTokens: 10,
        completionTokens: i % 5,
        costUsd: 0.000001,
        latencyMs: 100 + (i % 50),
        ttftMs: 20,
        language: 'en',
      });
    }
    await recorder.flush();

    const csv = (await admin.get('/api/analytics/export?format=csv&hours=24').buffer(true).parse(textBody).expect(200)).body as string;
    expect(csv).toContain(`,"'=HYPERLINK(""http://x""), said ""no""\nthen left",`);
    const rows = csv.replace(/"[^"]*(?:""[^"]*)*"/g, 'Q').split('\r\n').filter((l) => l !== '');
    expect(rows).toHaveLength(1 + total);
    const json = JSON.parse((await admin.get('/api/analytics/export?format=json&hours=24').buffer(true).parse(textBody).expect(200)).body as string) as Array<{ requestId: string }>;
    expect(json).toHaveLength(total);
    expect(new Set(json.map((r) => r.requestId)).size).toBe(total);
    // These events are three hours old: their hour was already rolled up (empty), so it is
    // rolled up again a moment after they are written.
    const system = await eventually(
      async () => {
        const data = (await admin.get('/api/analytics/system?hours=24').expect(200)).body.data as SystemAnalytics;
        return data.totalRequests === total ? data : undefined;
      },
      10000,
      'the late hour rolled up again',
    );
    expect(system.totalTokensUsed).toBe(total * 10 + sum(Array.from({ length: total }, (_, i) => i % 5), (n) => n));
  });
});

describe('reply feedback rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers 429 with Retry-After after 60 votes a minute from one address', async () => {
    const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
    const replyId = (res.body.data as ReplyData).replyId!;
    const visitor = visitorCookieOf(res.headers['set-cookie'])!;
    for (let i = 0; i < 60; i += 1) await request(t.url).post('/api/feedback').set('Cookie', visitor).send({ replyId, vote: i % 2 ? 'up' : 'down' }).expect(200);
    const refused = await request(t.url).post('/api/feedback').set('Cookie', visitor).send({ replyId, vote: 'up' }).expect(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'rate_limited' } });
  });
});

function textBody(res: request.Response, callback: (error: Error | null, body: string) => void) {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  res.on('end', () => callback(null, body));
}
