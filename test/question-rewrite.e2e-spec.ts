/**
 * Question rewriting: with an LLM agent, a question in another language
 * than the knowledge is rewritten into English for the search by one short call (usage event kind
 * 'rewrite'), and the reply is in the visitor's language; late or unusable rewrites fall back to
 * the offline cross-language search. The LLM is the mock server speaking OpenAI's wire format.
 */
import request from 'supertest';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { UsageRecorderService } from '../src/analytics/usage-recorder.service';
import { detectLanguage } from '../src/retrieval/language';
import { costUsd } from '../src/shared/catalog/providers';
import type { ReplyData } from '../src/shared/contracts/chat';
import { MockLlmServer, MockRequestRecord, startMockLlmServer } from './support/mock-llm-server';
import { adminAgent } from './support/admin-session';
import { eventually, startTestApp, TestApp } from './support/test-app';

const SPANISH_REFUND = '¿Cómo puedo obtener un reembolso de mi pedido?';
const REWRITE_TIMEOUT_MS = 400;

/** The mock's chat replies: in Spanish when the prompt asks for Spanish, naming the first reference. */
function replyInPromptLanguage(record: MockRequestRecord): string {
  const system = String(record.messages?.[0]?.content ?? '');
  const title = /<reference index="1" title="([^"]*)"/.exec(system)?.[1] ?? 'nada';
  return system.includes('Reply in Spanish.')
    ? `Según el artículo "${title}", puedes devolver el pedido y recibir el reembolso en tu método de pago original.`
    : `According to "${title}", you can return the order and get your money back.`;
}

