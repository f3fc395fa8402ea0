/**
 * API keys through the real API: issued in the console (shown once, only a hash and a prefix
 * stored), used on /interact as a bearer token or X-API-Key, refused when revoked, expired,
 * unknown, malformed or out of scope, limited by their own rate limit, and required of anonymous
 * /interact callers only while the global setting says so. On two servers sharing Redis and the
 * database, a key revoked on one is refused by the other within a second.
 */
import request from 'supertest';
import { ApiKeysService } from '../src/api-keys/api-keys.service';
import { Clock } from '../src/common/clock';
import { adminAgent, AdminAgent } from './support/admin-session';
import { distributed, eventually, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

const ASK = { query: 'How do I reset my password?', vertical: 'customer-service' };

describe('API keys', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let now: number;

  const issue = async (body: Record<string, unknown>) => (await admin.post('/api/api-keys').send(body).expect(201)).body.data as { key: string; apiKey: any };
  const interact = (headers: Record<string, string> = {}) => request(t.url).post('/interact').set(headers).send(ASK);

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 100_000 });
    admin = await adminAgent(t);
    now = Date.now();
    t.app.get(Clock).now = () => now;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('is issued once, stored as a hash and a prefix, used on /interact with Bearer or X-API-Key, and revoked at once', async () => {
    const { key, apiKey } = await issue({ name: 'Help centre bot', scopes: ['chat', 'knowledge:read'] });
    expect(key).toMatch(/^sak_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toMatchObject({ name: 'Help centre bot', prefix: key.slice(0, 12), scopes: ['chat', 'knowledge:read'], status: 'active', lastUsedAt: null, expiresAt: null, rateLimitPerMinute: null, createdBy: { email: 'test-admin@example.com' } });
    const [row] = await t.dataSource.query(`SELECT * FROM api_keys WHERE id = '${apiKey.id}'`);
    expect(JSON.stringify(row)).not.toContain(key.slice(13));
    const listed = (await admin.get('/api/api-keys').expect(200)).body.data;
    expect(JSON.stringify(listed)).not.toContain(key.slice(13));

    await interact({ Authorization: `Bearer ${key}` }).expect(200);
    now += 90_000;
    await interact({ 'X-API-Key': key }).expect(200);
    const used = (await admin.get('/api/api-keys').expect(200)).body.data.find((k: { id: string }) => k.id === apiKey.id);
    expect(used.lastUsedAt).toBe(new Date(now).toISOString());
    // Noted in memory, written by the periodic flush: one UPDATE per key, not one per request.
    expect((await t.dataSource.query(`SELECT last_used_at FROM api_keys WHERE id = '${apiKey.id}'`))[0].last_used_at).toBeNull();
    await t.app.get(ApiKeysService).flushLastUsed();
    expect(Number((await t.dataSource.query(`SELECT last_used_at FROM api_keys WHERE id = '${apiKey.id}'`))[0].last_used_at)).toBe(now);

    const revoked = await admin.delete(`/api/api-keys/${apiKey.id}`).expect(200);
    expect(revoked.body.data).toEqual({ id: apiKey.id, revokedAt: new Date(now).toISOString() });
    const refused = await interact({ Authorization: `Bearer ${key}` }).expect(401);
    expect(refused.body.error).toEqual({ code: 'unauthorized', message: 'This API key has been revoked. Ask an administrator for a new one.' });
    expect((await admin.get('/api/api-keys').expect(200)).body.data.find((k: { id: string }) => k.id === apiKey.id).status).toBe('revoked');
    await admin.delete(`/api/api-keys/${apiKey.id}`).expect(200);
    await admin.delete('/api/api-keys/no-such-key').expect(404);
  });

  it('refuses unknown, malformed, expired and out-of-scope keys with a clear message', async () => {
    const { key } = await issue({ name: 'Ok', scopes: ['chat'] });
    const forged = `${key.slice(0, 13)}${'A'.repeat(43)}`;
    expect((await interact({ 'X-API-Key': forged }).expect(401)).body.error.message).toMatch(/^The API key is not valid/);
    expect((await interact({ 'X-API-Key': 'sak_00000000_' + 'B'.repeat(43) }).expect(401)).body.error.message).toMatch(/^The API key is not valid/);
    expect((await interact({ Authorization: 'Bearer client-one' }).expect(401)).body.error.code).toBe('unauthorized');

    const mcpOnly = await issue({ name: 'MCP client', scopes: ['mcp'] });
    const outOfScope = await interact({ Authorization: `Bearer ${mcpOnly.key}` }).expect(403);
    expect(outOfScope.body.error).toEqual({ code: 'forbidden', message: 'This API key may not be used for chat (it allows: mcp).' });

    const soon = await issue({ name: 'Trial', scopes: ['chat'], expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(soon.apiKey.expiresAt).not.toBeNull();
    await interact({ 'X-API-Key': soon.key }).expect(200);
    now += 2 * 3_600_000;
    const expired = await interact({ 'X-API-Key': soon.key }).expect(401);
    expect(expired.body.error.message).toMatch(/^This API key expired on \d{4}-\d{2}-\d{2}\./);
    expect((await admin.get('/api/api-keys').expect(200)).body.data.find((k: { id: string }) => k.id === soon.apiKey.id).status).toBe('expired');
  });

  it("a key's own rate limit: 429 with Retry-After past it", async () => {
    const { key } = await issue({ name: 'Metered', scopes: ['chat'], rateLimitPerMinute: 2 });
    await interact({ 'X-API-Key': key }).expect(200);
    await interact({ 'X-API-Key': key }).expect(200);
    const limited = await interact({ 'X-API-Key': key }).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.error.message).toMatch(/^This API key may make 2 requests a minute/);
    now += 61_000;
    await interact({ 'X-API-Key': key }).expect(200);
  });

  it('anonymous /interact works until the global setting requires a key; the chat page itself still needs none', async () => {
    await interact().expect(200);
    await admin.put('/api/config/global').send({ requireApiKey: true }).expect(200);
    try {
      const refused = await interact().expect(401);
      expect(refused.body.error.message).toBe('An API key is required: send it as "Authorization: Bearer <key>" or in the X-API-Key header.');
      await interact({ 'Sec-Fetch-Site': 'same-origin' }).expect(200);
      const { key } = await issue({ name: 'Required', scopes: ['chat'] });
      await interact({ Authorization: `Bearer ${key}` }).expect(200);
    } finally {
      await admin.put('/api/config/global').send({ requireApiKey: false }).expect(200);
    }
    await interact().expect(200);
  });

  it('refuses bad issue forms with a 400 and writes nothing', async () => {
    const before = (await admin.get('/api/api-keys').expect(200)).body.data.length;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'x', scopes: [] }, /at least one scope/],
      [{ name: 'x' }, /at least one scope/],
      [{ name: 'x', scopes: ['chat', 'chat'] }, /once/],
      [{ name: 'x', scopes: ['admin'] }, /must be one of chat, knowledge:read, a2a, mcp/],
      [{ name: '  ', scopes: ['chat'] }, /Name is required/],
      [{ name: 'x'.repeat(101), scopes: ['chat'] }, /at most 100/],
      [{ name: 'x', scopes: ['chat'], expiresAt: '2020-01-01T00:00:00Z' }, /in the future/],
      [{ name: 'x', scopes: ['chat'], expiresAt: 'tomorrow' }, /must be a date/],
      [{ name: 'x', scopes: ['chat'], rateLimitPerMinute: 0 }, /rate limit/],
      [{ name: 'x', scopes: ['chat'], rateLimitPerMinute: 1.5 }, /rate limit/],
    ];
    for (const [body, message] of bad) expect((await admin.post('/api/api-keys').send(body).expect(400)).body.error.message).toMatch(message);
    expect((await admin.get('/api/api-keys').expect(200)).body.data).toHaveLength(before);
    await request(t.url).get('/api/api-keys').expect(401);
    await request(t.url).post('/api/api-keys').send({ name: 'x', scopes: ['chat'] }).expect(401);
  });
});

