/**
 * Two servers on one database and one Redis: a configuration change made through server A is used
 * by server B's next message (config:changed over Redis pub/sub drops B's cache), and reaches the
 * admin consoles connected to either server.
 * Needs REDIS_URL (and uses DATABASE_URL when set); .ci/run always sets both.
 */
import request from 'supertest';
import { io, Socket } from 'socket.io-client';
import { AdminUsersService } from '../src/auth/admin-users.service';
import type { PublicSettings } from '../src/shared/contracts/config';
import type { ConfigChangedPayload } from '../src/shared/contracts/socket';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { connectClient, distributed, eventually, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);
const KEY = 'sk-shared-key-000000000000beef';

/** The admin agent of test/support/admin-session.ts; until that helper signs in by itself, this signs it in. */
async function signedInAdmin(t: TestApp): Promise<AdminAgent> {
  const admin = await adminAgent(t);
  if ((await admin.get('/api/auth/me')).status === 200) return admin;
  const email = 'cluster-admin@example.com';
  const password = 'cluster admin password';
  await t.app.get(AdminUsersService).create({ email, name: 'Cluster Admin', password }).catch(() => undefined);
  await admin.post('/api/auth/login-password').send({ email, password }).expect(200);
  return admin;
}

/** A session cookie of an admin of our own, to open the /admin socket with (sockets need the cookie header). */
async function sessionCookie(t: TestApp): Promise<string> {
  const email = 'socket-admin@example.com';
  const password = 'socket admin password';
  await t.app.get(AdminUsersService).create({ email, name: 'Socket Admin', password }).catch(() => undefined);
  const res = await request(t.url).post('/api/auth/login-password').send({ email, password }).expect(200);
  return ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .map((c) => c.split(';')[0])
    .join('; ');
}

describeWithRedis('configuration changes on two servers (shared database and Redis)', () => {
  let mock: MockLlmServer;
  let a: TestApp;
  let b: TestApp;
  let admin: AdminAgent;
  let adminSocketOfB: Socket | undefined;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 3, validKeys: [KEY] });
    const shared = {
      databaseSchema: distributed.databaseUrl ? uniqueSchema() : undefined,
      appSecret: 'shared-app-secret-of-the-cluster-0123456789',
      openaiApiKey: KEY,
      openaiBaseUrl: mock.openaiBaseUrl,
      seedSampleKnowledge: false,
    };
    a = await startTestApp(shared);
    b = await startTestApp({ ...shared, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    admin = await signedInAdmin(a);
  });

  afterAll(async () => {
    adminSocketOfB?.close();
    await b?.close({ keepData: true });
    await a?.close();
    await mock?.close();
  });

  it("a model and prompt changed on A reach the vendor with B's next message", async () => {
    await request(b.url).post('/interact').send({ vertical: 'hr', query: 'Warm up the cache of B' }).expect(200);
    expect(mock.requests.at(-1)!.model).toBe('gpt-4o-mini');

    await admin.put('/api/config/agents/hr-agent').send({ systemPrompt: 'You are Quill, the cluster HR assistant.', llmConfig: { model: 'gpt-4.1-nano' } }).expect(200);
    const started = Date.now();
    await eventually(
      async () => {
        await request(b.url).post('/interact').send({ vertical: 'hr', query: 'Which model answers?' }).expect(200);
        return mock.requests.at(-1)!.model === 'gpt-4.1-nano';
      },
      3000,
      "B's next message using the new model",
    );
    expect(Date.now() - started).toBeLessThan(3000);
    const record = mock.requests.at(-1)!;
    expect(String(record.messages![0].content)).toContain('You are Quill, the cluster HR assistant.');
  });

  it('HR switched off on A is refused by B; the admin console connected to B is told config:changed', async () => {
    const cookie = await sessionCookie(a);
    adminSocketOfB = io(`${b.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    await new Promise<void>((resolve, reject) => {
      adminSocketOfB!.once('connect', () => resolve());
      adminSocketOfB!.once('connect_error', reject);
    });
    const told = new Promise<ConfigChangedPayload>((resolve) => adminSocketOfB!.once('config:changed', resolve));
    // A chat page open on B (the public namespace) is told the new public settings too.
    const visitorOfB = await connectClient(b.url);
    const pushed = new Promise<PublicSettings>((resolve) => visitorOfB.once('settings:changed', resolve));

    await admin.put('/api/config/global').send({ verticals: { hr: false } }).expect(200);
    await expect(told).resolves.toEqual({});
    const settingsPushed = await pushed;
    visitorOfB.close();
    expect(settingsPushed.enabledVerticals).toEqual(['customer-service', 'legal', 'sales']);
    expect(settingsPushed.verticals).toContainEqual({ id: 'hr', enabled: false });
    await eventually(async () => (await request(b.url).post('/interact').send({ vertical: 'hr', query: 'Leave?' })).status === 400, 3000, 'B refusing hr');
    const settingsOfB = await request(b.url).get('/api/public/settings').expect(200);
    expect(settingsOfB.body.data.enabledVerticals).not.toContain('hr');

    await admin.put('/api/config/global').send({ verticals: { hr: true } }).expect(200);
    await eventually(async () => (await request(b.url).post('/interact').send({ vertical: 'hr', query: 'Leave?' })).status === 200, 3000, 'B accepting hr again');
  });
});
