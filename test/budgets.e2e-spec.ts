/**
 * Monthly budgets with the mock provider and the price table: a small cap is reached and
 * each cap behaviour happens (refused in the visitor's language on REST, SSE and the socket, or
 * answered by the offline responder); the soft alert mail goes to every admin once; per vertical
 * and per agent budgets; tokens per visitor per day; a controlled clock rolls the month over and
 * the budget starts again. The distributed case (two servers on one Redis and Postgres, 50 chats at
 * once) measures the overspend past a cap.
 */
import request from 'supertest';
import { AgentConfigService } from '../src/agents/agent-config.service';
import { AgentRegistryService } from '../src/agents/agent-registry.service';
import { LimitsClock } from '../src/limits/limits-clock';
import { budgetExhaustedMessage, LIMIT_MESSAGE_LANGUAGES, visitorQuotaMessage } from '../src/limits/limit-messages';
import type { BudgetInput } from '../src/shared/contracts/limits';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, connectClient, distributed, eventually, newVisitorCookie, parseSse, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { dropPostgresSchema } from '../src/database/data-source';
import { describeWith, NEEDS } from './support/requirements';

const ADMIN = { email: 'owner@example.com', password: 'a long enough password' };

async function setBudgets(admin: AdminAgent, list: BudgetInput[], visitorDailyTokens: number | null = null): Promise<void> {
  await admin.put('/api/config/global').send({ budgets: { list, visitorDailyTokens } }).expect(200);
}

async function overview(admin: AdminAgent) {
  return (await admin.get('/api/budgets').expect(200)).body.data;
}

function ask(t: TestApp, vertical = 'customer-service', extra: Record<string, unknown> = {}) {
  return request(t.url).post('/interact').send({ vertical, query: 'How do I reset my password? [mock:tokens=20]', ...extra });
}

async function budgetMails(t: TestApp): Promise<{ to_address: string; subject: string; status: string }[]> {
  return t.dataSource.query("SELECT to_address, subject, status FROM mail_outbox WHERE kind = 'budget-alert' ORDER BY to_address, subject");
}