const describeDistributed = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl, NEEDS.databaseUrl], name, fn);

describeDistributed('API keys on two servers sharing Redis and Postgres', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const shared = { databaseSchema: uniqueSchema(), appSecret: 'shared-app-secret-of-the-cluster-0123456789', seedSampleKnowledge: false, signInIpLimit: 100_000 };
    a = await startTestApp(shared);
    b = await startTestApp({ ...shared, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
  });

  afterAll(async () => {
    await b?.close({ keepData: true });
    await a?.close();
  });

  it('a key revoked on one server is refused by the other within a second', async () => {
    const admin = await adminAgent(a);
    const { key, apiKey } = (await admin.post('/api/api-keys').send({ name: 'Cluster', scopes: ['chat'] }).expect(201)).body.data;
    // B has the key in its cache now.
    await request(b.url).post('/interact').set('Authorization', `Bearer ${key}`).send(ASK).expect(200);
    await admin.delete(`/api/api-keys/${apiKey.id}`).expect(200);
    const revokedAt = Date.now();
    await eventually(
      async () => (await request(b.url).post('/interact').set('Authorization', `Bearer ${key}`).send(ASK)).status === 401,
      1000,
      'server B to refuse the revoked key',
    );
    console.log(`B refused the revoked key ${Date.now() - revokedAt} ms after the revoke answered`);
  });
});
