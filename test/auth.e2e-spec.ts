/**
 * The auth API, the session cookie, the global guard (401 without a
 * session on every admin route, 403 for cross-origin state changes) and the /admin socket
 * namespace. Runs on SQLite + in-process jobs, or Postgres + Redis when DATABASE_URL / REDIS_URL are set.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { AdminEventsService } from '../src/admin-events/admin-events.service';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { AuthCleanupService } from '../src/auth/auth-cleanup.service';
import { Clock } from '../src/common/clock';
import { SignInEvent } from '../src/auth/sign-in-event.entity';
import { MailOutbox } from '../src/mail/mail-outbox.entity';
import type { AdminServerToClientEvents } from '../src/shared/contracts/socket';
import { connectClient, startTestApp, TestApp } from './support/test-app';

const PASSWORD = 'correct horse battery';
const COOKIE = 'sa_admin_session';

type AdminSocket = Socket<AdminServerToClientEvents>;

function sessionCookieOf(res: request.Response): string {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${COOKIE}=`));
  if (!header) throw new Error(`no session cookie in ${JSON.stringify(res.headers['set-cookie'])}`);
  return header.split(';')[0];
}

function setCookieHeader(res: request.Response): string {
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${COOKIE}=`)) ?? '';
}

/** Shifts one app's clock (the injected Clock), leaving real time alone. */
function controlClock(t: TestApp): { advance(ms: number): void } {
  const clock = t.app.get(Clock);
  let offset = 0;
  clock.now = () => Date.now() + offset;
  return { advance: (ms) => (offset += ms) };
}