describe('monthly budgets (one server)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;
  /** What one reply costs here (measured, not assumed). */
  let replyCost: number;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 20 });
    t = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl, adminEmail: ADMIN.email, adminPassword: ADMIN.password });
    admin = await adminAgent(t);
    // Replies of at most 30 tokens (the mock writes 20): a reply's worst case, which it holds
    // before the call, is then near what it costs, so a cap of a few replies lets a few through.
    await admin.put('/api/config/global').send({ maxResponseLength: 30 }).expect(200);
    const res = await ask(t).expect(200);
    replyCost = res.body.data.usage.costUsd;
    expect(res.body.data.usage.provider).toBe('openai');
    expect(replyCost).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  beforeEach(async () => {
    await setBudgets(admin, []);
    t.app.get(LimitsClock).now = () => Date.now();
  });

  it('has the refusal in each of the 11 offered languages', () => {
    expect(LIMIT_MESSAGE_LANGUAGES.sort()).toEqual(['ar', 'de', 'en', 'es', 'fr', 'hi', 'it', 'ja', 'ko', 'pt', 'zh']);
    expect(budgetExhaustedMessage('en')).toMatch(/^The assistant has reached its limit for this month/);
    expect(new Set(LIMIT_MESSAGE_LANGUAGES.map(budgetExhaustedMessage)).size).toBe(11);
    expect(new Set(LIMIT_MESSAGE_LANGUAGES.map(visitorQuotaMessage)).size).toBe(11);
  });

  it('refuses at a small global cap (REST 503, SSE and socket chat:error, in the visitor language), never spending past it; one soft and one cap alert mail per admin', async () => {
    const before = (await overview(admin)).spendByScope.global ?? 0;
    // Room for about three replies' worth past what was spent, soft threshold at half of it.
    const cap = before + replyCost * 3;
    await setBudgets(admin, [{ scope: 'global', monthlyUsd: cap, softPercent: Math.max(1, Math.floor((100 * (before + replyCost)) / cap)), onCap: 'refuse' }]);
    const statuses: number[] = [];
    let refused: request.Response | undefined;
    for (let i = 0; i < 20 && !refused; i += 1) {
      const res = await ask(t);
      statuses.push(res.status);
      if (res.status !== 200) refused = res;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.body.error).toEqual({ code: 'budget_exhausted', message: budgetExhaustedMessage('en') });
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const requestsBefore = mock.requests.length;

    // In the visitor's language, on every channel; the provider is not called.
    const es = await ask(t, 'customer-service', { preferredLanguage: 'Spanish' });
    expect(es.status).toBe(503);
    expect(es.body.error.message).toBe(budgetExhaustedMessage('es'));
    // A question in Spanish would be rewritten into English first: at the cap, that call is not made either.
    const spanish = await ask(t, 'customer-service', { query: '¿Cómo puedo obtener un reembolso de mi pedido?', preferredLanguage: 'Spanish' });
    expect(spanish.status).toBe(503);
    expect(spanish.body.error.message).toBe(budgetExhaustedMessage('es'));
    const sse = await ask(t, 'customer-service', { preferredLanguage: 'Japanese' }).set('Accept', 'text/event-stream');
    const frames = parseSse(sse.text);
    expect(frames.at(-1)).toMatchObject({ event: 'chat:error', data: { code: 'budget_exhausted', message: budgetExhaustedMessage('ja') } });
    const socket = await connectClient(t.url);
    try {
      const viaSocket = await chatOverSocket(socket, { vertical: 'customer-service', query: 'Where is my order?', preferredLanguage: 'Arabic' });
      expect(viaSocket.error).toEqual({ code: 'budget_exhausted', message: budgetExhaustedMessage('ar') });
    } finally {
      socket.close();
    }
    expect(mock.requests.length).toBe(requestsBefore);

    const o = await overview(admin);
    expect(o.budgets[0]).toMatchObject({ scope: 'global', label: 'All chats', monthlyUsd: cap });
    // Held worst cases, not hopes: the spend never passed the cap.
    expect(o.budgets[0].spentUsd).toBeLessThanOrEqual(cap);
    expect(o.budgets[0].heldUsd).toBe(0);
    expect(['soft', 'capped']).toContain(o.budgets[0].state);
    expect(o.budgets[0].forecastUsd).toBeGreaterThanOrEqual(o.budgets[0].spentUsd);
    // The soft alert (and the cap alert) once each, to both admins, whatever more was refused.
    await eventually(async () => (await budgetMails(t)).length === 4, 5000, `the alert mails (${JSON.stringify(await budgetMails(t))} ${JSON.stringify(await t.dataSource.query("SELECT * FROM budget_alerts"))})`);
    for (let i = 0; i < 3; i += 1) await ask(t);
    const mails = await budgetMails(t);
    expect(mails.map((m) => m.to_address).sort()).toEqual([ADMIN.email, ADMIN.email, 'test-admin@example.com', 'test-admin@example.com']);
    expect(mails.filter((m) => /reached its cap/.test(m.subject))).toHaveLength(2);
    expect(mails.filter((m) => /at \d+%/.test(m.subject))).toHaveLength(2);
    expect(o.alerts.map((a: { threshold: string }) => a.threshold).sort()).toEqual(['cap', 'soft']);
    // Sent by the outbox job.
    await eventually(async () => (await budgetMails(t)).every((m) => m.status === 'sent'), 10_000, 'the alert mails to be sent');

    // Refused requests are counted in Analytics.
    const system = (await admin.get('/api/analytics/system?hours=1').expect(200)).body.data;
    expect(system.limitedRequests.byRule.budget).toBeGreaterThanOrEqual(4);
  });

  it('a burst whose holds fill the cap raises no alert; the cap alert comes once, when what was spent reaches it', async () => {
    // A month of its own (controlled clock), so the alerts of the other tests do not count.
    const d = new Date();
    const later = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 3, 10);
    const month = new Date(later).toISOString().slice(0, 7);
    t.app.get(LimitsClock).now = () => later;
    const query = 'How do I reset my password? [mock:tokens=20;first-delay=2000]';
    const probe = await ask(t, 'customer-service', { query }).expect(200);
    const cost: number = probe.body.data.usage.costUsd;
    const before: number = (await overview(admin)).spendByScope.global;
    // Room for about 14 replies; each holds its worst case (up to about twice what it costs) while it runs.
    const cap = before + cost * 14;
    await setBudgets(admin, [{ scope: 'global', monthlyUsd: cap, softPercent: 100, onCap: 'refuse' }]);
    const capAlerts = async () => ({
      rows: (await t.dataSource.query(`SELECT spent_usd FROM budget_alerts WHERE month = '${month}' AND threshold = 'cap'`)) as { spent_usd: number }[],
      mails: (await budgetMails(t)).filter((m) => m.subject.includes(`reached its cap for ${month}`)),
    });

    // 20 chats at once: their holds fill the budget, so some are refused, but nothing was spent near the cap.
    const burst = await Promise.all(Array.from({ length: 20 }, () => ask(t, 'customer-service', { query })));
    const refused = burst.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.body.error.code === 'budget_exhausted')).toBe(true);
    const answered = burst.filter((r) => r.status === 200).length;
    expect(answered).toBeGreaterThan(0);
    const afterBurst = await overview(admin);
    expect(afterBurst.budgets[0].spentUsd + cost * 3).toBeLessThan(cap);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await capAlerts()).toEqual({ rows: [], mails: [] });
    expect(afterBurst.alerts).toEqual([]);

    // One at a time until what was spent leaves no room for another reply: then the cap alert, once.
    let last: request.Response | undefined;
    for (let i = 0; i < 20; i += 1) {
      last = await ask(t, 'customer-service', { query });
      if (last.status !== 200) break;
    }
    expect(last?.status).toBe(503);
    const spent: number = (await overview(admin)).budgets[0].spentUsd;
    const raised = await eventually(async () => {
      const found = await capAlerts();
      return found.mails.length === 2 ? found : undefined;
    }, 5000, 'the cap alert mails');
    expect(raised.rows).toHaveLength(1);
    expect(Number(raised.rows[0].spent_usd)).toBeCloseTo(spent, 8);
    expect(spent).toBeGreaterThan(cap - cost * 3);
    for (let i = 0; i < 3; i += 1) expect((await ask(t, 'customer-service', { query })).status).toBe(503);
    expect((await capAlerts()).mails).toHaveLength(2);
  });

  it('answers with the offline knowledge responder at a cap whose behaviour is "offline"', async () => {
    await setBudgets(admin, [{ scope: 'global', monthlyUsd: 0, onCap: 'offline' }]);
    const requestsBefore = mock.requests.length;
    const res = await ask(t).expect(200);
    expect(res.body.data.usage).toMatchObject({ provider: 'local', costUsd: 0 });
    expect(res.body.data.agentsInvolved).toEqual(['local-responder']);
    expect(res.body.data.response.length).toBeGreaterThan(0);
    expect(mock.requests.length).toBe(requestsBefore);
  });

  it('caps per vertical and per agent without touching the others', async () => {
    await setBudgets(admin, [{ scope: 'vertical:hr', monthlyUsd: 0 }]);
    expect((await ask(t, 'hr')).status).toBe(503);
    expect((await ask(t, 'sales')).status).toBe(200);
    await setBudgets(admin, [{ scope: 'agent:sales-agent', monthlyUsd: 0, onCap: 'refuse' }]);
    expect((await ask(t, 'sales')).status).toBe(503);
    expect((await ask(t, 'hr')).status).toBe(200);
    const o = await overview(admin);
    expect(o.budgets).toEqual([expect.objectContaining({ scope: 'agent:sales-agent', label: 'sales-agent', state: 'capped' })]);
    expect(o.spendByScope['vertical:hr']).toBeGreaterThan(0);
    expect(o.spendByScope['agent:hr-agent']).toBeGreaterThan(0);
  });

  it('refuses a budget for an agent that does not exist, and a limit out of range, with clear 400s; nothing is saved', async () => {
    await setBudgets(admin, [{ scope: 'vertical:hr', monthlyUsd: 5 }]);
    const unknown = await admin.put('/api/config/global').send({ budgets: { list: [{ scope: 'agent:no-such-agent', monthlyUsd: 5 }] } }).expect(400);
    expect(unknown.body.error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('"agent:no-such-agent" names no agent') });
    const tooMuch = await admin.put('/api/config/global').send({ budgets: { list: [{ scope: 'global', monthlyUsd: 10_000_001 }] } }).expect(400);
    expect(tooMuch.body.error.message).toBe('Monthly limit (USD) must be between 0 and 10,000,000');
    expect((await overview(admin)).budgets).toEqual([expect.objectContaining({ scope: 'vertical:hr' })]);
    // An agent's budget kept after the agent is deleted does not block saving the others.
    await admin.post('/api/config/agents').send({ agentId: 'temp-agent', agentName: 'Temp', vertical: 'sales', llmConfig: { provider: 'local' } }).expect(201);
    await setBudgets(admin, [{ scope: 'agent:temp-agent', monthlyUsd: 1 }]);
    await admin.delete('/api/config/agents/temp-agent').expect(200);
    await setBudgets(admin, [{ scope: 'agent:temp-agent', monthlyUsd: 1 }, { scope: 'global', monthlyUsd: 50 }]);
  });

  it('limits the tokens per visitor per day (429 quota_exhausted until midnight UTC); another visitor is not affected', async () => {
    await setBudgets(admin, [], 10);
    const cookie = await newVisitorCookie(t.url);
    expect((await ask(t).set('Cookie', cookie)).status).toBe(200);
    const res = await ask(t, 'customer-service', { preferredLanguage: 'German' }).set('Cookie', cookie);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'quota_exhausted', message: visitorQuotaMessage('de') });
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect((await ask(t).set('Cookie', await newVisitorCookie(t.url))).status).toBe(200);
  });

  it('starts again when the month rolls over (controlled clock)', async () => {
    await setBudgets(admin, [{ scope: 'global', monthlyUsd: replyCost / 2, onCap: 'refuse' }]);
    // Spend this month is already past a cap that small.
    expect((await ask(t)).status).toBe(503);
    const now = Date.now();
    const d = new Date(now);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 0, 0, 5);
    t.app.get(LimitsClock).now = () => nextMonth;
    const o = await overview(admin);
    expect(o.month).toBe(new Date(nextMonth).toISOString().slice(0, 7));
    expect(o.budgets[0]).toMatchObject({ spentUsd: 0, state: 'ok' });
    // A worst case above the tiny cap is still refused; raise it to one reply's worst case and it is answered.
    await setBudgets(admin, [{ scope: 'global', monthlyUsd: replyCost * 5, onCap: 'refuse' }]);
    expect((await ask(t)).status).toBe(200);
    expect((await overview(admin)).budgets[0].spentUsd).toBeGreaterThan(0);
    expect(t.app.get(AgentRegistryService).globalSettings().budgets.list).toHaveLength(1);
  });
});

