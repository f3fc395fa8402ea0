/**
 * Two servers on one Redis and one database: the Socket.IO Redis adapter joins them.
 * Needs REDIS_URL (and uses DATABASE_URL when set); .ci/run always sets both.
 */
import request from 'supertest';
import { ChatGateway } from '../src/chat/chat.gateway';
import type { ReplyData } from '../src/shared/contracts/chat';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, connectClient, distributed, eventually, newVisitorCookie, parseSse, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

// Without Redis there is nothing to join servers with; .ci/run sets REDIS_URL so this always runs in CI.
const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

describeWithRedis('two servers joined through Redis', () => {
  it('an event emitted on server A reaches a client of server B, and both answer chats from one database', async () => {
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    const a = await startTestApp({ databaseSchema: schema });
    const b = await startTestApp({ databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    const clientOfB = await connectClient(b.url);
    try {
      const received = new Promise<{ status: string; timestamp: string }>((resolve) => {
        clientOfB.on('health', (push) => {
          if (push.timestamp === '2030-01-01T00:00:00.000Z') resolve(push);
        });
      });
      a.app.get(ChatGateway).server.emit('health', { status: 'healthy', overallHealth: 'healthy', timestamp: '2030-01-01T00:00:00.000Z' });
      await expect(received).resolves.toMatchObject({ status: 'healthy' });

      const viaB = await chatOverSocket(clientOfB, { vertical: 'hr', query: 'How does parental leave work?' });
      expect(viaB.done?.sources.length).toBeGreaterThan(0);
      const viaA = await request(a.url).post('/interact').send({ vertical: 'hr', query: 'How does parental leave work?' }).expect(200);
      expect(viaA.body.data.sources[0].id).toBe(viaB.done!.sources[0].id);
    } finally {
      clientOfB.close();
      await b.close({ keepData: true });
      await a.close();
    }
  });
});

describeWithRedis('replies across two servers (Redis Streams)', () => {
  let mock: MockLlmServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 60, delayMs: 15 });
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    a = await startTestApp({ databaseSchema: schema, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    b = await startTestApp({ databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
  }, 60000);

  afterEach(() => mock.reset());

  afterAll(async () => {
    await b?.close({ keepData: true });
    await a?.close();
    await mock?.close();
  });

  /** Starts a slow reply on server A and returns its id with the frames A sent before the client left. */
  async function leaveMidReply(cookie: string, frames: number): Promise<{ replyId: string; seen: { seq: number; text: string }[] }> {
    const socket = await connectClient(a.url, { cookie });
    const seen: { seq: number; text: string }[] = [];
    let replyId = '';
    await new Promise<void>((resolve) => {
      socket.on('chat:delta', (p) => {
        seen.push({ seq: p.seq!, text: p.text });
        if (seen.length === frames) resolve();
      });
      socket.emit('chat:send', { requestId: 'on-a', vertical: 'hr', query: 'Tell me about parental leave' }, (ack) => {
        if (ack.accepted) replyId = ack.replyId!;
      });
    });
    socket.close();
    return { replyId, seen };
  }

  it('a reply started on server A is resumed on server B after the last frame the client had: the full reply, exactly once', async () => {
    const cookie = await newVisitorCookie(a.url);
    const { replyId, seen } = await leaveMidReply(cookie, 3);
    const onB = await connectClient(b.url, { cookie });
    try {
      const rest: { seq: number; text: string }[] = [];
      const done = new Promise<ReplyData>((resolve) => {
        onB.on('chat:delta', (p) => rest.push({ seq: p.seq!, text: p.text }));
        onB.on('chat:done', (p) => resolve(p.data));
      });
      const after = seen[seen.length - 1].seq;
      expect(await onB.emitWithAck('chat:resume', { requestId: 'on-b', replyId, after })).toEqual({ accepted: true });
      const data = await done;
      const all = [...seen, ...rest];
      expect(all.map((f) => f.seq)).toEqual(all.map((_, i) => i + 1));
      expect(all.map((f) => f.text).join('')).toBe(mock.requests[0].replyText);
      expect(data.response).toBe(mock.requests[0].replyText);
      // Live frames came after the backlog: more than what had been written when B joined.
      expect(rest.length).toBeGreaterThan(1);
      // Another visitor gets nothing from B either.
      const stranger = await connectClient(b.url, { cookie: await newVisitorCookie(b.url) });
      expect(await stranger.emitWithAck('chat:resume', { requestId: 'x', replyId, after: 0 })).toMatchObject({ accepted: false, error: { code: 'not_found' } });
      stranger.close();
    } finally {
      onB.close();
    }
  });

  it('server B resumes the reply as server-sent events from Last-Event-ID, and reads it by id', async () => {
    const cookie = await newVisitorCookie(a.url);
    const { replyId, seen } = await leaveMidReply(cookie, 2);
    const res = await fetch(`${b.url}/interact/replies/${replyId}/stream`, { headers: { Cookie: cookie, 'Last-Event-ID': String(seen.length) } });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const frames = parseSse(await res.text());
    expect(frames.map((f) => Number(f.id))).toEqual(frames.map((_, i) => seen.length + i + 1));
    const text = seen.map((f) => f.text).join('') + frames.filter((f) => f.event === 'chat:delta').map((f) => f.data.text).join('');
    expect(text).toBe(mock.requests[0].replyText);
    const status = await request(b.url).get(`/interact/replies/${replyId}`).set('Cookie', cookie).expect(200);
    expect(status.body.data).toMatchObject({ status: 'complete', text: mock.requests[0].replyText });
  });

  it('a stop sent to server B stops the reply running on server A', async () => {
    const cookie = await newVisitorCookie(a.url);
    const { replyId } = await leaveMidReply(cookie, 1);
    const [record] = await mock.waitForRequests(1);
    await request(b.url).post(`/interact/replies/${replyId}/cancel`).set('Cookie', cookie).expect(200);
    const closed = await mock.waitForClose(record, 5000);
    expect(closed.completed).toBe(false);
    const stopped = await eventually(async () => {
      const res = await request(b.url).get(`/interact/replies/${replyId}`).set('Cookie', cookie);
      return res.body.data?.status === 'stopped' && res.body.data;
    }, 5000, 'the stopped reply');
    expect(stopped.error.code).toBe('cancelled');
    // Someone else cannot stop anything.
    await request(b.url).post(`/interact/replies/${replyId}/cancel`).set('Cookie', await newVisitorCookie(b.url)).expect(404);
  });
});
