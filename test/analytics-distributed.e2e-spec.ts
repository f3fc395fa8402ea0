/**
 * Analytics with two servers on one Redis and one database: chats answered by server B update
 * the Analytics feed of an admin connected to server A, the live pushes of both servers share
 * one budget of one a second, and the hourly rollups count every event once even when both
 * servers roll up the same hours at the same moment. Needs REDIS_URL (uses DATABASE_URL when
 * set); .ci/run always sets both.
 */
import { CookieAccessInfo } from 'cookiejar';
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { AnalyticsClock } from '../src/analytics/analytics-clock';
import { AnalyticsService } from '../src/analytics/analytics.service';
import { UsageRollupService } from '../src/analytics/usage-rollup.service';
import type { AnalyticsUpdate, SystemAnalytics } from '../src/shared/contracts/analytics';
import type { AdminServerToClientEvents } from '../src/shared/contracts/socket';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { distributed, eventually, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

const ADMIN_EMAIL = 'analytics-admin@example.com';
const ADMIN_PASSWORD = 'analytics admin password';
const HOUR = 3_600_000;

const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

async function signedInAdmin(t: TestApp): Promise<AdminAgent> {
  const admin = await adminAgent(t);
  if ((await admin.get('/api/auth/me')).status !== 200) {
    await admin.post('/api/auth/login-password').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
  }
  return admin;
}

function cookieHeader(admin: AdminAgent): string {
  const jar = (admin as unknown as { jar: { getCookies(access: CookieAccessInfo): Array<{ name: string; value: string }> } }).jar;
  return jar
    .getCookies(CookieAccessInfo.All)
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}

function connectAdminSocket(url: string, cookie: string): Promise<Socket<AdminServerToClientEvents>> {
  return new Promise((resolve, reject) => {
    const socket: Socket<AdminServerToClientEvents> = io(`${url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function chat(t: TestApp, n: number, fails = false): Promise<void> {
  const res = await request(t.url)
    .post('/interact')
    .send({ vertical: ['hr', 'sales', 'customer-service'][n % 3], query: `Question number ${n}? ${fails ? '[mock:500]' : '[mock:tokens=4]'}` });
  expect(res.status).toBe(fails ? 502 : 200);
}

async function rawEventCount(t: TestApp): Promise<number> {
  const rows: { n: string | number }[] = await t.dataSource.query('SELECT COUNT(*) AS n FROM usage_events');
  return Number(rows[0].n);
}

describeWithRedis('analytics across two servers (Redis + one database)', () => {
  let mock: MockLlmServer;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 4 });
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    const common = { openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, signInIpLimit: 10000 };
    a = await startTestApp({ ...common, databaseSchema: schema });
    b = await startTestApp({ ...common, databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    admin = await signedInAdmin(a);
  }, 60000);

  afterAll(async () => {
    await b?.close({ keepData: true });
    await a?.close();
    await mock?.close();
  });

  it('chats through server B update the Analytics feed of an admin connected to server A', async () => {
    const socket = await connectAdminSocket(a.url, cookieHeader(admin));
    const updates: AnalyticsUpdate[] = [];
    socket.on('analytics:update', (payload) => updates.push(payload as AnalyticsUpdate));
    try {
      const before = (await admin.get('/api/analytics/system?hours=1').expect(200)).body.data as SystemAnalytics;
      await Promise.all([0, 1, 2].map((n) => chat(b, n)));
      await eventually(() => updates.reduce((s, u) => s + u.events, 0) >= 3, 5000, 'analytics:update from server B');
      const after = (await admin.get('/api/analytics/system?hours=1').expect(200)).body.data as SystemAnalytics;
      expect(after.totalRequests).toBe(before.totalRequests + 3);
    } finally {
      socket.close();
    }
  });

  it('both servers together push at most once a second', async () => {
    const socket = await connectAdminSocket(a.url, cookieHeader(admin));
    const times: number[] = [];
    let announced = 0;
    socket.on('analytics:update', (payload) => {
      // The servers' push times: what the shared throttle controls.
      times.push(Date.parse((payload as AnalyticsUpdate).at));
      announced += (payload as AnalyticsUpdate).events;
    });
    try {
      const started = Date.now();
      let sent = 0;
      while (Date.now() - started < 3200) {
        await Promise.all([chat(a, 100 + sent), chat(b, 101 + sent)]);
        sent += 2;
        await new Promise((r) => setTimeout(r, 100));
      }
      await eventually(() => announced === sent, 5000, `updates announcing ${sent} events`);
      expect(times.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < times.length; i += 1) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(950);
    } finally {
      socket.close();
    }
  });

  it('rollups count each event once when both servers roll up the same hours at once', async () => {
    const before = await rawEventCount(a);
    await Promise.all([0, 1, 2, 3].map((n) => chat(b, 200 + n, n === 2)));
    await eventually(async () => (await rawEventCount(a)) === before + 4, 5000, 'every usage event written');
    const total = await rawEventCount(a);
    // Three hours later on both servers: the chats' hour is final.
    for (const t of [a, b]) t.app.get(AnalyticsClock, { strict: false }).now = () => Date.now() + 3 * HOUR;
    const rollupA = a.app.get(UsageRollupService, { strict: false });
    const rollupB = b.app.get(UsageRollupService, { strict: false });
    const hour = Math.floor(Date.now() / HOUR) * HOUR;
    await Promise.all([rollupA.run(), rollupB.run(), rollupA.recompute(hour - HOUR, hour + HOUR), rollupB.recompute(hour, hour + HOUR), rollupB.run()]);

    const rows: { requests: string | number; errors: string | number }[] = await a.dataSource.query('SELECT requests, errors FROM usage_hourly');
    expect(rows.reduce((s, r) => s + Number(r.requests), 0)).toBe(total);
    const raw: { n: string | number }[] = await a.dataSource.query("SELECT COUNT(*) AS n FROM usage_events WHERE status = 'error'");
    expect(rows.reduce((s, r) => s + Number(r.errors), 0)).toBe(Number(raw[0].n));

    const analytics = a.app.get(AnalyticsService, { strict: false });
    expect((await analytics.plan(24)).segments.map((s) => s.source)).toContain('rollup');
    const viaA = (await admin.get('/api/analytics/system?hours=24').expect(200)).body.data as SystemAnalytics;
    const adminOfB = await signedInAdmin(b);
    const viaB = (await adminOfB.get('/api/analytics/system?hours=24').expect(200)).body.data as SystemAnalytics;
    expect(viaA.totalRequests).toBe(total);
    expect({ ...viaB, from: '', to: '' }).toEqual({ ...viaA, from: '', to: '' });
    expect(viaA).toEqual(await analytics.system(24, { useRollups: false, now: Date.parse(viaA.to) }));
  });
});
