/**
 * A handoff across two servers on one Redis (and one database: Postgres with DATABASE_URL): a
 * visitor on server A asks for a person while a reply streams from the LLM; the reply stops; an
 * agent whose console is connected to server B sees it arrive in the inbox live, takes it and
 * replies; the visitor receives the reply live exactly once (on sockets of both servers); no
 * assistant reply (no provider call) follows any later visitor message until it is resolved.
 */
import { randomBytes } from 'node:crypto';
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { SESSION_COOKIE } from '../src/auth/cookies';
import { visitorKeyOf } from '../src/conversations/visitor-identity';
import { portableSql } from '../src/database/sql';
import type { ChatHumanPayload, InboxChangedPayload } from '../src/shared/contracts/handoff';
import type { AdminServerToClientEvents } from '../src/shared/contracts/socket';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { describeWith, NEEDS } from './support/requirements';
import { chatOverSocket, connectClient, distributed, eventually, newVisitorCookie, startTestApp, type ClientSocket, type TestApp, uniqueSchema } from './support/test-app';

const VERTICAL = 'customer-service';
const AGENT = { email: 'cluster-agent@example.com', name: 'Cleo Cluster', password: 'correct horse battery staple' };

describeWith([NEEDS.redisUrl], 'handoff across two servers', () => {
  let mock: MockLlmServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 120, delayMs: 25 });
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    a = await startTestApp({ databaseSchema: schema, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    b = await startTestApp({ databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    await a.app.get(AdminUsersService).create({ ...AGENT, role: 'agent' });
  }, 60_000);

  afterAll(async () => {
    await b?.close({ keepData: true });
    await a?.close();
    await mock?.close();
  });

  it('visitor on A asks for a person mid-reply; agent on B takes it and replies; the visitor gets it once; the assistant stays quiet until resolved', async () => {
    // The agent signs in on B; their console's socket is on B.
    const login = await request(b.url).post('/api/auth/login-password').send({ email: AGENT.email, password: AGENT.password }).expect(200);
    const session = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION_COOKIE}=`))!.split(';')[0];
    const agentOnB = request.agent(b.url);
    await agentOnB.post('/api/auth/login-password').send({ email: AGENT.email, password: AGENT.password }).expect(200);
    const console: Socket<AdminServerToClientEvents> = io(`${b.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { Cookie: session } });
    await new Promise<void>((resolve, reject) => {
      console.once('connect', () => resolve());
      console.once('connect_error', reject);
    });
    const inboxEvents: InboxChangedPayload[] = [];
    console.on('inbox:changed', (p) => inboxEvents.push(p));

    const cookie = await newVisitorCookie(a.url);
    const onA: ClientSocket = await connectClient(a.url, { cookie });
    const onB: ClientSocket = await connectClient(b.url, { cookie });
    const human: Record<'a' | 'b', ChatHumanPayload[]> = { a: [], b: [] };
    onA.on('chat:human', (p) => human.a.push(p));
    onB.on('chat:human', (p) => human.b.push(p));
    try {
      // A reply streams on A; the visitor asks for a person on A after its first frames.
      const deltas: string[] = [];
      onA.on('chat:delta', (p) => deltas.push(p.text));
      const ended = new Promise<{ code?: string; done?: boolean }>((resolve) => {
        onA.once('chat:done', () => resolve({ done: true }));
        onA.once('chat:error', (p) => resolve({ code: p.code }));
      });
      const ack = await onA.emitWithAck('chat:send', { requestId: 'streaming', vertical: VERTICAL, query: 'Tell me everything about returns' });
      expect(ack.accepted).toBe(true);
      await eventually(() => deltas.length >= 3, 10_000, 'the first frames');
      const asked = await request(a.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
      const conversationId = asked.body.data.conversationId;
      expect(await ended).toEqual({ code: 'cancelled' });
      const framesAtStop = deltas.length;
      // The mock would have sent 120 pieces; the stream stopped well before.
      expect(framesAtStop).toBeLessThan(60);

      // B's console hears of it live, and B's inbox has it.
      await eventually(() => inboxEvents.find((e) => e.conversationId === conversationId && e.event === 'requested'), 5000, 'inbox:changed on B');
      const inbox = (await agentOnB.get('/api/inbox').expect(200)).body.data;
      expect(inbox.waiting.map((i: { conversationId: string }) => i.conversationId)).toContain(conversationId);

      await agentOnB.post(`/api/inbox/${conversationId}/take`).send({}).expect(200);
      const typing = new Promise((resolve) => onA.once('chat:human-typing', resolve));
      await agentOnB.post(`/api/inbox/${conversationId}/typing`).send({ typing: true }).expect(200);
      await expect(typing).resolves.toMatchObject({ conversationId, typing: true, author: { name: AGENT.name } });
      await agentOnB.post(`/api/inbox/${conversationId}/messages`).send({ text: 'Hello from Cleo on server B' }).expect(201);
      await eventually(() => human.a.length >= 1 && human.b.length >= 1, 5000, 'chat:human on both sockets');
      // Nothing more arrives: exactly once on each socket.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(human.a).toEqual([{ conversationId, message: expect.objectContaining({ content: 'Hello from Cleo on server B', author: { name: AGENT.name } }) }]);
      expect(human.b).toHaveLength(1);
      expect(human.b[0].message.id).toBe(human.a[0].message.id);

      // Later visitor messages, on either server: no assistant reply, no provider call.
      const calls = mock.requests.length;
      for (const socket of [onA, onB]) {
        const quiet = await chatOverSocket(socket, { vertical: VERTICAL, query: 'Thanks, any news?' });
        expect(quiet.done).toMatchObject({ response: '', handoff: 'open' });
        expect(quiet.deltas).toEqual([]);
      }
      const viaRest = await request(b.url).post('/interact').set('Cookie', cookie).send({ vertical: VERTICAL, query: 'Hello?' }).expect(200);
      expect(viaRest.body.data).toMatchObject({ response: '', handoff: 'open' });
      expect(mock.requests.length).toBe(calls);
      const transcript = (await agentOnB.get(`/api/inbox/${conversationId}`).expect(200)).body.data.messages;
      expect(transcript.filter((m: { content: string }) => m.content === 'Thanks, any news?')).toHaveLength(2);

      // Resolved on B: the next message on A is answered by the assistant again.
      await agentOnB.post(`/api/inbox/${conversationId}/resolve`).send({}).expect(200);
      const back = await chatOverSocket(onA, { vertical: VERTICAL, query: 'One more question about returns' }, 30_000);
      expect(back.done?.response.length).toBeGreaterThan(0);
      expect(back.done?.handoff).toBeUndefined();
      expect(mock.requests.length).toBeGreaterThan(calls);
    } finally {
      onA.close();
      onB.close();
      console.close();
    }
  }, 90_000);

  it("a first message on A and a request for a person on B at the same moment: one conversation, the handoff holds, the bot's reply does not stand", async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      const secret = randomBytes(32).toString('base64url');
      const cookie = `sa_visitor=${secret}`;
      const socket = await connectClient(a.url, { cookie });
      try {
        // Half the rounds ask for a person first, half send the chat first, 0 to 27 ms apart (20 rounds stay
        // under the 30 requests for a person a minute allowed per address).
        const ask = () => request(b.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).then((res) => res);
        const send = () => chatOverSocket(socket, { vertical: VERTICAL, query: `Where is my parcel? (round ${round}) [mock:tokens=30;delay=10]` }, 30_000);
        const pause = () => new Promise((resolve) => setTimeout(resolve, (round * 3) % 30));
        const [asked, replied] =
          round % 2 === 0
            ? await (async () => {
                const first = ask();
                await pause();
                return Promise.all([first, send()]);
              })()
            : await (async () => {
                const first = send();
                await pause();
                return [await ask(), await first] as const;
              })();
        expect(asked.status).toBe(200);
        const rows: { id: string; handoff_state: string }[] = await a.dataSource.query(
          portableSql(a.dataSource, 'SELECT id, handoff_state FROM conversations WHERE visitor_key = $1'),
          [visitorKeyOf(secret)],
        );
        expect(rows).toEqual([{ id: asked.body.data.conversationId, handoff_state: 'waiting' }]);
        // The assistant's reply was stopped or never given: nothing it wrote stands as an answer.
        const answers: { content: string; status: string }[] = await a.dataSource.query(
          portableSql(a.dataSource, "SELECT content, status FROM conversation_messages WHERE conversation_id = $1 AND role = 'agent'"),
          [rows[0].id],
        );
        expect(answers.filter((m) => m.status === 'complete' && m.content !== '')).toEqual([]);
        outcomes.push(replied.error?.code ?? (replied.done?.handoff ? `quiet:${replied.done.handoff}` : 'answered'));
      } finally {
        socket.close();
      }
    }
    console.log(`handoff race, 20 rounds: the chat ended ${outcomes.join(', ')}`);
  }, 120_000);
});
