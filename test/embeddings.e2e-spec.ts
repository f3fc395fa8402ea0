/**
 * Hybrid retrieval through the real app, with the mock LLM server's
 * /v1/embeddings (deterministic vectors: this tests the plumbing, not the quality): settings,
 * backfill and its progress, vectors for every chunk, re-embedding on a model change, the
 * question's vector fused with BM25, the fall back to BM25 when the endpoint fails or is slow,
 * /health, and the usage events of embedding calls.
 */
import * as fs from 'node:fs';
import request from 'supertest';
import { dropPostgresSchema } from '../src/database/data-source';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { embeddingCostUsd } from '../src/shared/catalog/providers';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { EmbeddingStatus } from '../src/shared/contracts/embeddings';
import { AdminAgent, adminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { eventually, startTestApp, TestApp } from './support/test-app';

const EMBEDDING_TIMEOUT_MS = 300;

describe('hybrid retrieval with embeddings (mock embeddings endpoint)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    mock = await startMockLlmServer({ validKeys: ['sk-agent-key'] });
    // The agents answer offline; the embeddings reuse an agent's key (the OpenAI agent below).
    t = await startTestApp({ embeddingTimeoutMs: EMBEDDING_TIMEOUT_MS });
    admin = await adminAgent(t);
    await admin
      .post('/api/config/agents')
      .send({ agentId: 'key-holder', agentName: 'Key holder', vertical: 'universal', enabled: false, llmConfig: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-agent-key' } })
      .expect(201);
  });

  afterEach(() => mock.configure({ embeddings: undefined }));

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  async function status(): Promise<EmbeddingStatus> {
    return (await admin.get('/api/config/embeddings/status').expect(200)).body.data as EmbeddingStatus;
  }

  async function ask(query: string): Promise<{ data: ReplyData; ms: number }> {
    const started = Date.now();
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query, userId: 'demo-user' }).expect(200);
    return { data: res.body.data as ReplyData, ms: Date.now() - started };
  }

  async function vectorCount(model: string): Promise<number> {
    const rows: { n: string | number }[] = await t.dataSource.query(
      t.config.databaseUrl ? 'SELECT COUNT(*) AS n FROM knowledge_chunk_embeddings WHERE model = $1' : 'SELECT COUNT(*) AS n FROM knowledge_chunk_embeddings WHERE model = ?',
      [model],
    );
    return Number(rows[0].n);
  }

  it('are off by default: settings, status and /health say so, and a search asks for no vector', async () => {
    const res = await admin.get('/api/config/embeddings').expect(200);
    expect(res.body.data.settings).toMatchObject({ enabled: false, provider: 'openai', model: 'text-embedding-3-small', apiKey: null });
    expect(res.body.data.status).toMatchObject({ enabled: false, embedded: 0, running: false, degraded: false });
    expect((await request(t.url).get('/health').expect(200)).body.data.embeddings).toEqual({ status: 'off' });
    const { data } = await ask('How do I get a refund?');
    expect(data.optimization.retrieval).toBeUndefined();
    expect(mock.requests.filter((r) => r.kind === 'embeddings')).toHaveLength(0);
  });

  it('refuses bad settings with a 400 that says what to fix', async () => {
    const bad = await admin.put('/api/config/embeddings').send({ provider: 'anthropic' }).expect(400);
    expect(bad.body.error.message).toBe('Provider must be one of openai, azure, openai-compatible');
    const url = await admin.put('/api/config/embeddings').send({ baseUrl: 'ftp://x' }).expect(400);
    expect(url.body.error.message).toBe('Base URL must be an http or https URL');
    await admin.put('/api/config/embeddings').send({}).expect(400);
  });

  it('turned on (reusing an agent\'s key), every chunk gets a vector by the backfill job, and the status shows the progress', async () => {
    const res = await admin
      .put('/api/config/embeddings')
      .send({ enabled: true, provider: 'openai', model: 'text-embedding-3-small', baseUrl: mock.openaiBaseUrl, keyFromAgent: 'key-holder' })
      .expect(200);
    expect(res.body.data.settings).toMatchObject({ enabled: true, keyFromAgent: 'key-holder', apiKey: null });
    expect(res.body.data.status.total).toBeGreaterThan(0);
    const done = await eventually(async () => {
      const s = await status();
      return s.embedded === s.total && s.total > 0 ? s : undefined;
    }, 15000, 'every chunk embedded');
    expect(done).toMatchObject({ enabled: true, model: 'text-embedding-3-small', running: false, degraded: false });
    const chunks: { n: string | number }[] = await t.dataSource.query('SELECT COUNT(*) AS n FROM knowledge_chunks');
    expect(await vectorCount('text-embedding-3-small')).toBe(Number(chunks[0].n));
    const calls = mock.requests.filter((r) => r.kind === 'embeddings');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.apiKey === 'sk-agent-key' && r.model === 'text-embedding-3-small')).toBe(true);
  });

  it('an item created or updated gets vectors for its new chunks', async () => {
    const created = await admin
      .post('/api/knowledge')
      .send({ title: 'Gift wrapping', content: 'We wrap gifts in recycled paper for two dollars per parcel. Choose gift wrapping at checkout.', category: 'Orders', vertical: 'customer-service', tags: [] })
      .expect(201);
    const id = created.body.data.id as string;
    const embeddedOf = async () => {
      const rows: { n: string | number }[] = await t.dataSource.query(
        t.config.databaseUrl
          ? 'SELECT COUNT(*) AS n FROM knowledge_chunks c JOIN knowledge_chunk_embeddings e ON e.chunk_id = c.id WHERE c.item_id = $1'
          : 'SELECT COUNT(*) AS n FROM knowledge_chunks c JOIN knowledge_chunk_embeddings e ON e.chunk_id = c.id WHERE c.item_id = ?',
        [id],
      );
      return Number(rows[0].n);
    };
    await eventually(async () => (await embeddedOf()) > 0, 10000, 'the new item embedded');
    await admin.put(`/api/knowledge/${id}`).send({ title: 'Gift wrapping', content: 'Gift wrapping costs two dollars. Gift notes are free.', category: 'Orders', vertical: 'customer-service', tags: [] }).expect(200);
    await eventually(async () => {
      const s = await status();
      return s.embedded === s.total && (await embeddedOf()) > 0;
    }, 10000, 'the updated item embedded again');
  });

  it('a search uses both signals: the question is embedded and its nearest chunks are fused with BM25 (mode hybrid)', async () => {
    const before = mock.requests.length;
    const { data } = await ask('Can I get gift wrapping for my parcel?');
    expect(data.optimization.retrieval).toBe('hybrid');
    expect(data.sources[0].title).toBe('Gift wrapping');
    const question = mock.requests.slice(before).find((r) => r.kind === 'embeddings');
    expect(question?.input).toEqual(['Can I get gift wrapping for my parcel?']);
  });

  it('a failing embeddings endpoint: the search falls back to BM25 at once, /health says embeddings are degraded, then ok again', async () => {
    mock.configure({ embeddings: { status: 500 } });
    const { data } = await ask('How do I get a refund?');
    expect(data.optimization.retrieval).toBe('lexical-fallback');
    expect(data.sources[0].title).toBe('Returns and refunds');
    const health = (await request(t.url).get('/health').expect(200)).body;
    expect(health.data.embeddings).toEqual({ status: 'degraded' });
    expect(health.status).toBe('degraded');
    expect((await status()).degraded).toBe(true);

    mock.configure({ embeddings: undefined });
    expect((await ask('How do I get a refund?')).data.optimization.retrieval).toBe('hybrid');
    expect((await request(t.url).get('/health').expect(200)).body.data.embeddings).toEqual({ status: 'ok' });
  });

  it('a slow embeddings endpoint: the search gives up at EMBEDDING_TIMEOUT_MS and answers from BM25', async () => {
    mock.configure({ embeddings: { delayMs: 10_000 } });
    const { data, ms } = await ask('How do I get a refund?');
    expect(data.optimization.retrieval).toBe('lexical-fallback');
    expect(data.sources[0].title).toBe('Returns and refunds');
    // Answered at the limit, long before the endpoint's 10 s.
    expect(ms).toBeLessThan(5000);
  });

  it('embedding calls are usage events with tokens and cost (failures and timeouts too), and no requests in Analytics', async () => {
    const events = await eventually(async () => {
      const rows = await t.dataSource.getRepository(UsageEvent).findBy({ kind: 'embedding' });
      return rows.some((e) => e.errorCode === 'embedding_timeout') ? rows : undefined;
    }, 5000, 'embedding usage events');
    const ok = events.filter((e) => e.status === 'success');
    expect(ok.length).toBeGreaterThan(2);
    for (const e of ok) {
      expect(e).toMatchObject({ agentId: 'embeddings', provider: 'openai', model: 'text-embedding-3-small', completionTokens: 0 });
      expect(e.promptTokens).toBeGreaterThan(0);
      expect(e.costUsd).toBeCloseTo(embeddingCostUsd('openai', 'text-embedding-3-small', e.promptTokens), 12);
    }
    expect(ok.reduce((sum, e) => sum + e.costUsd, 0)).toBeGreaterThan(0);
    expect(events.some((e) => e.status === 'error' && e.errorCode === 'embedding_failed')).toBe(true);
    const chats = await t.dataSource.getRepository(UsageEvent).countBy({ kind: 'chat' });
    expect((await admin.get('/api/analytics/system?hours=1').expect(200)).body.data.totalRequests).toBe(chats);
  });

  it('changing the model re-embeds every chunk (the progress starts again from 0)', async () => {
    mock.configure({ embeddings: { delayMs: 400 } });
    const res = await admin.put('/api/config/embeddings').send({ model: 'text-embedding-3-large' }).expect(200);
    expect(res.body.data.status).toMatchObject({ model: 'text-embedding-3-large', embedded: 0, running: true });
    const done = await eventually(async () => {
      const s = await status();
      return s.embedded === s.total ? s : undefined;
    }, 15000, 're-embedded with the new model');
    expect(await vectorCount('text-embedding-3-large')).toBe(done.total);
    expect(await vectorCount('text-embedding-3-small')).toBe(0);
  });
});

