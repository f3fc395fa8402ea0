/**
 * The chat rate limits over REST, SSE and the socket: per IP, per visitor, per socket,
 * per API key, concurrent replies per visitor and sockets per IP. A second client address
 * (127.0.0.2, bound as the client socket's local address) is not affected by the first's limit,
 * and a forged X-Forwarded-For from an untrusted peer changes nothing. Refused requests are counted
 * in Analytics.
 */
import * as http from 'node:http';
import { io } from 'socket.io-client';
import type { ChatLimits } from '../src/shared/contracts/limits';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { chatOverSocket, ClientSocket, connectClient, eventually, newVisitorCookie, startTestApp, TestApp } from './support/test-app';
import { ChatService } from '../src/chat/chat.service';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any;
}

/** POST /interact from a chosen local address (127.0.0.1 or 127.0.0.2). */
function interact(t: TestApp, options: { from?: string; headers?: Record<string, string>; sse?: boolean; query?: string } = {}): Promise<Reply> {
  const url = new URL(`${t.url}/interact`);
  const payload = JSON.stringify({ query: options.query ?? 'How do I reset my password?', vertical: 'customer-service' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: options.from ?? '127.0.0.1',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(options.sse ? { accept: 'text/event-stream' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A socket from a chosen local address; resolves with the socket, or the connect_error's data. */
function connectFrom(t: TestApp, from: string, headers: Record<string, string> = {}): Promise<{ socket?: ClientSocket; refused?: { code: string; retryAfter?: number; message: string } }> {
  return new Promise((resolve) => {
    const socket: ClientSocket = io(t.url, { transports: ['websocket'], reconnection: false, forceNew: true, localAddress: from, extraHeaders: headers } as never);
    socket.once('connect', () => resolve({ socket }));
    socket.once('connect_error', (error: Error & { data?: { code: string; retryAfter?: number; message: string } }) => {
      socket.close();
      resolve({ refused: error.data ?? { code: error.message, message: error.message } });
    });
  });
}

async function setLimits(admin: AdminAgent, chatLimits: Partial<ChatLimits>): Promise<void> {
  await admin.put('/api/config/global').send({ chatLimits }).expect(200);
}

const ASK = { query: 'How do I reset my password?', vertical: 'customer-service' as const };

describe('chat rate limits', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({}, { chatLimits: 'defaults' });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t.close();
  });

  // Each test starts from generous limits, then lowers the one it checks (the counters of earlier
  // tests stay: each test uses its own visitors, and the IP tests come from fresh windows of limits).
  beforeEach(async () => {
    await setLimits(admin, { ipPerMinute: 1000, ipPerHour: 10_000, visitorPerMinute: 1000, visitorPerHour: 10_000, socketPerMinute: 1000, keyPerMinute: 1000, keyPerHour: 10_000, concurrentPerVisitor: 2, socketsPerIp: 1000 });
  });

  it('has defaults a real site can live with, editable in the global settings', async () => {
    const fresh = await startTestApp({}, { chatLimits: 'defaults' });
    try {
      const a = await adminAgent(fresh);
      const global = (await a.get('/api/config').expect(200)).body.data.global;
      expect(global.chatLimits).toEqual({ ipPerMinute: 60, ipPerHour: 600, visitorPerMinute: 10, visitorPerHour: 100, socketPerMinute: 10, keyPerMinute: 120, keyPerHour: 2000, concurrentPerVisitor: 2, socketsPerIp: 50 });
      const res = await a.put('/api/config/global').send({ chatLimits: { visitorPerMinute: 0 } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Messages per minute per visitor must be a whole number from 1 to 100,000');
      const saved = (await a.put('/api/config/global').send({ chatLimits: { visitorPerMinute: 5 } }).expect(200)).body.data;
      expect(saved.chatLimits.visitorPerMinute).toBe(5);
      expect(saved.chatLimits.visitorPerHour).toBe(100);
    } finally {
      await fresh.close();
    }
  });

  it('per IP over REST: 429 with Retry-After; 127.0.0.2 is not affected; a forged X-Forwarded-For changes nothing', async () => {
    await setLimits(admin, { ipPerMinute: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await interact(t)).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await interact(t);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryAfter: Number(refused.headers['retry-after']) });
    // Forged forwarding headers from an untrusted peer (TRUST_PROXY unset): still this IP.
    expect((await interact(t, { headers: { 'X-Forwarded-For': '203.0.113.9' } })).status).toBe(429);
    expect((await interact(t, { headers: { 'X-Forwarded-For': '203.0.113.10, 198.51.100.7' } })).status).toBe(429);
    // Another client address is its own client.
    expect((await interact(t, { from: '127.0.0.2' })).status).toBe(200);
  });

  it('per IP over SSE: the same 429 with Retry-After as JSON before any event', async () => {
    await setLimits(admin, { ipPerMinute: 2 });
    const first = await interact(t, { sse: true, from: '127.0.0.3' });
    expect(first.status).toBe(200);
    expect(first.text).toContain('event: chat:done');
    expect((await interact(t, { sse: true, from: '127.0.0.3' })).status).toBe(200);
    const refused = await interact(t, { sse: true, from: '127.0.0.3', headers: { 'X-Forwarded-For': '203.0.113.11' } });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/application\/json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.error.code).toBe('rate_limited');
    expect((await interact(t, { sse: true, from: '127.0.0.4' })).status).toBe(200);
  });

  it('per visitor over REST and SSE: the visitor cookie is counted across both; another visitor is not', async () => {
    await setLimits(admin, { visitorPerMinute: 2 });
    const cookie = await newVisitorCookie(t.url);
    expect((await interact(t, { headers: { cookie } })).status).toBe(200);
    expect((await interact(t, { headers: { cookie }, sse: true })).status).toBe(200);
    const refused = await interact(t, { headers: { cookie } });
    expect(refused.status).toBe(429);
    expect(refused.body.error.retryAfter).toBeGreaterThan(0);
    expect((await interact(t, { headers: { cookie }, sse: true })).status).toBe(429);
    const other = await newVisitorCookie(t.url);
    expect((await interact(t, { headers: { cookie: other } })).status).toBe(200);
  });

  it('per API key on /interact: X-API-Key and Bearer count for the same key; another key is not affected', async () => {
    const issue = async (name: string) => (await admin.post('/api/api-keys').send({ name, scopes: ['chat'] }).expect(201)).body.data.key as string;
    const [one, two] = [await issue('client one'), await issue('client two')];
    await setLimits(admin, { keyPerMinute: 2 });
    expect((await interact(t, { headers: { 'X-API-Key': one } })).status).toBe(200);
    expect((await interact(t, { headers: { Authorization: `Bearer ${one}` } })).status).toBe(200);
    const refused = await interact(t, { headers: { 'X-API-Key': one } });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await interact(t, { headers: { 'X-API-Key': two } })).status).toBe(200);
  });

  it('per socket and per IP on the socket: chat:error rate_limited with retryAfter; 127.0.0.2 is not affected', async () => {
    await setLimits(admin, { socketPerMinute: 2 });
    const socket = await connectClient(t.url);
    try {
      expect((await chatOverSocket(socket, ASK)).done).toBeDefined();
      expect((await chatOverSocket(socket, ASK)).done).toBeDefined();
      const errors: { code: string; retryAfter?: number; requestId: string }[] = [];
      socket.on('chat:error', (e) => errors.push(e));
      const refused = await chatOverSocket(socket, { ...ASK, requestId: 'third' });
      expect(refused.ack).toMatchObject({ accepted: false, error: { code: 'rate_limited' } });
      expect(errors).toEqual([expect.objectContaining({ requestId: 'third', code: 'rate_limited', retryAfter: expect.any(Number) })]);
      expect(errors[0].retryAfter).toBeGreaterThanOrEqual(1);
      expect(errors[0].retryAfter).toBeLessThanOrEqual(60);
    } finally {
      socket.close();
    }

    await setLimits(admin, { socketPerMinute: 1000, ipPerMinute: 2 });
    const a = await connectFrom(t, '127.0.0.5', { 'X-Forwarded-For': '203.0.113.12' });
    const b = await connectFrom(t, '127.0.0.6');
    try {
      expect((await chatOverSocket(a.socket!, ASK)).done).toBeDefined();
      expect((await chatOverSocket(a.socket!, ASK)).done).toBeDefined();
      const refused = await chatOverSocket(a.socket!, ASK);
      expect(refused.ack).toMatchObject({ accepted: false, error: { code: 'rate_limited', retryAfter: expect.any(Number) } });
      expect((await chatOverSocket(b.socket!, ASK)).done).toBeDefined();
    } finally {
      a.socket?.close();
      b.socket?.close();
    }
  });

  it('concurrent replies per visitor (default 2): a third at once is refused on every channel, and allowed once one ends', async () => {
    const slow = await startTestApp({ localResponderDelayMs: 40 }, { chatLimits: 'defaults' });
    try {
      const cookie = await newVisitorCookie(slow.url);
      const socket = await connectClient(slow.url, { cookie });
      try {
        const running = [chatOverSocket(socket, ASK), chatOverSocket(socket, ASK)];
        // Both hold their slot (the server runs them) before the third is sent.
        await eventually(() => slow.app.get(ChatService).activeCount === 2, 5000, 'the first two replies to run');
        const third = await chatOverSocket(socket, ASK);
        expect(third.ack).toMatchObject({ accepted: false, error: { code: 'rate_limited' } });
        // The same visitor over REST (its cookie) is refused as well.
        expect((await interact(slow, { headers: { cookie } })).status).toBe(429);
        // Another visitor is not.
        const other = interact(slow, { headers: { cookie: await newVisitorCookie(slow.url) } });
        for (const r of await Promise.all(running)) expect(r.done).toBeDefined();
        expect((await other).status).toBe(200);
        expect((await chatOverSocket(socket, ASK)).done).toBeDefined();
      } finally {
        socket.close();
      }
    } finally {
      await slow.close();
    }
  });

  it('sockets per IP: one more is refused at the handshake (rate_limited with retryAfter); another address and a closed socket free a place', async () => {
    await setLimits(admin, { socketsPerIp: 2 });
    const one = await connectFrom(t, '127.0.0.7');
    const two = await connectFrom(t, '127.0.0.7', { 'X-Forwarded-For': '203.0.113.13' });
    try {
      expect(one.socket && two.socket).toBeTruthy();
      const three = await connectFrom(t, '127.0.0.7', { 'X-Forwarded-For': '203.0.113.14' });
      expect(three.refused).toMatchObject({ code: 'rate_limited', retryAfter: expect.any(Number) });
      const elsewhere = await connectFrom(t, '127.0.0.8');
      expect(elsewhere.socket).toBeDefined();
      elsewhere.socket?.close();
      one.socket?.close();
      // The place is free once the server has seen the socket close: a connection is accepted again.
      const again = await eventually(async () => {
        const attempt = await connectFrom(t, '127.0.0.7');
        return attempt.socket ? attempt : false;
      }, 5000, 'a closed socket to free its place');
      expect(again.socket).toBeDefined();
      again.socket?.close();
    } finally {
      one.socket?.close();
      two.socket?.close();
    }
  });

  it('counts refused requests in Analytics, by rule', async () => {
    const system = (await admin.get('/api/analytics/system?hours=1').expect(200)).body.data;
    expect(system.limitedRequests.total).toBeGreaterThanOrEqual(10);
    expect(system.limitedRequests.byRule).toEqual(expect.objectContaining({ ip: expect.any(Number), visitor: expect.any(Number), key: expect.any(Number), socket: expect.any(Number), sockets: expect.any(Number) }));
    // Refused requests are not requests the assistant answered.
    expect(system.totalRequests).toBeGreaterThan(0);
  });
});
