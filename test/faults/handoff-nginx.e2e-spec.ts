/**
 * Issue 29's cluster acceptance for real: two app processes on one Redis and PostgreSQL behind
 * nginx (`npm run cluster`, deploy/cluster.ts). A visitor connected through nginx (sticky on the
 * visitor cookie: their server is "A", read from nginx's access log) asks for a person while a
 * reply streams from the mock LLM; the reply stops; an agent (invited through the team API) whose
 * console socket is connected to the other server "B" directly sees it arrive in the inbox, takes
 * it and replies; the visitor receives `chat:human` live exactly once; no assistant reply (no
 * provider call) follows later visitor messages until it is resolved; after that the assistant
 * answers again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { io, Socket } from 'socket.io-client';
import type { ChatHumanPayload, InboxChangedPayload } from '../../src/shared/contracts/handoff';
import type { AdminServerToClientEvents } from '../../src/shared/contracts/socket';
import { MockLlmServer, startMockLlmServer } from '../support/mock-llm-server';
import { invitationLink, tokenOf } from '../support/outbox-mail';
import { describeWith, NEEDS } from '../support/requirements';
import { chatOverSocket, connectClient, eventually, type ClientSocket } from '../support/test-app';
import { ClusterProcess, liftChatLimits, startCluster, tearDownCluster } from './support/cluster-process';
import { SharedServices, sharedServices } from './support/shared-services';

const VERTICAL = 'customer-service';
const ADMIN = { email: 'handoff-nginx-admin@example.com', password: 'a long enough cluster test password' };
const AGENT = { email: 'handoff-nginx-agent@example.com', name: 'Nina Nginx', password: 'nina agent password' };

/** A visitor cookie of our own making (the format the server accepts: 43 base64url characters). */
function visitorCookie(): string {
  return `sa_visitor=${randomBytes(32).toString('base64url')}`;
}

/** A fetch with a cookie jar of one session (JSON in, {status, body} out). */
async function call(url: string, method: string, cookie: string, body?: unknown): Promise<{ status: number; body: any; setCookie: string[] }> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), cookie, origin: new URL(url).origin },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, setCookie: res.headers.getSetCookie?.() ?? [] };
}

