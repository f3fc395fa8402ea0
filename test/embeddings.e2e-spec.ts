/**
 * Hybrid retrieval (issue 14, deliverable 3) through the real app, with the mock LLM server's
 * /v1/embeddings (deterministic vectors: this tests the plumbing, not the quality): settings,
 * backfill and its progress, vectors for every chunk, re-embedding on a model change, the
 * question's vector fused with BM25, the fall back to BM25 when the endpoint fails or is slow,
 * /health, and the usage events of embedding calls.
 */
import request from 'supertest';
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
