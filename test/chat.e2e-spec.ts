import { io } from 'socket.io-client';
import request from 'supertest';
import { ENABLED_VERTICAL_IDS } from '../src/shared/catalog/verticals';
import type { ReplyData } from '../src/shared/contracts/chat';
import { MAX_HISTORY_CHARS, MAX_HISTORY_ENTRIES } from '../src/conversations/history';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, ClientSocket, connectClient, parseSse, startTestApp, TestApp } from './support/test-app';

const SPEC_FIELDS = ['response', 'executionTime', 'confidence', 'vertical', 'agentsInvolved', 'a2aCompliant', 'optimization'];

const QUESTIONS: Record<string, { query: string; jurisdiction?: string; subJurisdiction?: string }> = {
  'customer-service': { query: 'How can I get my money back for something I bought?' },
  hr: { query: 'How many vacation days do employees earn each year?' },
  legal: { query: 'What should an employment contract include?', jurisdiction: 'US', subJurisdiction: 'California' },
  sales: { query: 'How should I handle a prospect who says the price is too high?' },
};

function expectReplyShape(data: ReplyData, vertical: string) {
  for (const field of SPEC_FIELDS) expect(data).toHaveProperty(field);
  expect(typeof data.response).toBe('string');
  expect(data.response.length).toBeGreaterThan(0);
  expect(data.vertical).toBe(vertical);
  expect(data.executionTime).toBeGreaterThanOrEqual(0);
  expect(data.confidence).toBeGreaterThanOrEqual(0);
  expect(data.confidence).toBeLessThanOrEqual(1);
  expect(Array.isArray(data.agentsInvolved)).toBe(true);
  expect(data.agentsInvolved.length).toBeGreaterThan(0);
  expect(typeof data.a2aCompliant).toBe('boolean');
  expect(Array.isArray(data.sources)).toBe(true);
  expect(data.usage).toEqual(
    expect.objectContaining({ promptTokens: expect.any(Number), completionTokens: expect.any(Number), totalTokens: expect.any(Number), costUsd: expect.any(Number) }),
  );
}

describe('chat over the socket, /interact and SSE (offline knowledge responder)', () => {
  let t: TestApp;
  let socket: ClientSocket;

  beforeAll(async () => {
    t = await startTestApp({ localResponderDelayMs: 2 });
    socket = await connectClient(t.url);
  });

  afterAll(async () => {
    socket?.close();
    await t?.close();
  });

  it.each(ENABLED_VERTICAL_IDS.map((v) => [v]))('%s: chat:send streams deltas then chat:done whose response equals the joined deltas', async (vertical) => {
    const q = QUESTIONS[vertical];
    const result = await chatOverSocket(socket, { vertical, ...q });
    expect(result.ack).toEqual({ accepted: true, replyId: expect.any(String) });
    expect(result.error).toBeUndefined();
    expect(result.deltas.length).toBeGreaterThanOrEqual(1);
    expectReplyShape(result.done!, vertical);
    expect(result.deltas.join('')).toBe(result.done!.response);
  });

  it('cites the sample knowledge item that answers the question, best first', async () => {
    const result = await chatOverSocket(socket, { vertical: 'customer-service', query: 'How can I get my money back for something I bought?' });
    expect(result.done!.sources[0].title).toMatch(/refund/i);
    expect(result.done!.response).toContain(result.done!.sources[0].title);
    expect(result.done!.confidence).toBeGreaterThan(0);
  });

  it('says plainly when nothing in the knowledge base matches', async () => {
    const result = await chatOverSocket(socket, { vertical: 'hr', query: 'Zyxqv flurbotron quantization?' });
    expect(result.done!.sources).toEqual([]);
    expect(result.done!.confidence).toBe(0);
    expect(result.done!.response).toMatch(/couldn't find anything/i);
  });

  it.each(ENABLED_VERTICAL_IDS.map((v) => [v]))('%s: POST /interact returns the same reply shape as JSON', async (vertical) => {
    const res = await request(t.url).post('/interact').send({ vertical, ...QUESTIONS[vertical], userId: 'demo-user' }).expect(200);
    expect(res.body.success).toBe(true);
    expectReplyShape(res.body.data, vertical);
  });

  it('POST /interact with Accept: text/event-stream sends chat:delta frames then chat:done', async () => {
    const res = await request(t.url)
      .post('/interact')
      .set('Accept', 'text/event-stream')
      .send({ vertical: 'hr', ...QUESTIONS.hr })
      .buffer(true)
      .parse((response, callback) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => callback(null, body));
      })
      .expect(200);
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    const frames = parseSse(res.body as string);
    const deltas = frames.filter((f) => f.event === 'chat:delta');
    const done = frames.filter((f) => f.event === 'chat:done');
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    expect(done).toHaveLength(1);
    expect(frames[frames.length - 1].event).toBe('chat:done');
    expectReplyShape(done[0].data.data, 'hr');
    expect(deltas.map((d) => d.data.text).join('')).toBe(done[0].data.data.response);
    const requestId = done[0].data.requestId;
    expect(deltas.every((d) => d.data.requestId === requestId)).toBe(true);
  });

  it('answers in the requested language with a long conversation history', async () => {
    const history = Array.from({ length: 60 }, (_, i) => ({ type: i % 2 ? 'agent' : 'user', content: `message ${i} `.repeat(200) }));
    const res = await request(t.url)
      .post('/interact')
      .send({ vertical: 'customer-service', query: 'How long does shipping take?', preferredLanguage: 'Spanish', conversationHistory: history })
      .expect(200);
    expect(res.body.data.response).toMatch(/^Esto es lo que encontré/);
  });

  it('pushes health to a socket on connect', async () => {
    const fresh: ClientSocket = io(t.url, { transports: ['websocket'], reconnection: false, forceNew: true });
    try {
      const push = await new Promise<{ status: string; overallHealth: string; timestamp: string }>((resolve) => fresh.once('health', resolve));
      expect(push.status).toBe('healthy');
      expect(push.overallHealth).toBe('healthy');
      expect(Date.parse(push.timestamp)).not.toBeNaN();
    } finally {
      fresh.close();
    }
  });
});

describe('the history a prompt gets', () => {
  let mock: MockLlmServer;
  let t: TestApp;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 3, delayMs: 1 });
    t = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl, seedSampleKnowledge: false });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it('is bounded: the latest messages only, within the entry and character limits', async () => {
    const history = Array.from({ length: 60 }, (_, i) => ({ type: i % 2 ? 'agent' : 'user', content: `message ${i} `.repeat(100) }));
    await request(t.url).post('/interact').send({ vertical: 'customer-service', query: 'How long does shipping take?', conversationHistory: history }).expect(200);
    const messages = mock.requests[0].messages!;
    const earlier = messages.slice(1, -1);
    expect(earlier.length).toBeGreaterThan(0);
    expect(earlier.length).toBeLessThanOrEqual(MAX_HISTORY_ENTRIES);
    expect(earlier.reduce((n, m) => n + String(m.content).length, 0)).toBeLessThanOrEqual(MAX_HISTORY_CHARS);
    // The newest earlier message is the last one sent, right before the question.
    expect(earlier[earlier.length - 1]).toEqual({ role: 'assistant', content: history[59].content });
    expect(messages[messages.length - 1]).toEqual({ role: 'user', content: 'How long does shipping take?' });
  });
});