describe('POST /api/config/embeddings/test (one real embeddings call through the SDK, mock endpoints)', () => {
  const GOOD_KEY = 'sk-embeddings-good-1234';
  const BAD_KEY = 'sk-embeddings-wrong-9876';
  const KEY_TEST_TIMEOUT_MS = 1500;
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    mock = await startMockLlmServer({ validKeys: [GOOD_KEY] });
    t = await startTestApp({ apiKeyTestTimeoutMs: KEY_TEST_TIMEOUT_MS, seedSampleKnowledge: false });
    admin = await adminAgent(t);
    await admin
      .post('/api/config/agents')
      .send({ agentId: 'lender', agentName: 'Lender', vertical: 'universal', enabled: false, llmConfig: { provider: 'openai', model: 'gpt-4o-mini', apiKey: GOOD_KEY } })
      .expect(201);
  });

  afterEach(() => mock.configure({ embeddings: undefined, validKeys: [GOOD_KEY] }));

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const test = (body: object) => admin.post('/api/config/embeddings/test').send(body);

  it('OpenAI: a key the provider accepts is Valid, with the vector length, from one embeddings request of the model', async () => {
    const res = await test({ provider: 'openai', model: 'text-embedding-3-small', baseUrl: mock.openaiBaseUrl, apiKey: GOOD_KEY }).expect(200);
    expect(res.body.data).toMatchObject({ isValid: true, provider: 'openai', model: 'text-embedding-3-small', dimensions: 64 });
    expect(res.body.data.reason).toBe('OpenAI accepted the key: text-embedding-3-small returned a vector of 64 numbers.');
    const call = mock.requests.at(-1)!;
    expect(call).toMatchObject({ vendor: 'openai', kind: 'embeddings', method: 'POST', path: '/v1/embeddings', apiKey: GOOD_KEY, model: 'text-embedding-3-small', status: 200 });
    expect(call.input).toHaveLength(1);
    expect(call.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
  });

  it("Azure OpenAI: the deployment's URL with api-version, the key in the api-key header", async () => {
    const res = await test({ provider: 'azure', model: 'embeddings-deployment', endpoint: mock.azureEndpoint, apiVersion: '2024-10-21', apiKey: GOOD_KEY }).expect(200);
    expect(res.body.data).toMatchObject({ isValid: true, provider: 'azure', model: 'embeddings-deployment', dimensions: 64 });
    expect(res.body.data.reason).toMatch(/^Azure OpenAI accepted the key/);
    const call = mock.requests.at(-1)!;
    expect(call).toMatchObject({ vendor: 'azure', path: '/openai/deployments/embeddings-deployment/embeddings', query: { 'api-version': '2024-10-21' }, apiKey: GOOD_KEY, status: 200 });
    expect(call.headers['api-key']).toBe(GOOD_KEY);
    expect(call.headers.authorization).toBeUndefined();
  });

  it('OpenAI-compatible: no key needed (a server without keys), the address without /v1 gets it', async () => {
    mock.configure({ validKeys: undefined });
    const res = await test({ provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: mock.url, apiKey: null, keyFromAgent: null }).expect(200);
    expect(res.body.data).toMatchObject({ isValid: true, provider: 'openai-compatible', model: 'nomic-embed-text', dimensions: 64 });
    expect(mock.requests.at(-1)).toMatchObject({ vendor: 'openai', path: '/v1/embeddings', model: 'nomic-embed-text', status: 200 });
  });

  it("a wrong key is Invalid with the provider's reason (HTTP 401), never echoing the key; OpenAI and Azure", async () => {
    const openai = await test({ provider: 'openai', model: 'text-embedding-3-small', baseUrl: mock.openaiBaseUrl, apiKey: BAD_KEY }).expect(200);
    expect(openai.body.data).toMatchObject({ isValid: false, reason: 'The provider refused the key (HTTP 401).' });
    expect(mock.requests.at(-1)).toMatchObject({ status: 401, apiKey: BAD_KEY });
    expect(JSON.stringify(openai.body)).not.toContain(BAD_KEY);
    const azure = await test({ provider: 'azure', model: 'embeddings-deployment', endpoint: mock.azureEndpoint, apiKey: BAD_KEY }).expect(200);
    expect(azure.body.data).toMatchObject({ isValid: false, reason: 'The provider refused the key (HTTP 401).' });
    // The default API version when none is given.
    expect(mock.requests.at(-1)).toMatchObject({ vendor: 'azure', status: 401, query: { 'api-version': '2024-10-21' } });
  });

  it('an unknown model or deployment (404) is Invalid and says which', async () => {
    mock.configure({ embeddings: { status: 404 } });
    const openai = await test({ provider: 'openai', model: 'text-embedding-9', baseUrl: mock.openaiBaseUrl, apiKey: GOOD_KEY }).expect(200);
    expect(openai.body.data).toMatchObject({ isValid: false, reason: 'OpenAI has no model named text-embedding-9 (HTTP 404): check the model and the address.' });
    const azure = await test({ provider: 'azure', model: 'no-such-deployment', endpoint: mock.azureEndpoint, apiKey: GOOD_KEY }).expect(200);
    expect(azure.body.data.reason).toMatch(/^Azure OpenAI has no deployment named no-such-deployment \(HTTP 404\)/);
  });

  it('an endpoint that never answers is Invalid within API_KEY_TEST_TIMEOUT_MS; a closed port at once', async () => {
    mock.configure({ embeddings: { hang: true } });
    const started = Date.now();
    const silent = await test({ provider: 'openai', model: 'text-embedding-3-small', baseUrl: mock.openaiBaseUrl, apiKey: GOOD_KEY }).expect(200);
    const elapsed = Date.now() - started;
    expect(silent.body.data).toMatchObject({ isValid: false, reason: 'The provider did not answer within 1.5 s.' });
    expect(elapsed).toBeGreaterThanOrEqual(KEY_TEST_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(KEY_TEST_TIMEOUT_MS + 3000);

    const refused = await test({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }).expect(200);
    expect(refused.body.data).toMatchObject({ isValid: false, reason: 'The provider could not be reached (check the address and the network).' });
  });

  it("fields left out are the saved settings, the saved key too (empty or masked); a typed key or an agent's key replaces it", async () => {
    const saved = await admin
      .put('/api/config/embeddings')
      .send({ provider: 'azure', model: 'saved-deployment', endpoint: mock.azureEndpoint, apiVersion: '2024-06-01', apiKey: GOOD_KEY })
      .expect(200);
    const mask = saved.body.data.settings.apiKey as string;
    expect(mask).toBe('sk-...1234');

    for (const body of [{}, { apiKey: '' }, { apiKey: mask }]) {
      const res = await test(body).expect(200);
      expect(res.body.data).toMatchObject({ isValid: true, provider: 'azure', model: 'saved-deployment' });
      expect(mock.requests.at(-1)).toMatchObject({ vendor: 'azure', path: '/openai/deployments/saved-deployment/embeddings', query: { 'api-version': '2024-06-01' }, apiKey: GOOD_KEY });
    }
    expect((await test({ apiKey: BAD_KEY }).expect(200)).body.data.isValid).toBe(false);
    expect(mock.requests.at(-1)).toMatchObject({ apiKey: BAD_KEY });

    const lent = await test({ provider: 'openai', model: 'text-embedding-3-small', baseUrl: mock.openaiBaseUrl, keyFromAgent: 'lender' }).expect(200);
    expect(lent.body.data.isValid).toBe(true);
    expect(mock.requests.at(-1)).toMatchObject({ vendor: 'openai', apiKey: GOOD_KEY });
    // The test changed nothing.
    expect((await admin.get('/api/config/embeddings').expect(200)).body.data.settings).toMatchObject({ provider: 'azure', model: 'saved-deployment', keyFromAgent: null });
  });

  it('without a key or an address it says what to enter (no call)', async () => {
    const before = mock.requests.length;
    const noKey = await test({ provider: 'openai', baseUrl: mock.openaiBaseUrl, apiKey: null }).expect(200);
    expect(noKey.body.data).toMatchObject({ isValid: false, reason: 'No API key to test: enter the OpenAI key.' });
    const noEndpoint = await test({ provider: 'azure', endpoint: null, baseUrl: null, apiKey: GOOD_KEY }).expect(200);
    expect(noEndpoint.body.data).toMatchObject({ isValid: false, reason: 'No endpoint to test: enter the Azure OpenAI endpoint.' });
    const noAddress = await test({ provider: 'openai-compatible', endpoint: null, baseUrl: null }).expect(200);
    expect(noAddress.body.data).toMatchObject({ isValid: false, reason: "No address to test: enter the server's base URL." });
    expect(mock.requests.length).toBe(before);
  });

  it.each([
    ['an unknown provider', { provider: 'anthropic' }, 'Provider must be one of openai, azure, openai-compatible'],
    ['a base URL that is not http(s)', { baseUrl: 'ftp://x' }, 'Base URL must be an http or https URL'],
    ['a key with spaces', { apiKey: 'sk two words' }, 'API Key must not contain spaces'],
    ['an agent that is not an agent id', { keyFromAgent: 'Not An Id!' }, 'Agent must be an agent id'],
    ['a body that is not an object', ['openai'], 'The request body must be a JSON object.'],
  ])('refuses %s with a 400 that says what to fix', async (_name, body, message) => {
    const res = await test(body).expect(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'validation_failed', message } });
  });

  it("an unknown agent to take the key from is a 404", async () => {
    const res = await test({ keyFromAgent: 'nobody-agent' }).expect(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', message: 'No agent with the id "nobody-agent".' });
  });
});

