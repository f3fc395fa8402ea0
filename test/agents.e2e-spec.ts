/**
 * The Config API end to end: agents CRUD with masked keys,
 * validation errors, validate and export, the API key test against the mock vendor, and the
 * global settings taking effect on the next chat (vertical switches, analytics, debug logs,
 * temperature and response length).
 */
import { LIFTED_CHAT_LIMITS } from './support/lifted-limits';
import request from 'supertest';
import type { PublicSettings } from '../src/shared/contracts/config';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { UsageRecorderService } from '../src/analytics/usage-recorder.service';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, ClientSocket, connectClient, eventually, startTestApp, TestApp } from './support/test-app';

const GOOD_KEY = 'sk-good-key-0000000000001234';
const OTHER_GOOD_KEY = 'sk-ant-api03-other-key-000000005678';
const BAD_KEY = 'sk-bad-key-00000000000009999';

/**
 * The admin agent of test/support/admin-session.ts. Until that helper signs in by itself, this
 * signs the same agent in with a password admin made for the test.
 */
const signedInAdmin = adminAgent;

function expectEnvelope(res: request.Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code: code ?? expect.any(String), message: expect.any(String) }, requestId: expect.any(String) });
}

describe('Config API', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;
  let socket: ClientSocket;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 4, validKeys: [GOOD_KEY, OTHER_GOOD_KEY] });
    t = await startTestApp({ openaiApiKey: GOOD_KEY, openaiBaseUrl: mock.openaiBaseUrl, seedSampleKnowledge: false, apiKeyTestTimeoutMs: 1500 });
    admin = await signedInAdmin(t);
    socket = await connectClient(t.url);
  });

  afterEach(() => mock.reset());

  afterAll(async () => {
    socket?.close();
    await t?.close();
    await mock?.close();
  });

  it('needs an admin session', async () => {
    await request(t.url).get('/api/config').expect(401);
    await request(t.url).put('/api/config/global').send({ debugMode: true }).expect(401);
  });

  it('seeds the environment agents on first start: universal plus one per enabled vertical, keys masked', async () => {
    const res = await admin.get('/api/config').expect(200);
    expect(res.body.success).toBe(true);
    const agents = res.body.data.agents;
    expect(agents.map((a: { agentId: string }) => a.agentId)).toEqual(['universal-agent', 'customer-service-agent', 'hr-agent', 'legal-agent', 'sales-agent']);
    for (const agent of agents) {
      expect(agent).toMatchObject({ enabled: true, timeout: t.config.agentTimeoutMs, keyStatus: 'set' });
      // No temperature of their own (the global Response Temperature applies); max tokens at the global max response length.
      expect(agent.llmConfig).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-...1234', temperature: null, maxTokens: 500, baseUrl: mock.openaiBaseUrl });
      expect(agent.systemPrompt.length).toBeGreaterThan(20);
    }
    expect(res.body.data.global).toEqual({
      responseTemperature: 0.7,
      maxResponseLength: 500,
      defaultLanguage: 'en',
      verticals: { 'customer-service': true, hr: true, legal: true, sales: true },
      enableAnalytics: true,
      debugMode: false,
      conversationRetentionDays: 90,
      // The test app lifts the chat rate limits (test/support/lifted-limits.ts); no budgets by default.
      chatLimits: LIFTED_CHAT_LIMITS,
      budgets: { list: [], visitorDailyTokens: null },
      requireApiKey: false,
    });
    expect(JSON.stringify(res.body)).not.toContain(GOOD_KEY);
  });

  it('a fresh install validates clean: no error and no warning (seeded agents follow the global settings)', async () => {
    const res = await admin.get('/api/config/validate').expect(200);
    expect(res.body.data).toMatchObject({ valid: true, problems: [] });
  });

  it('creates, reads, updates and deletes an agent; an update without apiKey (or with the mask) keeps the key', async () => {
    const created = await admin
      .post('/api/config/agents')
      .send({ agentId: 'billing-agent', agentName: 'Billing Agent', vertical: 'customer-service', systemPrompt: 'You handle invoices.', llmConfig: { provider: 'anthropic', model: 'claude-haiku-4-5', apiKey: OTHER_GOOD_KEY, baseUrl: mock.anthropicBaseUrl } })
      .expect(201);
    expect(created.body.data).toMatchObject({
      agentId: 'billing-agent',
      enabled: true,
      timeout: 30000,
      keyStatus: 'set',
      llmConfig: { provider: 'anthropic', apiKey: 'sk-...5678', temperature: null, maxTokens: 2000 },
    });
    const read = await admin.get('/api/config/agents/billing-agent').expect(200);
    expect(read.body.data).toEqual(created.body.data);

    const renamed = await admin.put('/api/config/agents/billing-agent').send({ agentName: 'Invoices', enabled: false }).expect(200);
    expect(renamed.body.data).toMatchObject({ agentName: 'Invoices', enabled: false, keyStatus: 'set', llmConfig: { apiKey: 'sk-...5678' } });
    const sentBack = await admin.put('/api/config/agents/billing-agent').send({ ...renamed.body.data, agentName: 'Invoices 2' }).expect(200);
    expect(sentBack.body.data.llmConfig.apiKey).toBe('sk-...5678');

    const test = await admin.post('/api/config/test-api-key').send({ agentId: 'billing-agent' }).expect(200);
    expect(test.body.data.isValid).toBe(true);
    expect(mock.requests.at(-1)).toMatchObject({ vendor: 'anthropic', apiKey: OTHER_GOOD_KEY });

    const removedKey = await admin.put('/api/config/agents/billing-agent').send({ llmConfig: { apiKey: null } }).expect(200);
    expect(removedKey.body.data).toMatchObject({ keyStatus: 'missing', llmConfig: { apiKey: '' } });

    await admin.delete('/api/config/agents/billing-agent').expect(200);
    const gone = await admin.get('/api/config/agents/billing-agent');
    expectEnvelope(gone, 404, 'not_found');
    expectEnvelope(await admin.delete('/api/config/agents/billing-agent'), 404, 'not_found');
  });

  it.each([
    ['temperature 5', { llmConfig: { temperature: 5 } }, 400],
    ['max tokens -1', { llmConfig: { maxTokens: -1 } }, 400],
    ['an unknown provider', { llmConfig: { provider: 'skynet' } }, 400],
    ['an unknown vertical', { vertical: 'astrology' }, 400],
    ['a timeout of 0', { timeout: 0 }, 400],
    ['an endpoint that is not a URL', { llmConfig: { endpoint: 'not a url' } }, 400],
    ['an unknown field', { colour: 'blue' }, 400],
    ['a new agentId', { agentId: 'other-agent' }, 400],
  ])('PUT refuses %s with the error envelope', async (_name, body, status) => {
    expectEnvelope(await admin.put('/api/config/agents/hr-agent').send(body), status);
    const after = await admin.get('/api/config/agents/hr-agent').expect(200);
    expect(after.body.data.llmConfig).toMatchObject({ temperature: null, maxTokens: 500, provider: 'openai' });
  });

  it.each([
    ['a duplicate agentId', { agentId: 'hr-agent', agentName: 'HR two', vertical: 'hr', llmConfig: { provider: 'openai' } }, 409, 'conflict'],
    ['temperature 5', { agentId: 'x-agent', agentName: 'X', vertical: 'hr', llmConfig: { provider: 'openai', temperature: 5 } }, 400, 'validation_failed'],
    ['an unknown provider', { agentId: 'x-agent', agentName: 'X', vertical: 'hr', llmConfig: { provider: 'skynet' } }, 400, 'validation_failed'],
    ['an unknown vertical', { agentId: 'x-agent', agentName: 'X', vertical: 'future', llmConfig: { provider: 'openai' } }, 400, 'unknown_vertical'],
    ['an agentId that is not a slug', { agentId: 'X Agent!', agentName: 'X', vertical: 'hr', llmConfig: { provider: 'openai' } }, 400, 'validation_failed'],
    ['no provider', { agentId: 'x-agent', agentName: 'X', vertical: 'hr' }, 400, 'validation_failed'],
  ])('POST refuses %s with the error envelope', async (_name, body, status, code) => {
    expectEnvelope(await admin.post('/api/config/agents').send(body), status, code);
    expectEnvelope(await admin.get('/api/config/agents/x-agent'), 404, 'not_found');
  });

  it.each([
    ['temperature 5', { responseTemperature: 5 }],
    ['max response length -1', { maxResponseLength: -1 }],
    ['an unknown language', { defaultLanguage: 'tlh' }],
    ['an unknown vertical', { verticals: { astrology: false } }],
    ['a toggle that is not a boolean', { enableAnalytics: 'no' }],
    ['an unknown setting', { theme: 'dark' }],
  ])('PUT /api/config/global refuses %s with the error envelope', async (_name, body) => {
    expectEnvelope(await admin.put('/api/config/global').send(body), 400);
  });

  describe('changes take effect on the next chat', () => {
    afterEach(async () => {
      await admin.put('/api/config/global').send({ responseTemperature: 0.7, maxResponseLength: 500, verticals: { hr: true }, enableAnalytics: true, debugMode: false }).expect(200);
      await admin.put('/api/config/agents/hr-agent').send({ enabled: true, systemPrompt: 'You are an HR assistant.', llmConfig: { model: 'gpt-4o-mini', temperature: 0.7, maxTokens: 2000, apiKey: GOOD_KEY } }).expect(200);
    });

    it("a new model, prompt and temperature reach the vendor with the next message; max tokens are capped by the global max response length", async () => {
      await admin
        .put('/api/config/agents/hr-agent')
        .send({ systemPrompt: 'You are Zed, the people-team assistant of Acme.', llmConfig: { model: 'gpt-4.1-mini', temperature: 0.2, maxTokens: 300 } })
        .expect(200);
      const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
      expect(res.body.data.agentsInvolved).toEqual(['hr-agent']);
      const record = mock.requests.at(-1)!;
      expect(record).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0.2, maxTokens: 300, apiKey: GOOD_KEY });
      expect(String(record.messages![0].content)).toContain('You are Zed, the people-team assistant of Acme.');

      await admin.put('/api/config/global').send({ maxResponseLength: 120 }).expect(200);
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'And sick days?' }).expect(200);
      expect(mock.requests.at(-1)).toMatchObject({ maxTokens: 120 });
    });

    it('an agent without its own temperature uses the global response temperature', async () => {
      await admin.put('/api/config/agents/hr-agent').send({ llmConfig: { temperature: null } }).expect(200);
      await admin.put('/api/config/global').send({ responseTemperature: 0.3 }).expect(200);
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'What is the dress code?' }).expect(200);
      expect(mock.requests.at(-1)!.temperature).toBe(0.3);
    });

    it('a new key is used by the next message; a disabled agent hands the vertical to the universal agent', async () => {
      await admin.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: BAD_KEY } }).expect(200);
      const refused = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Who approves leave?' });
      expect(refused.status).toBe(502);
      expect(mock.requests.at(-1)!.apiKey).toBe(BAD_KEY);
      expect(JSON.stringify(refused.body)).not.toContain(BAD_KEY);

      await admin.put('/api/config/agents/hr-agent').send({ enabled: false }).expect(200);
      const viaUniversal = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Who approves leave?' }).expect(200);
      expect(viaUniversal.body.data.agentsInvolved).toEqual(['universal-agent']);
    });

    it('HR switched off: the public settings show it disabled, /interact and the socket refuse it with a 4xx; switched on again it works', async () => {
      const before = await request(t.url).get('/api/public/settings').expect(200);
      expect(before.body.data.enabledVerticals).toEqual(['customer-service', 'hr', 'legal', 'sales']);

      await admin.put('/api/config/global').send({ verticals: { hr: false }, defaultLanguage: 'es' }).expect(200);
      const settings = await request(t.url).get('/api/public/settings').expect(200);
      expect(settings.body.data).toMatchObject({ defaultLanguage: 'es', enabledVerticals: ['customer-service', 'legal', 'sales'] });
      expect(settings.body.data.verticals).toContainEqual({ id: 'hr', enabled: false });
      expect(settings.body.data.verticals).toContainEqual({ id: 'future', enabled: false });

      const sent = mock.requests.length;
      expectEnvelope(await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How do I request leave?' }), 400, 'vertical_disabled');
      const sse = await request(t.url).post('/interact').set('Accept', 'text/event-stream').send({ vertical: 'hr', query: 'How do I request leave?' });
      expect(sse.status).toBe(400);
      const viaSocket = await chatOverSocket(socket, { vertical: 'hr', query: 'How do I request leave?' });
      expect(viaSocket.ack).toMatchObject({ accepted: false, error: { code: 'vertical_disabled' } });
      expect(mock.requests.length).toBe(sent);
      await request(t.url).post('/interact').send({ vertical: 'sales', query: 'How do I close?' }).expect(200);

      await admin.put('/api/config/global').send({ verticals: { hr: true } }).expect(200);
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How do I request leave?' }).expect(200);
    });

    it('open chat pages are told the new public settings live (settings:changed), and only those', async () => {
      const visitor = await connectClient(t.url);
      try {
        const pushed = new Promise<PublicSettings>((resolve) => visitor.once('settings:changed', resolve));
        await admin.put('/api/config/global').send({ verticals: { sales: false }, defaultLanguage: 'ar' }).expect(200);
        const settings = await pushed;
        expect(settings).toEqual((await request(t.url).get('/api/public/settings').expect(200)).body.data);
        expect(settings).toMatchObject({ defaultLanguage: 'ar', enabledVerticals: ['customer-service', 'hr', 'legal'] });
        expect(Object.keys(settings).sort()).toEqual(['defaultLanguage', 'enabledVerticals', 'verticals']);
      } finally {
        visitor.close();
        await admin.put('/api/config/global').send({ verticals: { sales: true }, defaultLanguage: 'en' }).expect(200);
      }
    });

    it('Enable Analytics off: chats leave no usage events; on again they do', async () => {
      const usage = t.dataSource.getRepository(UsageEvent);
      await admin.put('/api/config/global').send({ enableAnalytics: false }).expect(200);
      const off = await request(t.url).post('/interact').set('X-Request-Id', 'analytics-off-1').send({ vertical: 'sales', query: 'Any tips for cold calls?' }).expect(200);
      expect(off.body.data.response.length).toBeGreaterThan(0);
      // Whatever the chat recorded is written now (the recorder's own signal, not a guess at its flush interval).
      await t.app.get(UsageRecorderService).flush();
      const offId = off.headers['x-request-id'] ?? 'analytics-off-1';
      expect(await usage.countBy({ requestId: offId })).toBe(0);

      await admin.put('/api/config/global').send({ enableAnalytics: true }).expect(200);
      const on = await request(t.url).post('/interact').set('X-Request-Id', 'analytics-on-1').send({ vertical: 'sales', query: 'Any tips for cold calls?' }).expect(200);
      const onId = on.headers['x-request-id'] ?? 'analytics-on-1';
      await eventually(() => usage.countBy({ requestId: onId }).then((n) => n === 1), 5000, 'usage event with analytics on');
    });

    it('Debug Mode on: verbose logs of the agent picked for each chat (never the key); off: none', async () => {
      const lines: string[] = [];
      const original = process.stdout.write.bind(process.stdout);
      const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
        lines.push(String(chunk));
        return (original as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
      });
      try {
        await admin.put('/api/config/global').send({ debugMode: true }).expect(200);
        await admin.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: GOOD_KEY } }).expect(200);
        await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Where is the handbook?' }).expect(200);
        const debugOutput = lines.join('');
        expect(debugOutput).toMatch(/Chat in hr -> agent hr-agent \(openai gpt-4o-mini/);
        expect(debugOutput).not.toContain(GOOD_KEY);

        await admin.put('/api/config/global').send({ debugMode: false }).expect(200);
        lines.length = 0;
        await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Where is the handbook?' }).expect(200);
        expect(lines.join('')).not.toMatch(/Chat in hr -> agent/);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('POST /api/config/test-api-key (a real model listing through the vendor SDK)', () => {
    it('a key the vendor accepts is Valid', async () => {
      const res = await admin.post('/api/config/test-api-key').send({ provider: 'openai', apiKey: GOOD_KEY, model: 'gpt-4o-mini', baseUrl: mock.openaiBaseUrl }).expect(200);
      expect(res.body.data).toMatchObject({ isValid: true, provider: 'openai', modelAvailable: true });
      expect(res.body.data.modelCount).toBeGreaterThan(0);
      expect(mock.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', apiKey: GOOD_KEY });
    });

    it('a key the vendor rejects with 401 is Invalid, with a reason and without echoing the key', async () => {
      const res = await admin.post('/api/config/test-api-key').send({ provider: 'openai', apiKey: BAD_KEY, baseUrl: mock.openaiBaseUrl }).expect(200);
      expect(res.body.data).toMatchObject({ isValid: false, reason: expect.stringMatching(/refused the key \(HTTP 401\)/) });
      expect(mock.requests.at(-1)).toMatchObject({ status: 401, apiKey: BAD_KEY });
      expect(JSON.stringify(res.body)).not.toContain(BAD_KEY);
    });

    it('works for Anthropic and Azure wire formats too', async () => {
      const anthropic = await admin.post('/api/config/test-api-key').send({ provider: 'anthropic', apiKey: OTHER_GOOD_KEY, baseUrl: mock.anthropicBaseUrl }).expect(200);
      expect(anthropic.body.data.isValid).toBe(true);
      expect(mock.requests.at(-1)).toMatchObject({ vendor: 'anthropic', apiKey: OTHER_GOOD_KEY });
      const azure = await admin.post('/api/config/test-api-key').send({ provider: 'azure', apiKey: BAD_KEY, endpoint: mock.azureEndpoint, apiVersion: '2024-10-21' }).expect(200);
      expect(azure.body.data.isValid).toBe(false);
      expect(mock.requests.at(-1)).toMatchObject({ vendor: 'azure', status: 401 });
    });

    it("with an agentId and no apiKey it tests the agent's stored key", async () => {
      const res = await admin.post('/api/config/test-api-key').send({ agentId: 'sales-agent', provider: 'openai' }).expect(200);
      expect(res.body.data.isValid).toBe(true);
      expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/models', apiKey: GOOD_KEY });
    });

    it('an unreachable host is Invalid at once; a host that never answers is Invalid within the timeout', async () => {
      const refused = await admin.post('/api/config/test-api-key').send({ provider: 'openai', apiKey: GOOD_KEY, baseUrl: 'http://127.0.0.1:9/v1' }).expect(200);
      expect(refused.body.data).toMatchObject({ isValid: false, reason: expect.stringMatching(/could not be reached/) });

      mock.configure({ hang: true });
      const started = Date.now();
      const hung = await admin.post('/api/config/test-api-key').send({ provider: 'openai', apiKey: GOOD_KEY, baseUrl: mock.openaiBaseUrl }).expect(200);
      const elapsed = Date.now() - started;
      expect(hung.body.data).toMatchObject({ isValid: false, reason: expect.stringMatching(/did not answer within 1.5 s/) });
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      expect(elapsed).toBeLessThan(5000);
    });

    it('refuses a body without provider or agentId, and an unknown agent', async () => {
      expectEnvelope(await admin.post('/api/config/test-api-key').send({ apiKey: GOOD_KEY }), 400, 'validation_failed');
      expectEnvelope(await admin.post('/api/config/test-api-key').send({ agentId: 'nobody-agent' }), 404, 'not_found');
    });
  });

  describe('GET /api/config/validate (real checks)', () => {
    afterEach(async () => {
      await admin.delete('/api/config/agents/keyless-agent');
      for (const id of ['universal-agent', 'sales-agent']) await admin.put(`/api/config/agents/${id}`).send({ enabled: true }).expect(200);
    });

    it('finds nothing wrong with the seeded configuration', async () => {
      const res = await admin.get('/api/config/validate').expect(200);
      expect(res.body.data).toMatchObject({ valid: true });
      expect(res.body.data.problems.filter((p: { severity: string }) => p.severity === 'error')).toEqual([]);
    });

    it('lists an enabled agent without a key and an enabled vertical without any agent', async () => {
      await admin.post('/api/config/agents').send({ agentId: 'keyless-agent', agentName: 'Keyless', vertical: 'legal', systemPrompt: 'x', llmConfig: { provider: 'anthropic' } }).expect(201);
      await admin.put('/api/config/agents/universal-agent').send({ enabled: false }).expect(200);
      await admin.put('/api/config/agents/sales-agent').send({ enabled: false }).expect(200);
      const res = await admin.get('/api/config/validate').expect(200);
      expect(res.body.data.valid).toBe(false);
      const messages = res.body.data.problems.map((p: { message: string }) => p.message);
      expect(messages).toContainEqual(expect.stringMatching(/Keyless \(keyless-agent\): no API key is set for Anthropic/));
      expect(messages).toContainEqual(expect.stringMatching(/Sales Advisor is enabled but has no enabled agent/));
    });
  });

  it('exports the whole configuration as a JSON file without secrets', async () => {
    const res = await admin.get('/api/config/export').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="support-assistant-config-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(res.body).toMatchObject({ format: 'support-assistant-config', version: 1, global: { maxResponseLength: 500 } });
    expect(res.body.agents).toHaveLength(5);
    expect(res.body.agents[0].llmConfig).toMatchObject({ provider: 'openai', hasApiKey: true });
    expect(res.body.agents[0].llmConfig).not.toHaveProperty('apiKey');
    expect(res.text).not.toContain(GOOD_KEY);
    expect(res.text).not.toContain('sk-');
  });
});
