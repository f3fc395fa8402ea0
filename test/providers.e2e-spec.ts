import request from 'supertest';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { portableSql } from '../src/database/sql';
import { costUsd } from '../src/shared/catalog/providers';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, ClientSocket, connectClient, eventually, startTestApp, TestApp } from './support/test-app';

async function usageFor(t: TestApp, requestId: string): Promise<UsageEvent> {
  return eventually(() => t.dataSource.getRepository(UsageEvent).findOneBy({ requestId }).then((e) => e ?? undefined), 5000, `usage event ${requestId}`);
}

describe('chat through a vendor provider (mock OpenAI wire format)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let socket: ClientSocket;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 12, delayMs: 5 });
    t = await startTestApp({ openaiApiKey: 'sk-test-key', openaiBaseUrl: mock.openaiBaseUrl, agentTimeoutMs: 800 });
    socket = await connectClient(t.url);
  });

  afterEach(() => mock.reset());

  afterAll(async () => {
    socket?.close();
    await t?.close();
    await mock?.close();
  });

  it('streams the vendor reply, reports vendor usage and cost, and records one usage event', async () => {
    const result = await chatOverSocket(socket, { requestId: 'ok-1', vertical: 'customer-service', query: 'How long does shipping take?', preferredLanguage: 'French' });
    expect(result.error).toBeUndefined();
    const [record] = mock.requests;
    expect(result.deltas.join('')).toBe(record.replyText);
    expect(result.done!.response).toBe(record.replyText);
    expect(result.done!.usage).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o-mini',
      promptTokens: record.usage!.promptTokens,
      completionTokens: record.usage!.completionTokens,
    });
    expect(result.done!.usage.costUsd).toBeCloseTo(costUsd('openai', 'gpt-4o-mini', record.usage!.promptTokens, record.usage!.completionTokens), 10);
    expect(result.done!.usage.costUsd).toBeGreaterThan(0);

    // The prompt: system prompt with the reply language and the fenced knowledge passages.
    expect(record.apiKey).toBe('sk-test-key');
    const system = record.messages![0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('Reply in French.');
    expect(system.content).toMatch(/<reference index="1" title="Shipping[^"]*">/i);
    expect(system.content).toMatch(/untrusted/);
    expect(record.messages![record.messages!.length - 1]).toEqual({ role: 'user', content: 'How long does shipping take?' });

    const event = await usageFor(t, 'ok-1');
    expect(event).toMatchObject({ status: 'success', provider: 'openai', model: 'gpt-4o-mini', channel: 'socket', vertical: 'customer-service', agentId: 'customer-service-agent' });
    expect(event.promptTokens).toBe(record.usage!.promptTokens);
    expect(event.ttftMs).not.toBeNull();
  });

  it('puts the jurisdiction, sub-region and legal system into a legal prompt', async () => {
    await chatOverSocket(socket, { vertical: 'legal', query: 'Can my landlord keep my deposit?', jurisdiction: 'AE', subJurisdiction: 'Dubai' });
    const system = mock.requests[0].messages![0].content as string;
    expect(system).toContain('Dubai, United Arab Emirates');
    expect(system).toContain('Mixed civil/Sharia/common');
  });

  it.each([
    ['429', '[mock:429]', 'provider_rate_limited', 503],
    ['500', '[mock:500]', 'provider_error', 502],
    ['a malformed stream', '[mock:malformed]', 'provider_error', 502],
    ['a hang (agent timeout)', '[mock:hang]', 'provider_timeout', 504],
  ])('provider %s: the socket gets chat:error, REST the envelope, and the usage event records the error', async (_name, marker, code, status) => {
    const result = await chatOverSocket(socket, { requestId: `fail-${code}-${status}`, vertical: 'hr', query: `What is the sick leave policy? ${marker}` });
    expect(result.ack).toEqual({ accepted: true, replyId: expect.any(String) });
    expect(result.done).toBeUndefined();
    expect(result.error).toEqual({ code, message: expect.any(String) });
    expect(result.error!.message).not.toMatch(/sk-test-key/);
    const event = await usageFor(t, `fail-${code}-${status}`);
    expect(event).toMatchObject({ status: 'error', errorCode: code });

    const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: `What is the sick leave policy? ${marker}` });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ success: false, error: { code } });
    // The server is still up.
    await request(t.url).get('/health').expect(200);
  });

  it('a client that disconnects mid-stream does not stop the reply: the provider streams to the end, the usage event is a success and the conversation has the whole reply', async () => {
    const leaving = await connectClient(t.url);
    const firstDelta = new Promise<void>((resolve) => leaving.once('chat:delta', () => resolve()));
    const ack = new Promise<{ replyId?: string }>((resolve) =>
      leaving.emit('chat:send', { requestId: 'leave-1', vertical: 'customer-service', query: 'Where is my order? [mock:tokens=40;delay=20]' }, (a) => resolve(a as { replyId?: string })),
    );
    await firstDelta;
    const [record] = await mock.waitForRequests(1);
    leaving.disconnect();
    const closed = await mock.waitForClose(record, 5000);
    expect(closed.completed).toBe(true);
    const event = await usageFor(t, 'leave-1');
    expect(event.status).toBe('success');
    const { replyId } = await ack;
    const stored = await eventually(
      () =>
        t.dataSource
          .query(portableSql(t.dataSource, 'SELECT content, status FROM conversation_messages WHERE id = $1'), [replyId])
          .then((rows: { content: string; status: string }[]) => rows[0]?.status === 'complete' && rows[0]),
      5000,
      'the stored reply',
    );
    expect(stored.content).toBe(record.replyText);
  });

  it('chat:cancel stops a streaming reply with a cancelled error frame', async () => {
    const firstDelta = new Promise<void>((resolve) => socket.once('chat:delta', () => resolve()));
    const pending = chatOverSocket(socket, { requestId: 'cancel-1', vertical: 'hr', query: 'Explain parental leave [mock:tokens=200;delay=20]' });
    await firstDelta;
    socket.emit('chat:cancel', { requestId: 'cancel-1' });
    const result = await pending;
    expect(result.error?.code).toBe('cancelled');
    const [record] = await mock.waitForRequests(1);
    await mock.waitForClose(record, 2000);
    expect((await usageFor(t, 'cancel-1')).status).toBe('cancelled');
  });

  it('a REST caller that goes away mid-reply does not stop it: the reply is read back by id with the visitor cookie /interact set', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/interact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-request-id': 'rest-leave-1' },
      body: JSON.stringify({ vertical: 'hr', query: 'Explain remote work [mock:tokens=40;delay=20]' }),
      signal: controller.signal,
    });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sa_visitor='))!.split(';')[0];
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const replyId = /"replyId":"([^"]+)"/.exec(first)![1];
    const [record] = await mock.waitForRequests(1);
    controller.abort();
    const closed = await mock.waitForClose(record, 5000);
    expect(closed.completed).toBe(true);
    expect((await usageFor(t, 'rest-leave-1')).status).toBe('success');
    // The usage event is stored before the reply's final frame (the last text frame and the
    // conversation write come in between, ~0.1 s at most): read it back once it has ended.
    const reply = await eventually(async () => {
      const res = await request(t.url).get(`/interact/replies/${replyId}`).set('Cookie', cookie).expect(200);
      return res.body.data.status !== 'streaming' && res;
    }, 2000, 'the reply to end');
    expect(reply.body.data).toMatchObject({ replyId, status: 'complete', text: record.replyText });
    expect(reply.body.data.data.response).toBe(record.replyText);
    // Nobody else can read it.
    await request(t.url).get(`/interact/replies/${replyId}`).expect(404);
  });

  it('counts tokens itself when the vendor reports no usage', async () => {
    const result = await chatOverSocket(socket, { vertical: 'hr', query: 'How do I claim expenses? [mock:no-usage]' });
    expect(result.done!.usage.completionTokens).toBeGreaterThan(0);
    expect(result.done!.usage.promptTokens).toBeGreaterThan(0);
  });
});