describe('question rewriting for retrieval (mock LLM)', () => {
  let mock: MockLlmServer;
  let t: TestApp;

  beforeAll(async () => {
    mock = await startMockLlmServer({ reply: replyInPromptLanguage, rewrites: { [SPANISH_REFUND]: 'How can I get a refund for my order?' } });
    t = await startTestApp({ openaiApiKey: 'sk-test-key', openaiBaseUrl: mock.openaiBaseUrl, rewriteTimeoutMs: REWRITE_TIMEOUT_MS });
  });

  afterEach(() => mock.reset());

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  async function ask(query: string, preferredLanguage: string): Promise<ReplyData> {
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query, preferredLanguage, userId: 'demo-user' }).expect(200);
    return res.body.data as ReplyData;
  }

  /** The usage events of the request that got this reply (they share its request id). */
  async function eventsOf(data: ReplyData, count: number): Promise<UsageEvent[]> {
    const repo = t.dataSource.getRepository(UsageEvent);
    return eventually(async () => {
      const reply = await repo.findOneBy({ id: data.replyId });
      const events = reply ? await repo.find({ where: { requestId: reply.requestId }, order: { createdAt: 'ASC' } }) : [];
      return events.length >= count ? events : undefined;
    }, 5000, `${count} usage events of reply ${data.replyId}`);
  }

  it('the Spanish refund question is rewritten into English, cites "Returns and refunds", and the reply is in Spanish; the rewrite is its own usage event with cost and time', async () => {
    const data = await ask(SPANISH_REFUND, 'Spanish');
    expect(data.answered).toBe(true);
    expect(data.sources[0].title).toBe('Returns and refunds');
    expect(detectLanguage(data.response)).toBe('es');
    expect(data.response).toContain('Returns and refunds');
    expect(data.optimization.questionRewrite).toEqual({ outcome: 'rewritten', ms: expect.any(Number) });

    // Two calls: the rewrite (the question as the user's text), then the reply asked for in Spanish.
    const [rewrite, chat] = mock.requests;
    expect(rewrite.kind).toBe('rewrite');
    expect(rewrite.messages![rewrite.messages!.length - 1]).toEqual({ role: 'user', content: SPANISH_REFUND });
    expect(String(rewrite.messages![0].content)).toMatch(/written in Spanish, into English/);
    expect(chat.kind).toBe('chat');
    expect(String(chat.messages![0].content)).toContain('Reply in Spanish.');
    expect(chat.messages![chat.messages!.length - 1]).toEqual({ role: 'user', content: SPANISH_REFUND });

    const events = await eventsOf(data, 2);
    const rewriteEvent = events.find((e) => e.kind === 'rewrite')!;
    const chatEvent = events.find((e) => e.kind === 'chat')!;
    expect(rewriteEvent).toMatchObject({ status: 'success', provider: 'openai', model: 'gpt-4o-mini', language: 'es', agentId: 'customer-service-agent' });
    expect(rewriteEvent.promptTokens).toBe(rewrite.usage!.promptTokens);
    expect(rewriteEvent.completionTokens).toBe(rewrite.usage!.completionTokens);
    expect(rewriteEvent.costUsd).toBeCloseTo(costUsd('openai', 'gpt-4o-mini', rewrite.usage!.promptTokens, rewrite.usage!.completionTokens), 10);
    expect(rewriteEvent.costUsd).toBeGreaterThan(0);
    expect(rewriteEvent.latencyMs).toBe(data.optimization.questionRewrite!.ms);
    expect(chatEvent.id).toBe(data.replyId);
  });

  it('the search uses the rewrite, not the question (a rewrite naming another topic finds that topic)', async () => {
    mock.configure({ rewrites: { [SPANISH_REFUND]: 'How do I reset my password?' } });
    const data = await ask(SPANISH_REFUND, 'Spanish');
    expect(data.sources[0].title).toBe('Resetting your password');
  });

  it('an English question is not rewritten (one call, no rewrite event)', async () => {
    const data = await ask('How do I get a refund for my order?', 'Spanish');
    expect(data.sources[0].title).toBe('Returns and refunds');
    expect(data.optimization.questionRewrite).toBeUndefined();
    expect(mock.requests.map((r) => r.kind)).toEqual(['chat']);
    await eventsOf(data, 1);
    // Every event the reply recorded is written now: a rewrite's would be among them.
    await t.app.get(UsageRecorderService).flush();
    expect((await eventsOf(data, 1)).map((e) => e.kind)).toEqual(['chat']);
  });

  it('a rewrite slower than REWRITE_TIMEOUT_MS is given up at the limit and the question is searched as asked (offline cross-language path)', async () => {
    mock.configure({ firstTokenDelayMs: 1500 });
    const data = await ask(SPANISH_REFUND, 'Spanish');
    expect(data.optimization.questionRewrite!.outcome).toBe('timeout');
    expect(data.optimization.questionRewrite!.ms).toBeGreaterThanOrEqual(REWRITE_TIMEOUT_MS - 5);
    expect(data.optimization.questionRewrite!.ms).toBeLessThan(REWRITE_TIMEOUT_MS + 400);
    // The word-by-word search still finds the refund article.
    expect(data.sources.map((s) => s.title)).toContain('Returns and refunds');
    const events = await eventsOf(data, 2);
    expect(events.find((e) => e.kind === 'rewrite')).toMatchObject({ status: 'error', errorCode: 'rewrite_timeout' });
  });

  it('an unusable rewrite (empty) leaves the question as asked', async () => {
    mock.configure({ rewrites: { [SPANISH_REFUND]: '   ' } });
    const data = await ask(SPANISH_REFUND, 'Spanish');
    expect(data.optimization.questionRewrite!.outcome).toBe('unusable');
    expect(data.sources.map((s) => s.title)).toContain('Returns and refunds');
  });

  it('in Analytics a rewrite is no request of its own, but its cost counts', async () => {
    const admin = await adminAgent(t);
    const events = await t.dataSource.getRepository(UsageEvent).find();
    const chats = events.filter((e) => e.kind === 'chat');
    expect(events.some((e) => e.kind === 'rewrite')).toBe(true);
    const res = await admin.get('/api/analytics/system?hours=1').expect(200);
    expect(res.body.data.totalRequests).toBe(chats.length);
    expect(res.body.data.totalCost).toBeCloseTo(events.reduce((sum, e) => sum + e.costUsd, 0), 6);
  });
});