describe('hybrid retrieval through Azure OpenAI embeddings (mock deployment endpoint)', () => {
  const AZURE_KEY = 'azure-embeddings-key-42';
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    mock = await startMockLlmServer({ validKeys: [AZURE_KEY] });
    t = await startTestApp({ embeddingTimeoutMs: EMBEDDING_TIMEOUT_MS });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it("writes a vector for every chunk through the deployment's URL (api-version, api-key header), and a search embeds the question there and uses it", async () => {
    await admin
      .put('/api/config/embeddings')
      .send({ enabled: true, provider: 'azure', model: 'kb-embeddings', endpoint: mock.azureEndpoint, apiVersion: '2024-10-21', apiKey: AZURE_KEY })
      .expect(200);
    const done = await eventually(async () => {
      const s = (await admin.get('/api/config/embeddings/status').expect(200)).body.data as EmbeddingStatus;
      return s.total > 0 && s.embedded === s.total ? s : undefined;
    }, 15000, 'every chunk embedded through Azure');
    expect(done).toMatchObject({ model: 'kb-embeddings', degraded: false });
    const rows: { n: string | number; dims: string | number }[] = await t.dataSource.query(
      t.config.databaseUrl
        ? 'SELECT COUNT(*) AS n, MIN(dims) AS dims FROM knowledge_chunk_embeddings WHERE model = $1'
        : 'SELECT COUNT(*) AS n, MIN(dims) AS dims FROM knowledge_chunk_embeddings WHERE model = ?',
      ['kb-embeddings'],
    );
    expect(Number(rows[0].n)).toBe(done.total);
    expect(Number(rows[0].dims)).toBe(64);
    const backfill = mock.requests.filter((r) => r.kind === 'embeddings');
    expect(backfill.length).toBeGreaterThan(0);
    for (const call of backfill) {
      expect(call).toMatchObject({ vendor: 'azure', path: '/openai/deployments/kb-embeddings/embeddings', query: { 'api-version': '2024-10-21' }, apiKey: AZURE_KEY, status: 200 });
    }

    const before = mock.requests.length;
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query: 'How do I get a refund?', userId: 'demo-user' }).expect(200);
    const data = res.body.data as ReplyData;
    // 'hybrid': the question's vector was scored against the stored ones and fused with BM25.
    expect(data.optimization.retrieval).toBe('hybrid');
    expect(data.sources.map((source) => source.title)).toContain('Returns and refunds');
    const question = mock.requests.slice(before).find((r) => r.kind === 'embeddings');
    expect(question).toMatchObject({ vendor: 'azure', path: '/openai/deployments/kb-embeddings/embeddings', input: ['How do I get a refund?'], status: 200 });
  });
});