describe('chat timeout', () => {
  it('ends a reply that keeps streaming past CHAT_TIMEOUT_MS with chat_timeout', async () => {
    const mock = await startMockLlmServer({ tokens: 400, delayMs: 20 });
    const t = await startTestApp({ openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl, chatTimeoutMs: 1000 });
    const socket = await connectClient(t.url);
    try {
      const started = Date.now();
      const result = await chatOverSocket(socket, { requestId: 'slow-1', vertical: 'hr', query: 'Tell me everything about benefits' });
      expect(result.error?.code).toBe('chat_timeout');
      expect(result.deltas.length).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await usageFor(t, 'slow-1')).errorCode).toBe('chat_timeout');
    } finally {
      socket.close();
      await t.close();
      await mock.close();
    }
  });
});

describe.each([
  ['anthropic', (m: MockLlmServer) => ({ anthropicApiKey: 'sk-ant-test', anthropicBaseUrl: m.anthropicBaseUrl }), 'claude-haiku-4-5'],
  ['azure', (m: MockLlmServer) => ({ azureOpenaiApiKey: 'az-key', azureOpenaiEndpoint: m.azureEndpoint }), 'gpt-4o-mini'],
  ['openai-compatible', (m: MockLlmServer) => ({ llmBaseUrl: m.openaiBaseUrl, llmModel: 'llama3.1' }), 'llama3.1'],
] as const)('chat through %s', (provider, settings, model) => {
  it('streams a reply whose deltas equal the response, with usage', async () => {
    const mock = await startMockLlmServer({ tokens: 10, delayMs: 2 });
    const t = await startTestApp(settings(mock));
    const socket = await connectClient(t.url);
    try {
      const result = await chatOverSocket(socket, { vertical: 'sales', query: 'How do I qualify a lead?' });
      expect(result.error).toBeUndefined();
      expect(result.deltas.join('')).toBe(result.done!.response);
      expect(result.done!.usage).toMatchObject({ provider, model });
      expect(result.done!.usage.completionTokens).toBe(10);
      expect(mock.requests[0].vendor).toBe(provider === 'openai-compatible' ? 'openai' : provider);
    } finally {
      socket.close();
      await t.close();
      await mock.close();
    }
  });
});