function connectAdmin(t: TestApp, headers: Record<string, string> = {}): Promise<AdminSocket> {
  return new Promise((resolve, reject) => {
    const socket: AdminSocket = io(`${t.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: headers });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

async function signInWithPassword(t: TestApp, email: string, password = PASSWORD): Promise<string> {
  const res = await request(t.url).post('/api/auth/login-password').send({ email, password }).expect(200);
  return sessionCookieOf(res);
}

/** Every admin route (and the auth routes that need a session). */
const ADMIN_ROUTES: Array<['get' | 'post' | 'put' | 'delete', string]> = [
  ['get', '/api/auth/me'],
  ['post', '/api/auth/refresh'],
  ['post', '/api/auth/logout'],
  ['get', '/api/auth/stats'],
  ['get', '/api/knowledge'],
  ['post', '/api/knowledge'],
  ['get', '/api/knowledge/some-id'],
  ['put', '/api/knowledge/some-id'],
  ['delete', '/api/knowledge/some-id'],
  ['get', '/api/analytics/system?hours=24'],
  ['get', '/api/analytics/agents'],
  ['get', '/api/analytics/costs?hours=24'],
  ['get', '/api/analytics/performance?hours=24'],
  ['get', '/api/analytics/export?format=json'],
  ['get', '/api/config'],
  ['get', '/api/config/agents/hr-agent'],
  ['put', '/api/config/agents/hr-agent'],
  ['delete', '/api/config/agents/hr-agent'],
  ['post', '/api/config/agents'],
  ['put', '/api/config/global'],
  ['post', '/api/config/test-api-key'],
  ['get', '/api/config/validate'],
];

describe('admin sign-in API, session cookie and guard', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      adminEmail: 'ada@example.com',
      adminPassword: PASSWORD,
      adminName: 'Ada Lovelace',
      signInIpLimit: 10000,
      adminSocketCheckMs: 200,
      seedSampleKnowledge: false,
    });
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('check-methods', () => {
    it('names the methods an admin may use (ADMIN_PASSWORD given: both)', async () => {
      const res = await request(t.url).post('/api/auth/check-methods').send({ email: 'ada@example.com' }).expect(200);
      expect(res.body).toMatchObject({ success: true, methods: { password: true, otp: true } });
      expect(typeof res.body.message).toBe('string');
    });

    it('treats the email case-insensitively', async () => {
      const res = await request(t.url).post('/api/auth/check-methods').send({ email: '  ADA@Example.COM ' }).expect(200);
      expect(res.body.methods).toEqual({ password: true, otp: true });
    });

    it('an admin without a password may only use a code', async () => {
      await t.app.get(AdminUsersService).create({ email: 'codeonly@example.com', name: 'Code Only' });
      const res = await request(t.url).post('/api/auth/check-methods').send({ email: 'codeonly@example.com' }).expect(200);
      expect(res.body.methods).toEqual({ password: false, otp: true });
    });

    it("an unknown email gets success false and 'Email not authorized', and no mail is sent", async () => {
      const res = await request(t.url).post('/api/auth/check-methods').send({ email: 'stranger@example.com' }).expect(403);
      expect(res.body).toMatchObject({ success: false, error: { code: 'forbidden', message: 'Email not authorized' } });
      const otp = await request(t.url).post('/api/auth/request-otp').send({ email: 'stranger@example.com' }).expect(403);
      expect(otp.body.error.message).toBe('Email not authorized');
      await new Promise((r) => setTimeout(r, 200));
      expect(await t.dataSource.getRepository(MailOutbox).countBy({ toAddress: 'stranger@example.com' })).toBe(0);
      const outbox = path.join(t.config.dataDir, 'outbox');
      const files = fs.existsSync(outbox) ? fs.readdirSync(outbox) : [];
      expect(files.filter((f) => f.includes('stranger'))).toEqual([]);
    });

    it('answers 400 for a missing or malformed email', async () => {
      const missing = await request(t.url).post('/api/auth/check-methods').send({}).expect(400);
      expect(missing.body.error).toEqual({ code: 'validation_failed', message: 'Email is required' });
      await request(t.url).post('/api/auth/check-methods').send({ email: 'no-at-sign' }).expect(400);
    });
  });

  describe('login-password', () => {
    it('signs in: message, user {id, name, email, role} (nothing secret), and an HttpOnly SameSite=Strict 24 h cookie with a 256-bit token', async () => {
      const res = await request(t.url).post('/api/auth/login-password').send({ email: 'Ada@Example.com', password: PASSWORD }).expect(200);
      expect(res.body).toMatchObject({ success: true, message: 'Login successful', user: { name: 'Ada Lovelace', email: 'ada@example.com' } });
      expect(Object.keys(res.body.user).sort()).toEqual(['email', 'id', 'name', 'role']);
      const header = setCookieHeader(res);
      expect(header).toMatch(/; HttpOnly/);
      expect(header).toMatch(/; SameSite=Strict/);
      expect(header).toMatch(/; Path=\//);
      expect(header).toMatch(/; Max-Age=86400/);
      expect(header).not.toMatch(/Secure/); // plain HTTP and COOKIE_SECURE unset
      const token = sessionCookieOf(res).split('=')[1];
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    });

    it('refuses a wrong password and an unknown email with the same 401', async () => {
      const wrong = await request(t.url).post('/api/auth/login-password').send({ email: 'ada@example.com', password: 'not the password' }).expect(401);
      const unknown = await request(t.url).post('/api/auth/login-password').send({ email: 'nobody@example.com', password: PASSWORD }).expect(401);
      expect(wrong.body.error).toEqual({ code: 'unauthorized', message: 'Invalid email or password' });
      expect(unknown.body.error).toEqual(wrong.body.error);
      expect(wrong.headers['set-cookie']).toBeUndefined();
    });

    it('refuses password sign-in for an admin who has no password', async () => {
      const res = await request(t.url).post('/api/auth/login-password').send({ email: 'codeonly@example.com', password: PASSWORD }).expect(403);
      expect(res.body.success).toBe(false);
    });
  });

  describe('me, refresh, logout', () => {
    it('me returns the user of the session', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const res = await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
      expect(res.body).toMatchObject({ success: true, user: { name: 'Ada Lovelace', email: 'ada@example.com' } });
    });

    it('refresh rotates the token: the new cookie works, the old one gets 401', async () => {
      const old = await signInWithPassword(t, 'ada@example.com');
      const res = await request(t.url).post('/api/auth/refresh').set('Cookie', old).expect(200);
      expect(res.body).toMatchObject({ success: true, user: { email: 'ada@example.com' } });
      const fresh = sessionCookieOf(res);
      expect(fresh).not.toBe(old);
      await request(t.url).get('/api/auth/me').set('Cookie', fresh).expect(200);
      await request(t.url).get('/api/auth/me').set('Cookie', old).expect(401);
      await request(t.url).post('/api/auth/refresh').set('Cookie', old).expect(401);
    });

    it('two refreshes racing with one cookie: exactly one wins', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const results = await Promise.all([1, 2, 3, 4].map(() => request(t.url).post('/api/auth/refresh').set('Cookie', cookie)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
    });

    it('logout revokes the session on the server and clears the cookie; the old cookie then gets 401 everywhere', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const res = await request(t.url).post('/api/auth/logout').set('Cookie', cookie).expect(200);
      expect(res.body.success).toBe(true);
      expect(setCookieHeader(res)).toMatch(new RegExp(`^${COOKIE}=;.*Max-Age=0`));
      for (const [method, route] of ADMIN_ROUTES) {
        const replay = await request(t.url)[method](route).set('Cookie', cookie);
        expect([route, replay.status]).toEqual([route, 401]);
      }
    });

    it('an expired session (24 h later, controlled clock) gets 401', async () => {
      const clock = controlClock(t);
      try {
        const cookie = await signInWithPassword(t, 'ada@example.com');
        clock.advance(24 * 3600 * 1000 - 5000);
        await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
        clock.advance(10_000);
        await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(401);
        await request(t.url).get('/api/knowledge').set('Cookie', cookie).expect(401);
        await expect(connectAdmin(t, { Cookie: cookie })).rejects.toThrow('Not authenticated');
      } finally {
        clock.advance(-24 * 3600 * 1000 - 5000);
      }
    });
  });

  describe('the global guard', () => {
    it.each(ADMIN_ROUTES)('no cookie: %s %s -> 401', async (method, route) => {
      const res = await request(t.url)[method](route).send({});
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'unauthorized', message: 'Not authenticated' } });
      expect(typeof res.body.requestId).toBe('string');
    });

    it('a forged or malformed cookie gets 401', async () => {
      await request(t.url).get('/api/auth/me').set('Cookie', `${COOKIE}=${Buffer.alloc(32, 7).toString('base64url')}`).expect(401);
      await request(t.url).get('/api/knowledge').set('Cookie', `${COOKIE}=not a token`).expect(401);
    });

    it('a signed-in admin reaches the admin API', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const res = await request(t.url).get('/api/knowledge').set('Cookie', cookie).expect(200);
      expect(res.body.success).toBe(true);
    });

    it('a cross-origin POST gets 403 (Origin or Sec-Fetch-Site), even with a valid cookie, and changes nothing', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const evil = await request(t.url).post('/api/auth/logout').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(403);
      expect(evil.body).toMatchObject({ success: false, error: { code: 'forbidden' } });
      await request(t.url).post('/api/knowledge').set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').send({ title: 'x' }).expect(403);
      await request(t.url).post('/api/auth/refresh').set('Cookie', cookie).set('Origin', 'null').expect(403);
      // Sign-in endpoints too (login CSRF).
      await request(t.url).post('/api/auth/login-password').set('Origin', 'https://evil.example').send({ email: 'ada@example.com', password: PASSWORD }).expect(403);
      // The session survived the forged logout.
      await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(200);
      // The same requests from the app's own origin go through.
      await request(t.url).post('/api/auth/login-password').set('Origin', t.url).set('Sec-Fetch-Site', 'same-origin').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
      await request(t.url).post('/api/auth/logout').set('Cookie', cookie).set('Origin', t.url).expect(200);
    });

    it('cross-origin GETs are not state changes and pass the origin check', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      await request(t.url).get('/api/auth/me').set('Cookie', cookie).set('Origin', 'https://evil.example').expect(200);
    });

    it('public routes stay public: /health, /agents/health, POST /interact and the chat socket need no session', async () => {
      await request(t.url).get('/health').expect(200);
      await request(t.url).get('/agents/health').expect(200);
      const chat = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
      expect(chat.body.success).toBe(true);
      const socket = await connectClient(t.url);
      socket.close();
    });
  });

  describe('stats', () => {
    it('counts admins, active sessions, and sign-ins and failed attempts of the last 24 hours', async () => {
      const s = await startTestApp({ adminEmail: 'stats@example.com', adminPassword: PASSWORD, signInIpLimit: 10000, seedSampleKnowledge: false });
      try {
        await s.app.get(AdminUsersService).create({ email: 'second@example.com' });
        const first = await signInWithPassword(s, 'stats@example.com');
        const second = await signInWithPassword(s, 'stats@example.com');
        await request(s.url).post('/api/auth/login-password').send({ email: 'stats@example.com', password: 'wrong password!!' }).expect(401);
        await request(s.url).post('/api/auth/login-password').send({ email: 'ghost@example.com', password: 'wrong password!!' }).expect(401);
        await request(s.url).post('/api/auth/verify-otp').send({ email: 'second@example.com', otp: '123456' }).expect(401);
        await request(s.url).post('/api/auth/logout').set('Cookie', second).expect(200);
        // An old event outside the 24 hours does not count.
        await s.dataSource.getRepository(SignInEvent).insert({
          id: '00000000-0000-4000-8000-000000000001',
          createdAt: Date.now() - 25 * 3600 * 1000,
          userId: null,
          email: 'old@example.com',
          method: 'password',
          outcome: 'failure',
          reason: 'bad_password',
          ip: null,
        });
        const res = await request(s.url).get('/api/auth/stats').set('Cookie', first).expect(200);
        expect(res.body).toEqual({ success: true, data: { admins: 2, activeSessions: 1, signIns24h: 2, failedAttempts24h: 3 } });
      } finally {
        await s.close();
      }
    });
  });

  describe('housekeeping', () => {
    it('deletes sessions a week past their end, codes a day past expiry, audit rows after 90 days; keeps the rest', async () => {
      const s = await startTestApp({ adminEmail: 'keep@example.com', adminPassword: PASSWORD, seedSampleKnowledge: false });
      try {
        const live = await signInWithPassword(s, 'keep@example.com');
        const old = await signInWithPassword(s, 'keep@example.com');
        await request(s.url).post('/api/auth/logout').set('Cookie', old).expect(200);
        await request(s.url).post('/api/auth/request-otp').send({ email: 'keep@example.com' }).expect(200);
        const clock = controlClock(s);
        const cleanup = s.app.get(AuthCleanupService);
        expect(await cleanup.cleanup()).toEqual({ sessions: 0, codes: 0, signInEvents: 0 });
        clock.advance(9 * 24 * 3600 * 1000); // both sessions and the code are now long over
        expect(await cleanup.cleanup()).toEqual({ sessions: 2, codes: 1, signInEvents: 0 });
        clock.advance(90 * 24 * 3600 * 1000);
        expect(await cleanup.cleanup()).toMatchObject({ signInEvents: 2 });
        clock.advance(-99 * 24 * 3600 * 1000);
        await request(s.url).get('/api/auth/me').set('Cookie', live).expect(401); // its row is gone
        expect(await s.dataSource.getRepository(MailOutbox).count()).toBe(1); // the outbox has its own retention
      } finally {
        await s.close();
      }
    });
  });

  describe('the /admin socket namespace', () => {
    it('refuses a socket without a cookie, with a revoked cookie, or from another origin', async () => {
      await expect(connectAdmin(t)).rejects.toThrow('Not authenticated');
      const cookie = await signInWithPassword(t, 'ada@example.com');
      await expect(connectAdmin(t, { Cookie: cookie, Origin: 'https://evil.example' })).rejects.toThrow(/Cross-origin/);
      await request(t.url).post('/api/auth/logout').set('Cookie', cookie).expect(200);
      await expect(connectAdmin(t, { Cookie: cookie })).rejects.toThrow('Not authenticated');
    });

    it('a signed-in admin receives AdminEventsService pushes; logout drops the socket', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const socket = await connectAdmin(t, { Cookie: cookie, Origin: t.url });
      try {
        const received = new Promise((resolve) => socket.once('knowledge:changed', resolve));
        t.app.get(AdminEventsService).emit('knowledge:changed', { id: 'k1', action: 'updated' });
        await expect(received).resolves.toEqual({ id: 'k1', action: 'updated' });
        const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
        await request(t.url).post('/api/auth/logout').set('Cookie', cookie).expect(200);
        await expect(dropped).resolves.toBe('io server disconnect');
      } finally {
        socket.close();
      }
    });

    it('a refresh keeps the socket (moved to the new session); logging out the new session drops it', async () => {
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const socket = await connectAdmin(t, { Cookie: cookie });
      try {
        const res = await request(t.url).post('/api/auth/refresh').set('Cookie', cookie).expect(200);
        const fresh = sessionCookieOf(res);
        await new Promise((r) => setTimeout(r, 600)); // several periodic re-checks (ADMIN_SOCKET_CHECK_MS = 200)
        expect(socket.connected).toBe(true);
        const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
        await request(t.url).post('/api/auth/logout').set('Cookie', fresh).expect(200);
        await expect(dropped).resolves.toBe('io server disconnect');
      } finally {
        socket.close();
      }
    });

    it('a socket whose session expires is dropped by the periodic re-check', async () => {
      const clock = controlClock(t);
      const cookie = await signInWithPassword(t, 'ada@example.com');
      const socket = await connectAdmin(t, { Cookie: cookie });
      try {
        const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
        clock.advance(24 * 3600 * 1000 + 1000);
        await expect(dropped).resolves.toBe('io server disconnect');
      } finally {
        clock.advance(-(24 * 3600 * 1000 + 1000));
        socket.close();
      }
    });
  });

  describe('cookie Secure flag', () => {
    it('is set over HTTPS (X-Forwarded-Proto from a proxy TRUST_PROXY names, not from anyone) and with COOKIE_SECURE=true', async () => {
      const untrusted = await request(t.url)
        .post('/api/auth/login-password')
        .set('X-Forwarded-Proto', 'https')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200);
      expect(setCookieHeader(untrusted)).not.toMatch(/; Secure/);
      const p = await startTestApp({ adminEmail: 'proxied@example.com', adminPassword: PASSWORD, trustProxy: ['loopback'], seedSampleKnowledge: false });
      try {
        const viaProxy = await request(p.url)
          .post('/api/auth/login-password')
          .set('X-Forwarded-Proto', 'https')
          .send({ email: 'proxied@example.com', password: PASSWORD })
          .expect(200);
        expect(setCookieHeader(viaProxy)).toMatch(/; Secure/);
      } finally {
        await p.close();
      }
      const s = await startTestApp({ adminEmail: 'sec@example.com', adminPassword: PASSWORD, cookieSecure: true, seedSampleKnowledge: false });
      try {
        const res = await request(s.url).post('/api/auth/login-password').send({ email: 'sec@example.com', password: PASSWORD }).expect(200);
        expect(setCookieHeader(res)).toMatch(/; Secure/);
      } finally {
        await s.close();
      }
    });
  });

  describe('rate limits', () => {
    it('per IP: sign-in requests beyond SIGN_IN_IP_LIMIT in 15 minutes get 429 with Retry-After', async () => {
      const s = await startTestApp({ adminEmail: 'ip@example.com', adminPassword: PASSWORD, signInIpLimit: 3, seedSampleKnowledge: false });
      try {
        for (let i = 0; i < 3; i += 1) await request(s.url).post('/api/auth/check-methods').send({ email: `x${i}@example.com` }).expect(403);
        const limited = await request(s.url).post('/api/auth/login-password').send({ email: 'ip@example.com', password: PASSWORD }).expect(429);
        expect(limited.body).toMatchObject({ success: false, error: { code: 'rate_limited' } });
        const retryAfter = Number(limited.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      } finally {
        await s.close();
      }
    });

    it('per email: the 11th password try within 15 minutes gets 429, even with the right password', async () => {
      await t.app.get(AdminUsersService).create({ email: 'brute@example.com', password: PASSWORD });
      for (let i = 0; i < 10; i += 1) {
        await request(t.url).post('/api/auth/login-password').send({ email: 'brute@example.com', password: `wrong password ${i}` }).expect(401);
      }
      const res = await request(t.url).post('/api/auth/login-password').send({ email: 'brute@example.com', password: PASSWORD }).expect(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Another email is not affected.
      await request(t.url).post('/api/auth/login-password').send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
    });
  });
});
