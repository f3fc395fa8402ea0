/**
 * Fault matrix: `kill -9` of the server writing replies. Two app processes
 * on one Redis and PostgreSQL, the mock LLM streaming slowly. Server A is killed with SIGKILL
 * mid-reply; within a few seconds B takes its replies over (A's heartbeat expired, B won the claim)
 * and asks them again from the turn stored with the stream: each visitor ends with one complete
 * reply, equal to the provider's, over the socket (`chat:resume` on B) and over SSE
 * (Last-Event-ID on B), and a reply nobody followed is complete at GET /interact/replies/{id}.
 * Its usage event and its conversation message are written once.
 *
 * Uses REDIS_URL / DATABASE_URL when set (own schema and key prefix), otherwise Redis and
 * PostgreSQL instances of its own.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/app-config';
import { openDataSource } from '../../src/database/data-source';
import { MockLlmServer, startMockLlmServer } from '../support/mock-llm-server';
import { ClientSocket, connectClient, eventually, parseSse } from '../support/test-app';
import { Redis } from 'ioredis';
import { ServerProcess, startServerProcess } from './support/server-process';
import { SharedServices, sharedServices } from './support/shared-services';
import { describeWith, NEEDS } from '../support/requirements';

/** 80 pieces 40 ms apart: a reply streams for about 3 s. */
const TOKENS = 80;
const QUESTION = (n: string) => `Tell me about returns (${n}) [mock:tokens=${TOKENS};delay=40]`;
const FULL_REPLY = Array.from({ length: TOKENS }, (_, i) => `${i ? ' ' : ''}tok${i}`).join('');

function visitorCookie(): string {
  return `sa_visitor=${randomBytes(32).toString('base64url')}`;
}


/** What a client shows of a reply: deltas appended, a restart empties it (as the chat page does). */
class Shown {
  text = '';
  restarts = 0;
  lastSeq = 0;
  attempt = 0;
  deltasAfterRestart = 0;
  frame(kind: string, seq: number | undefined, text?: string, attempt?: number): boolean {
    if (kind === 'chat:restart' && attempt !== undefined && attempt > this.attempt) {
      // A newer takeover's restart applies whatever its seq (the client may hold a stalled server's frames).
      this.attempt = attempt;
      if (seq !== undefined) this.lastSeq = seq;
      this.text = '';
      this.restarts += 1;
      this.deltasAfterRestart = 0;
      return true;
    }
    if (seq !== undefined) {
      if (seq <= this.lastSeq) return false;
      this.lastSeq = seq;
    }
    if (kind === 'chat:restart') {
      this.text = '';
      this.restarts += 1;
      this.deltasAfterRestart = 0;
    } else if (kind === 'chat:delta') {
      this.text += text ?? '';
      this.deltasAfterRestart += 1;
    }
    return true;
  }
}

/** Reads an SSE response as it arrives, handing each event over; resolves when the body ends or breaks. */
async function readSse(response: Response, onEvent: (e: { event: string; data: any; id?: string }) => void): Promise<void> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const cut = buffer.lastIndexOf('\n\n');
      if (cut < 0) continue;
      for (const e of parseSse(buffer.slice(0, cut + 2))) onEvent(e);
      buffer = buffer.slice(cut + 2);
    }
  } catch {
    // the server was killed: the body breaks
  }
}