describe('a saved embeddings key this server cannot decrypt (another APP_SECRET)', () => {
  it('shows as no key with keyUnreadable, and the settings save again as the console sends them', async () => {
    const first = await startTestApp({ appSecret: 'first-secret-first-secret-first-secret-0', seedSampleKnowledge: false });
    let second: TestApp | undefined;
    try {
      const admin = await adminAgent(first);
      await admin.put('/api/config/embeddings').send({ provider: 'openai', model: 'text-embedding-3-small', apiKey: 'sk-embeddings-saved-1234' }).expect(200);
      // The same database and data folder, another secret.
      await first.close({ keepData: true });
      second = await startTestApp({ dataDir: first.config.dataDir, databaseSchema: first.config.databaseSchema, appSecret: 'other-secret-other-secret-other-secret-00', seedSampleKnowledge: false });
      const admin2 = await adminAgent(second);
      const settings = (await admin2.get('/api/config/embeddings').expect(200)).body.data.settings;
      expect(settings).toMatchObject({ apiKey: null, keyUnreadable: true, model: 'text-embedding-3-small' });
      // The form sends the key field as shown (empty): kept, no 400 (it showed a text with spaces before).
      await admin2.put('/api/config/embeddings').send({ provider: 'openai', model: 'text-embedding-3-large', apiKey: settings.apiKey ?? '' }).expect(200);
      const saved = (await admin2.put('/api/config/embeddings').send({ apiKey: 'sk-embeddings-new-5678' }).expect(200)).body.data.settings;
      expect(saved).toMatchObject({ apiKey: expect.stringMatching(/5678$/), model: 'text-embedding-3-large' });
      expect(saved.keyUnreadable).toBeUndefined();
    } finally {
      if (second) await second.close();
      else await first.close().catch(() => undefined);
      fs.rmSync(first.config.dataDir, { recursive: true, force: true });
      if (first.config.databaseUrl && first.config.databaseSchema) await dropPostgresSchema(first.config.databaseUrl, first.config.databaseSchema);
    }
  });
});
