/**
 * Active sessions through the real API: each admin lists their own (browser, IP, signed in, last
 * active) and ends any of them; an owner lists and ends everyone's. Ending a session closes its
 * /admin socket within a second, on every server when there are several (Redis adapter).
 */
import request from 'supertest';
import { io, Socket } from 'socket.io-client';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { Clock } from '../src/common/clock';
import type { Role } from '../src/shared/contracts/roles';
import { distributed, eventually, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** Signs in through the API with a browser's user agent; answers the Cookie header of the session. */
async function signIn(t: TestApp, email: string, userAgent: string, role: Role = 'owner'): Promise<string> {
  const users = t.app.get(AdminUsersService);
  if (!(await users.findByEmail(email))) await users.create({ email, name: email.split('@')[0], password: `${email} password`, role });
  const res = await request(t.url).post('/api/auth/login-password').set('User-Agent', userAgent).send({ email, password: `${email} password` }).expect(200);
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}

function adminSocket(url: string, cookie: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Resolves with the milliseconds from now until the socket is disconnected by the server. */
function disconnection(socket: Socket): Promise<number> {
  const start = Date.now();
  return new Promise((resolve) => socket.once('disconnect', () => resolve(Date.now() - start)));
}

describe('sessions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 100_000 });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists your own active sessions with browser, IP, signed-in and last-active times; the current one is marked', async () => {
    const laptop = await signIn(t, 'gil@example.com', CHROME_MAC);
    const phone = await signIn(t, 'gil@example.com', SAFARI_IPHONE);
    await signIn(t, 'hal@example.com', CHROME_MAC);

    const listed = (await request(t.url).get('/api/auth/sessions').set('Cookie', phone).expect(200)).body.data;
    expect(listed).toHaveLength(2);
    expect(listed.map((s: { browser: string }) => s.browser).sort()).toEqual(['Chrome 126 on macOS', 'Safari 17 on iOS']);
    const current = listed.find((s: { current: boolean }) => s.current);
    expect(current).toMatchObject({ browser: 'Safari 17 on iOS', ip: '127.0.0.1', user: { email: 'gil@example.com' } });
    expect(Date.parse(current.signedInAt)).toBeLessThanOrEqual(Date.parse(current.lastActiveAt));

    // Last active moves with use (to the minute), and a refresh keeps the signed-in time.
    const clock = t.app.get(Clock);
    const realNow = clock.now.bind(clock);
    clock.now = () => realNow() + 5 * 60_000;
    try {
      await request(t.url).get('/api/knowledge').set('Cookie', laptop).expect(200);
      const refreshed = await request(t.url).post('/api/auth/refresh').set('Cookie', laptop).set('User-Agent', CHROME_MAC).expect(200);
      const laptopNow = ([] as string[]).concat(refreshed.headers['set-cookie']).map((c) => c.split(';')[0]).join('; ');
      const after = (await request(t.url).get('/api/auth/sessions').set('Cookie', laptopNow).expect(200)).body.data;
      const mine = after.find((s: { current: boolean }) => s.current);
      expect(Date.parse(mine.lastActiveAt) - Date.parse(mine.signedInAt)).toBeGreaterThanOrEqual(4 * 60_000);
      expect(after).toHaveLength(2);
    } finally {
      clock.now = realNow;
    }
  });

  it("an owner lists everyone's sessions with scope=all; bad scopes are 400", async () => {
    const cookie = await signIn(t, 'ida@example.com', CHROME_MAC);
    const all = (await request(t.url).get('/api/auth/sessions?scope=all').set('Cookie', cookie).expect(200)).body.data;
    expect(all.map((s: { user: { email: string } }) => s.user.email)).toEqual(expect.arrayContaining(['ida@example.com', 'hal@example.com']));
    await request(t.url).get('/api/auth/sessions?scope=everyone').set('Cookie', cookie).expect(400);
  });

  it("every role sees and ends its own sessions; only an owner sees or ends anyone else's", async () => {
    const owner = await signIn(t, 'lee@example.com', CHROME_MAC);
    const viewer = await signIn(t, 'vic@example.com', SAFARI_IPHONE, 'viewer');
    const admin = await signIn(t, 'ada@example.com', CHROME_MAC, 'admin');
    const viewerSessions = (await request(t.url).get('/api/auth/sessions').set('Cookie', viewer).expect(200)).body.data;
    expect(viewerSessions.map((s: { user: { email: string } }) => s.user.email)).toEqual(['vic@example.com']);
    const ownerId = (await request(t.url).get('/api/auth/sessions').set('Cookie', owner).expect(200)).body.data[0].id;
    await request(t.url).get('/api/auth/sessions?scope=all').set('Cookie', admin).expect(403);
    await request(t.url).delete(`/api/auth/sessions/${ownerId}`).set('Cookie', admin).expect(404);
    await request(t.url).get('/api/auth/me').set('Cookie', owner).expect(200);
    await request(t.url).delete(`/api/auth/sessions/${viewerSessions[0].id}`).set('Cookie', owner).expect(200);
    await request(t.url).get('/api/auth/me').set('Cookie', viewer).expect(401);
    await request(t.url).get('/api/api-keys').set('Cookie', admin).expect(200);
    const ended = await t.dataSource.query(`SELECT actor_email FROM audit_entries WHERE action = 'session.end'`);
    expect(ended.map((e: { actor_email: string }) => e.actor_email)).toContain('lee@example.com');
  });

  it('ending a session closes its /admin socket within a second and its cookie gets 401; ending your own signs you out', async () => {
    const keep = await signIn(t, 'jo@example.com', CHROME_MAC);
    const end = await signIn(t, 'jo@example.com', SAFARI_IPHONE);
    const socket = await adminSocket(t.url, end);
    const kept = await adminSocket(t.url, keep);
    try {
      const id = (await request(t.url).get('/api/auth/sessions').set('Cookie', end).expect(200)).body.data.find((s: { current: boolean }) => s.current).id;
      const closed = disconnection(socket);
      await request(t.url).delete(`/api/auth/sessions/${id}`).set('Cookie', keep).expect(200, { success: true, message: 'Session ended', data: { current: false } });
      const ms = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 1000))]);
      expect(ms).toBeLessThan(1000);
      await request(t.url).get('/api/auth/me').set('Cookie', end).expect(401);
      expect(kept.connected).toBe(true);
      await request(t.url).delete(`/api/auth/sessions/${id}`).set('Cookie', keep).expect(404);
      await request(t.url).delete('/api/auth/sessions/not-a-session').set('Cookie', keep).expect(404);

      const keepId = (await request(t.url).get('/api/auth/sessions').set('Cookie', keep).expect(200)).body.data.find((s: { current: boolean }) => s.current).id;
      const own = await request(t.url).delete(`/api/auth/sessions/${keepId}`).set('Cookie', keep).expect(200);
      expect(own.body.data).toEqual({ current: true });
      expect(String(own.headers['set-cookie'])).toMatch(/sa_admin_session=;.*Max-Age=0/);
      await request(t.url).get('/api/auth/me').set('Cookie', keep).expect(401);
    } finally {
      socket.close();
      kept.close();
    }
  });
});