describeWith([NEEDS.sharedServices], 'kill -9 of the server writing replies: another takes them over', () => {
  let mock: MockLlmServer;
  let services: SharedServices;
  let dataDir: string;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  const sockets: ClientSocket[] = [];
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    mock = await startMockLlmServer();
    services = await sharedServices();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-takeover-'));
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: services.databaseUrl,
      DATABASE_SCHEMA: services.schema,
      REDIS_URL: services.redisUrl,
      REDIS_PREFIX: `to${randomBytes(4).toString('hex')}`,
      OPENAI_API_KEY: 'sk-takeover',
      OPENAI_BASE_URL: mock.openaiBaseUrl,
    };
    // One after the other: the first creates the schema.
    a = await startServerProcess(env, 120_000);
    b = await startServerProcess(env, 120_000);
  }, 300_000);

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    a?.kill();
    b?.kill();
    await Promise.all([a?.exited, b?.exited]);
    await mock?.close();
    await services?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('a socket resumed on B, an SSE stream resumed on B with Last-Event-ID and a reply nobody follows each end with the provider\'s full reply exactly once; usage and message written once', async () => {
    const serverA = a!;
    const serverB = b!;

    // 1. A socket visitor streams from A.
    const socketCookie = visitorCookie();
    const onA = await connectClient(serverA.url, { cookie: socketCookie });
    sockets.push(onA);
    const socketShown = new Shown();
    let socketReplyId = '';
    onA.on('chat:delta', (p) => p.requestId === 'ask-1' && socketShown.frame('chat:delta', p.seq, p.text));
    const acked = new Promise<void>((resolve, reject) =>
      onA.emit('chat:send', { requestId: 'ask-1', vertical: 'customer-service', query: QUESTION('socket') }, (ack) => {
        if (!ack.accepted) return reject(new Error(JSON.stringify(ack)));
        socketReplyId = ack.replyId!;
        resolve();
      }),
    );

    // 2. An SSE caller streams from A.
    const sseCookie = visitorCookie();
    const sseShown = new Shown();
    let sseReplyId = '';
    const sseResponse = await fetch(`${serverA.url}/interact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', cookie: sseCookie },
      body: JSON.stringify({ vertical: 'hr', query: QUESTION('sse') }),
    });
    expect(sseResponse.status).toBe(200);
    const sseRead = readSse(sseResponse, (e) => {
      if (e.event === 'chat:start') sseReplyId = e.data.replyId;
      else sseShown.frame(e.event, e.id === undefined ? undefined : Number(e.id), e.data.text);
    });

    // 3. A caller that only learns the reply id and then goes away (nobody follows the reply).
    const lonelyCookie = visitorCookie();
    const lonelyController = new AbortController();
    const lonely = await fetch(`${serverA.url}/interact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', cookie: lonelyCookie },
      body: JSON.stringify({ vertical: 'sales', query: QUESTION('lonely') }),
      signal: lonelyController.signal,
    });
    const lonelyReader = lonely.body!.getReader();
    const firstChunk = new TextDecoder().decode((await lonelyReader.read()).value);
    const lonelyReplyId = /"replyId":"([^"]+)"/.exec(firstChunk)![1];
    lonelyController.abort();

    await acked;
    // A has written part of each reply: kill -9.
    await eventually(() => socketShown.lastSeq >= 5 && sseShown.lastSeq >= 5, 20_000, 'the first frames from A');
    const killedAt = Date.now();
    serverA.kill('SIGKILL');
    await serverA.exited;
    await sseRead;
    const socketPartial = socketShown.text;
    expect(socketPartial.length).toBeGreaterThan(0);
    expect(FULL_REPLY.startsWith(socketPartial)).toBe(true);

    // The socket visitor reconnects to B and resumes after the last frame it has.
    const onB = await connectClient(serverB.url, { cookie: socketCookie });
    sockets.push(onB);
    let socketDone: { response: string; replyId?: string } | undefined;
    let socketError: { code: string } | undefined;
    let socketEndedAt = 0;
    onB.on('chat:restart', (p) => p.requestId === 'ask-1-again' && socketShown.frame('chat:restart', p.seq, undefined, p.attempt));
    onB.on('chat:delta', (p) => p.requestId === 'ask-1-again' && socketShown.frame('chat:delta', p.seq, p.text));
    onB.on('chat:done', (p) => {
      if (p.requestId !== 'ask-1-again' || !socketShown.frame('chat:done', p.seq)) return;
      socketDone = p.data;
      socketEndedAt = Date.now();
    });
    onB.on('chat:error', (p) => p.requestId === 'ask-1-again' && (socketError = p));
    expect(await onB.emitWithAck('chat:resume', { requestId: 'ask-1-again', replyId: socketReplyId, after: socketShown.lastSeq })).toEqual({ accepted: true });

    // The SSE caller resumes on B with Last-Event-ID.
    let sseDone: { response: string } | undefined;
    let sseEndedAt = 0;
    const resumed = await fetch(`${serverB.url}/interact/replies/${sseReplyId}/stream`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(sseShown.lastSeq), cookie: sseCookie },
    });
    expect(resumed.status).toBe(200);
    const sseEvents: string[] = [];
    await readSse(resumed, (e) => {
      sseEvents.push(e.event);
      if (!sseShown.frame(e.event, e.id === undefined ? undefined : Number(e.id), e.data.text, e.data.attempt)) return;
      if (e.event === 'chat:done') {
        sseDone = e.data.data;
        sseEndedAt = Date.now();
      }
    });

    await eventually(() => socketDone ?? socketError, 30_000, 'the socket reply to end on B');
    const after = (at: number) => (at ? `${((at - killedAt) / 1000).toFixed(1)} s` : 'never');
    console.log(
      `takeover after kill -9: socket reply complete ${after(socketEndedAt)} after the kill, ` +
        `SSE reply ${after(sseEndedAt)} (the reply itself streams ~${(TOKENS * 40) / 1000} s); ` +
        `the socket had ${socketPartial.split(' ').length}/${TOKENS} words from A`,
    );
    expect(socketError).toBeUndefined();
    expect(socketDone!.response).toBe(FULL_REPLY);
    expect(socketShown.restarts).toBe(1);
    expect(socketShown.text).toBe(FULL_REPLY);

    expect(sseEvents[sseEvents.length - 1]).toBe('chat:done');
    expect(sseDone!.response).toBe(FULL_REPLY);
    expect(sseShown.restarts).toBe(1);
    expect(sseShown.text).toBe(FULL_REPLY);

    // The reply nobody followed was taken over too (by B's sweep): complete at GET /interact/replies/{id}.
    const lonelyStatus = await eventually(
      async () => {
        const res = await fetch(`${serverB.url}/interact/replies/${lonelyReplyId}`, { headers: { cookie: lonelyCookie } });
        const body = (await res.json()) as { data?: { status: string; text: string } };
        return body.data?.status === 'streaming' ? undefined : body.data;
      },
      30_000,
      'the unfollowed reply to end',
    );
    expect(lonelyStatus).toMatchObject({ status: 'complete', text: FULL_REPLY });

    // The regenerated reply was asked with the same prompt (the question once, the same history).
    for (const tag of ['socket', 'sse', 'lonely']) {
      const asked = mock.requests.filter((r) => r.kind === 'chat' && JSON.stringify(r.messages).includes(`(${tag})`));
      expect(asked).toHaveLength(2);
      expect(JSON.stringify(asked[1].messages)).toBe(JSON.stringify(asked[0].messages));
    }

    // One usage event per reply (a success), and one stored reply with the full text.
    const ds = await openDataSource(loadConfig({}, { dataDir, databaseUrl: services.databaseUrl, databaseSchema: services.schema }));
    try {
      const ids = [socketReplyId, sseReplyId, lonelyReplyId];
      await eventually(async () => {
        const rows: { id: string }[] = await ds.query(`SELECT id FROM conversation_messages WHERE status = 'complete' AND id IN ($1, $2, $3)`, ids);
        return rows.length === 3;
      }, 10_000, 'the replies stored');
      const usage: { id: string; status: string }[] = await ds.query(`SELECT id, status FROM usage_events WHERE kind = 'chat' AND id IN ($1, $2, $3)`, ids);
      expect(usage.map((u) => u.status).sort()).toEqual(['success', 'success', 'success']);
      const messages: { id: string; role: string; content: string; conversation_id: string }[] = await ds.query(
        `SELECT m.id, m.role, m.content, m.conversation_id FROM conversation_messages m
          WHERE m.conversation_id IN (SELECT conversation_id FROM conversation_messages WHERE id IN ($1, $2, $3))
          ORDER BY m.seq`,
        ids,
      );
      for (const id of ids) {
        const conversation = messages.filter((m) => m.conversation_id === messages.find((x) => x.id === id)!.conversation_id);
        expect(conversation.map((m) => m.role)).toEqual(['user', 'agent']);
        expect(conversation[1].content).toBe(FULL_REPLY);
      }
      const counts: { message_count: string | number }[] = await ds.query(
        `SELECT message_count FROM conversations WHERE id IN (SELECT conversation_id FROM conversation_messages WHERE id IN ($1, $2, $3))`,
        ids,
      );
      expect(counts.map((c) => Number(c.message_count))).toEqual([2, 2, 2]);
    } finally {
      await ds.destroy();
    }
  }, 120_000);

  it('a server that stalls (SIGSTOP) past its heartbeat mid-reply: B takes the reply over; when it wakes it gives the reply up and its socket follows B: the full reply exactly once, usage and message once', async () => {
    const serverB = b!;
    // The model answers this question differently each time: the visitor must end with the taker's
    // version, the one stored, not the stalled server's.
    const versions = ['first', 'second'].map((v) => Array.from({ length: TOKENS }, (_, i) => `${i ? ' ' : ''}${v}${i}`).join(''));
    let asked = 0;
    mock.configure({ reply: (r) => (JSON.stringify(r.body ?? '').includes('(stalled)') ? versions[Math.min(asked++, 1)] : FULL_REPLY) });
    const stalled = await startServerProcess(env, 120_000);
    const redis = new Redis(services.redisUrl);
    try {
      const cookie = visitorCookie();
      const socket = await connectClient(stalled.url, { cookie });
      sockets.push(socket);
      const shown = new Shown();
      let done: { response: string } | undefined;
      let error: { code: string } | undefined;
      socket.on('chat:delta', (p) => p.requestId === 'st-1' && shown.frame('chat:delta', p.seq, p.text));
      socket.on('chat:restart', (p) => p.requestId === 'st-1' && shown.frame('chat:restart', p.seq, undefined, p.attempt));
      socket.on('chat:done', (p) => p.requestId === 'st-1' && shown.frame('chat:done', p.seq) && (done = p.data));
      socket.on('chat:error', (p) => p.requestId === 'st-1' && (error = p));
      const ack = await socket.emitWithAck('chat:send', { requestId: 'st-1', vertical: 'customer-service', query: QUESTION('stalled') });
      expect(ack.accepted).toBe(true);
      const replyId = (ack as { replyId: string }).replyId;
      await eventually(() => shown.lastSeq >= 5, 20_000, 'the first frames');
      stalled.child.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // B's sweep finds the stalled server's heartbeat gone and takes the reply over (restart frame in the stream).
      await eventually(
        async () => ((await redis.xrange(`${env.REDIS_PREFIX}:reply:${replyId}`, '-', '+')) as [string, string[]][]).some(([, f]) => f[1] === 'restart'),
        30_000,
        'B to take the reply over',
      );
      const takenAfter = Date.now() - stoppedAt;
      stalled.child.kill('SIGCONT');
      await eventually(() => done ?? error, 30_000, 'the reply to end');
      console.log(`stalled server (SIGSTOP): taken over by B ${(takenAfter / 1000).toFixed(1)} s after the stop; the socket on the woken server ended with ${done ? 'chat:done' : error?.code}`);
      expect(error).toBeUndefined();
      expect(asked).toBe(2);
      expect(done!.response).toBe(versions[1]);
      expect(shown.restarts).toBe(1);
      expect(shown.text).toBe(versions[1]);
      expect(stalled.output()).toMatch(/taken over by another server/);

      const ds = await openDataSource(loadConfig({}, { dataDir, databaseUrl: services.databaseUrl, databaseSchema: services.schema }));
      try {
        const stored = await eventually(async () => {
          const rows: { content: string; status: string; conversation_id: string }[] = await ds.query(`SELECT content, status, conversation_id FROM conversation_messages WHERE id = $1`, [replyId]);
          return rows[0]?.status === 'complete' ? rows[0] : undefined;
        }, 10_000, 'the reply stored');
        expect(stored.content).toBe(versions[1]);
        const messages: { role: string }[] = await ds.query(`SELECT role FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq`, [stored.conversation_id]);
        expect(messages.map((m) => m.role)).toEqual(['user', 'agent']);
        const usage: { status: string }[] = await ds.query(`SELECT status FROM usage_events WHERE kind = 'chat' AND id = $1`, [replyId]);
        expect(usage.map((u) => u.status)).toEqual(['success']);
      } finally {
        await ds.destroy();
      }
      // B is still answering.
      expect((await fetch(`${serverB.url}/health`)).status).toBe(200);
    } finally {
      mock.reset();
      stalled.child.kill('SIGCONT');
      stalled.kill();
      await stalled.exited;
      redis.disconnect();
    }
  }, 120_000);
});