// Two servers sharing Redis and Postgres: only in distributed mode (.ci/run sets both).
const describeShared = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl, NEEDS.databaseUrl], name, fn);

describeShared('monthly budgets on two servers (one Redis, one Postgres)', () => {
  it('share the spend: under 50 concurrent chats the overspend past a cap is at most one reply per server', async () => {
    const mock = await startMockLlmServer({ tokens: 20, delayMs: 5 });
    const schema = uniqueSchema();
    const common = { openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl, databaseSchema: schema };
    const a = await startTestApp(common);
    await a.app.get(AgentConfigService).updateGlobal({ maxResponseLength: 30 });
    // The same data directory (server secret: the agents' encrypted key) and Redis prefix.
    const b = await startTestApp({ ...common, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    try {
      const admin = await adminAgent(a);
      const probe = await ask(a).expect(200);
      const replyCost: number = probe.body.data.usage.costUsd;
      const spentBefore: number = (await overview(admin)).spendByScope.global;
      const cap = spentBefore + replyCost * 40;
      await setBudgets(admin, [{ scope: 'global', monthlyUsd: cap, onCap: 'refuse' }]);
      await eventually(() => b.app.get(AgentRegistryService).globalSettings().budgets.list.length === 1, 5000, 'server b to see the budget');
      // Rounds of 50 chats at once (25 on each server) until a round gets no answer at all.
      const rounds: { answered: number; refused: number }[] = [];
      const costs: number[] = [];
      for (let round = 0; round < 8; round += 1) {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => ask(i % 2 === 0 ? a : b, 'customer-service', { query: `Question ${round}-${i}? [mock:tokens=20;delay=10]` })),
        );
        const answered = results.filter((r) => r.status === 200);
        expect(results.every((r) => r.status === 200 || (r.status === 503 && r.body.error.code === 'budget_exhausted'))).toBe(true);
        costs.push(...answered.map((r) => r.body.data.usage.costUsd as number));
        rounds.push({ answered: answered.length, refused: results.length - answered.length });
        if (answered.length === 0) break;
      }
      const rows: { usd: string | number }[] = await a.dataSource.query('SELECT SUM(cost_usd) AS usd FROM usage_events');
      const spent = Number(rows[0].usd);
      const overspend = spent - cap;
      const largest = Math.max(...costs, replyCost);
      // The figure asked for by the issue, printed.
      console.log(
        `budgets on two servers: cap $${cap.toFixed(6)} (room for ~40 replies); rounds of 50 chats at once: ${rounds.map((r) => `${r.answered} answered/${r.refused} refused`).join(', ')}; ` +
          `spent $${spent.toFixed(6)} = ${((100 * spent) / cap).toFixed(1)}% of the cap; overspend $${Math.max(0, overspend).toFixed(6)} = ${(Math.max(0, overspend) / largest).toFixed(2)} replies (bound: 1 per server = 2)`,
      );
      expect(overspend).toBeLessThanOrEqual(largest * 2);
      expect(rounds.at(-1)!.answered).toBe(0);
      // Both servers report the same spend (the ledger is in Redis).
      const adminB = await adminAgent(b);
      const [oa, ob] = [await overview(admin), await overview(adminB)];
      expect(oa.spendByScope.global).toBeCloseTo(ob.spendByScope.global, 8);
      expect(oa.spendByScope.global).toBeCloseTo(spent, 6);
    } finally {
      await b.close({ keepData: true });
      await a.close();
      await dropPostgresSchema(distributed.databaseUrl!, schema);
      await mock.close();
    }
  });
});