const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

describeWithRedis('sessions on two servers sharing Redis and the database', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const shared = { databaseSchema: distributed.databaseUrl ? uniqueSchema() : undefined, appSecret: 'shared-app-secret-of-the-cluster-0123456789', seedSampleKnowledge: false, signInIpLimit: 100_000 };
    a = await startTestApp(shared);
    b = await startTestApp({ ...shared, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
  });

  afterAll(async () => {
    await b?.close({ keepData: true });
    await a?.close();
  });

  it("a session ended on one server has its /admin socket on the other closed within a second", async () => {
    const onA = await signIn(a, 'kim@example.com', CHROME_MAC);
    const onB = await signIn(b, 'kim@example.com', SAFARI_IPHONE);
    const socket = await adminSocket(b.url, onB);
    try {
      const id = (await request(b.url).get('/api/auth/sessions').set('Cookie', onB).expect(200)).body.data.find((s: { current: boolean }) => s.current).id;
      const closed = disconnection(socket);
      await request(a.url).delete(`/api/auth/sessions/${id}`).set('Cookie', onA).expect(200);
      const ms = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 1000))]);
      expect(ms).toBeLessThan(1000);
      await eventually(async () => (await request(b.url).get('/api/auth/me').set('Cookie', onB)).status === 401, 1000, 'B to refuse the ended session');
    } finally {
      socket.close();
    }
  });
});