async function signIn(url: string, email: string, password: string): Promise<string> {
  const res = await call(`${url}/api/auth/login-password`, 'POST', '', { email, password });
  if (res.status !== 200) throw new Error(`sign-in as ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.setCookie.map((c) => c.split(';')[0]).join('; ');
}

/** The app (its port) nginx routed the request whose line contains `marker` to. */
function upstreamOf(dir: string, marker: string): string | undefined {
  const file = path.join(dir, 'nginx', 'access.log');
  if (!fs.existsSync(file)) return undefined;
  const line = fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes(marker));
  return line ? /upstream=(\S+)/.exec(line)?.[1].replace(/,$/, '') : undefined;
}

describeWith([NEEDS.nginx, NEEDS.sharedServices], 'handoff on two servers behind nginx', () => {
  let mock: MockLlmServer;
  let backing: SharedServices;
  let dir: string;
  let cluster: ClusterProcess | undefined;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 160, delayMs: 30 });
    backing = await sharedServices();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-handoff-nginx-'));
    cluster = await startCluster({
      apps: 2,
      dir,
      source: process.env.FAULTS_FROM_DIST !== '1',
      env: {
        DATABASE_URL: backing.databaseUrl,
        DATABASE_SCHEMA: backing.schema,
        REDIS_URL: backing.redisUrl,
        REDIS_PREFIX: `hn${randomBytes(4).toString('hex')}`,
        OPENAI_API_KEY: 'sk-cluster',
        OPENAI_BASE_URL: mock.openaiBaseUrl,
        SHUTDOWN_GRACE_MS: '3000',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
    });
    await liftChatLimits(cluster.state.url, ADMIN.email, ADMIN.password);
  }, 240_000);

  afterAll(async () => {
    await tearDownCluster({ cluster, dir, others: [mock, backing] });
  }, 60_000);

  it('a visitor through nginx on A asks for a person mid-reply; an agent on B takes it and replies; chat:human arrives once; the bot is quiet until resolved', async () => {
    const { url, apps } = cluster!.state;

    // The agent: invited by the admin, accepts, signs in on the server the visitor is not on.
    const admin = await signIn(url, ADMIN.email, ADMIN.password);
    expect((await call(`${url}/api/team/invitations`, 'POST', admin, { email: AGENT.email, role: 'agent' })).status).toBe(201);
    const link = await invitationLink(path.join(dir, 'app'), AGENT.email, 1, 10_000);
    expect((await call(`${url}/api/team/invitations/${tokenOf(link)}/accept`, 'POST', '', { name: AGENT.name, password: AGENT.password })).status).toBe(200);

    // The visitor's server: a marked request with their cookie, found in nginx's access log.
    const cookie = visitorCookie();
    const marker = `probe${randomBytes(6).toString('hex')}`;
    await call(`${url}/api/visitor/conversations?${marker}=1`, 'GET', cookie);
    const upstream = await eventually(() => upstreamOf(dir, marker), 10_000, "the probe in nginx's access log");
    const a = apps.find((app) => upstream === `127.0.0.1:${app.port}`)!;
    const b = apps.find((app) => app !== a)!;
    expect(a).toBeDefined();

    const agent = await signIn(b.url, AGENT.email, AGENT.password);
    const consoleOnB: Socket<AdminServerToClientEvents> = io(`${b.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie: agent } });
    await new Promise<void>((resolve, reject) => {
      consoleOnB.once('connect', () => resolve());
      consoleOnB.once('connect_error', reject);
    });
    const inboxEvents: InboxChangedPayload[] = [];
    consoleOnB.on('inbox:changed', (p) => inboxEvents.push(p));

    const visitor: ClientSocket = await connectClient(url, { cookie });
    const human: ChatHumanPayload[] = [];
    visitor.on('chat:human', (p) => human.push(p));
    try {
      // A reply streams (160 pieces, 30 ms apart); the visitor asks for a person after a few.
      const deltas: string[] = [];
      visitor.on('chat:delta', (p) => p.requestId === 'streaming' && deltas.push(p.text));
      const ended = new Promise<{ code?: string; done?: boolean }>((resolve) => {
        visitor.on('chat:done', (p) => p.requestId === 'streaming' && resolve({ done: true }));
        visitor.on('chat:error', (p) => p.requestId === 'streaming' && resolve({ code: p.code }));
      });
      const ack = await visitor.emitWithAck('chat:send', { requestId: 'streaming', vertical: VERTICAL, query: 'Tell me everything about returns' });
      expect(ack.accepted).toBe(true);
      await eventually(() => deltas.length >= 3, 15_000, 'the first frames');
      const asked = await call(`${url}/api/visitor/conversations/handoff`, 'POST', cookie, { vertical: VERTICAL });
      expect(asked.status).toBe(200);
      const conversationId: string = asked.body.data.conversationId;
      expect(await ended).toEqual({ code: 'cancelled' });
      expect(deltas.length).toBeLessThan(80);
      // The provider call was cut off too (not left running to its end).
      const streamed = mock.requests.find((r) => r.kind === 'chat' && JSON.stringify(r.messages).includes('Tell me everything about returns'))!;
      expect((await mock.waitForClose(streamed, 10_000)).completed).toBe(false);

      // B's console hears of it live; B's inbox lists it waiting.
      await eventually(() => inboxEvents.find((e) => e.conversationId === conversationId && e.event === 'requested'), 10_000, 'inbox:changed on B');
      const inbox = await call(`${b.url}/api/inbox`, 'GET', agent);
      expect(inbox.status).toBe(200);
      expect(inbox.body.data.waiting.map((i: { conversationId: string }) => i.conversationId)).toContain(conversationId);

      expect((await call(`${b.url}/api/inbox/${conversationId}/take`, 'POST', agent, {})).status).toBe(200);
      expect((await call(`${b.url}/api/inbox/${conversationId}/messages`, 'POST', agent, { text: 'Hello from Nina on server B' })).status).toBe(201);
      await eventually(() => human.length >= 1, 10_000, 'chat:human through nginx');
      // Nothing more arrives: exactly once.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(human).toEqual([{ conversationId, message: expect.objectContaining({ content: 'Hello from Nina on server B', author: { name: AGENT.name } }) }]);

      // Later visitor messages through nginx: no assistant reply, no provider call.
      const calls = mock.requests.length;
      const quiet = await chatOverSocket(visitor, { vertical: VERTICAL, query: 'Thanks, any news?' });
      expect(quiet.done).toMatchObject({ response: '', handoff: 'open' });
      expect(quiet.deltas).toEqual([]);
      const viaRest = await call(`${url}/interact`, 'POST', cookie, { vertical: VERTICAL, query: 'Hello?' });
      expect(viaRest.body.data).toMatchObject({ response: '', handoff: 'open' });
      expect(mock.requests.length).toBe(calls);
      const transcript = await call(`${b.url}/api/inbox/${conversationId}`, 'GET', agent);
      expect(transcript.body.data.messages.map((m: { content: string }) => m.content)).toEqual(expect.arrayContaining(['Thanks, any news?', 'Hello?', 'Hello from Nina on server B']));
      expect(human).toHaveLength(1);

      // Resolved on B: the next message through nginx is answered by the assistant again.
      expect((await call(`${b.url}/api/inbox/${conversationId}/resolve`, 'POST', agent, {})).status).toBe(200);
      const back = await chatOverSocket(visitor, { vertical: VERTICAL, query: 'One more question about returns [mock:tokens=5]' }, 30_000);
      expect(back.done?.response.length).toBeGreaterThan(0);
      expect(back.done?.handoff).toBeUndefined();
      expect(mock.requests.length).toBeGreaterThan(calls);
      console.log(`handoff behind nginx: visitor on ${a.name}, agent on ${b.name}; the streaming reply stopped after ${deltas.length} of 160 pieces`);
    } finally {
      visitor.close();
      consoleOnB.close();
    }
  }, 120_000);
});
