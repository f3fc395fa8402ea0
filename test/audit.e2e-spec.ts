/**
 * The audit log on the real app: an agent key change, a knowledge edit and a budget change each
 * leave one entry with the right before/after, and no secret reaches any column of the table (read
 * straight from the database); sign-in events (success, failure, code mailed, sign-out) are
 * recorded; the log is filtered by member, action, target and dates, exported as CSV and JSON,
 * append-only (no route changes an entry, the database refuses UPDATE) and purged by its own
 * retention setting, which only owners change.
 */
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { AuditService } from '../src/audit/audit.service';
import type { AuditEntry } from '../src/shared/contracts/audit';
import { adminAgent, TEST_ADMIN, type AdminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

const AGENT_KEY = 'sk-proj-AuditedKeyValue0000000000wxyz';
const SECOND_KEY = 'sk-proj-AnotherKeyValue000000000qrst';

async function signedIn(t: TestApp, email: string, password: string): Promise<AdminAgent> {
  const agent = request.agent(t.url);
  await agent.post('/api/auth/login-password').send({ email, password }).expect(200);
  return agent;
}

async function entries(admin: AdminAgent, query: Record<string, string> = {}): Promise<AuditEntry[]> {
  return (await admin.get('/api/audit').query(query).expect(200)).body.data.entries;
}

/** Every value of every column of every audit row, as one text. */
async function wholeTable(t: TestApp): Promise<string> {
  return JSON.stringify(await t.dataSource.query('SELECT * FROM audit_entries'));
}

describe('audit log', () => {
  let t: TestApp;
  let owner: AdminAgent;
  let ownerId: string;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    owner = await adminAgent(t);
    ownerId = (await owner.get('/api/auth/me').expect(200)).body.user.id;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it("records an agent key change as 'changed' only, with the other fields' before and after, and no key in any column", async () => {
    await owner.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: AGENT_KEY, model: 'gpt-4o-mini' }, timeout: 45000 }).expect(200);
    const [entry] = await entries(owner, { action: 'agent.update' });
    expect(entry).toMatchObject({
      action: 'agent.update',
      actor: { kind: 'member', id: ownerId, email: TEST_ADMIN.email, name: TEST_ADMIN.name, role: 'owner' },
      target: { kind: 'agent', id: 'hr-agent', title: expect.any(String) },
      ip: expect.stringMatching(/127\.0\.0\.1/),
      requestId: expect.any(String),
    });
    expect(entry.changes).toEqual(expect.arrayContaining([{ field: 'llmConfig.apiKey', secret: true }, { field: 'timeout', before: 30000, after: 45000 }]));
    // The same key again is no change of the key; another key is.
    await owner.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: AGENT_KEY } }).expect(200);
    expect((await entries(owner, { action: 'agent.update' }))[0].changes).toEqual([]);
    await owner.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: SECOND_KEY } }).expect(200);
    expect((await entries(owner, { action: 'agent.update' }))[0].changes).toEqual([{ field: 'llmConfig.apiKey', secret: true }]);

    const table = await wholeTable(t);
    for (const secret of [AGENT_KEY, SECOND_KEY, AGENT_KEY.slice(-12), 'wxyz', 'qrst', 'sk-proj']) expect(table).not.toContain(secret);
    expect(table).not.toContain(TEST_ADMIN.password);
  });

  it('records a knowledge edit field by field (title, content, tags) and its creation and deletion', async () => {
    const created = (await owner.post('/api/knowledge').send({ title: 'Returns', content: 'Thirty days.', vertical: 'customer-service', tags: ['refund'] }).expect(201)).body.data;
    await owner.put(`/api/knowledge/${created.id}`).send({ title: 'Returns policy', content: 'Sixty days.', vertical: 'customer-service', tags: ['refund', 'returns'] }).expect(200);
    const [update] = await entries(owner, { action: 'knowledge.update' });
    expect(update.target).toEqual({ kind: 'knowledge', id: created.id, title: 'Returns policy' });
    expect(update.changes).toEqual([
      { field: 'title', before: 'Returns', after: 'Returns policy' },
      { field: 'content', before: 'Thirty days.', after: 'Sixty days.' },
      { field: 'tags', before: ['refund'], after: ['refund', 'returns'] },
    ]);
    const [create] = await entries(owner, { action: 'knowledge.create' });
    expect(create.target).toEqual({ kind: 'knowledge', id: created.id, title: 'Returns' });
    expect(create.changes).toEqual(expect.arrayContaining([{ field: 'title', after: 'Returns' }, { field: 'content', after: 'Thirty days.' }]));
    await owner.delete(`/api/knowledge/${created.id}`).expect(200);
    const [removed] = await entries(owner, { action: 'knowledge.delete' });
    expect(removed.target).toEqual({ kind: 'knowledge', id: created.id, title: 'Returns policy' });
    expect(removed.changes).toEqual(expect.arrayContaining([{ field: 'title', before: 'Returns policy' }]));
  });

  it('records a budget change as the budget fields that changed', async () => {
    await owner.put('/api/config/global').send({ budgets: { list: [{ scope: 'global', monthlyUsd: 100, softPercent: 80, onCap: 'refuse' }] } }).expect(200);
    await owner.put('/api/config/global').send({ budgets: { list: [{ scope: 'global', monthlyUsd: 250, softPercent: 80, onCap: 'offline' }], visitorDailyTokens: 5000 } }).expect(200);
    const [entry] = await entries(owner, { action: 'settings.update' });
    expect(entry.target).toEqual({ kind: 'settings', id: 'global', title: 'Global settings' });
    expect(entry.changes).toEqual([
      { field: 'budgets.list[scope=global].monthlyUsd', before: 100, after: 250 },
      { field: 'budgets.list[scope=global].onCap', before: 'refuse', after: 'offline' },
      { field: 'budgets.visitorDailyTokens', before: null, after: 5000 },
    ]);
  });

  it('records sign-in events: success, a failed password (unknown and known email), a mailed code and a sign-out', async () => {
    const users = t.app.get(AdminUsersService);
    await users.create({ email: 'signer@example.com', name: 'Signer', password: 'signer password 1', role: 'viewer' });
    await request(t.url).post('/api/auth/login-password').send({ email: 'signer@example.com', password: 'wrong password 11' }).expect(401);
    await request(t.url).post('/api/auth/login-password').send({ email: 'ghost@example.com', password: 'wrong password 11' }).expect(401);
    const signer = await signedIn(t, 'signer@example.com', 'signer password 1');
    await request(t.url).post('/api/auth/request-otp').send({ email: 'signer@example.com' }).expect(200);
    await signer.post('/api/auth/logout').expect(200);

    const log = await entries(owner, { target: 'member' });
    const of = (action: string, email: string) => log.filter((e) => e.action === action && e.target?.title === email);
    expect(of('auth.sign-in-failed', 'signer@example.com')[0]).toMatchObject({ actor: { kind: 'member', email: 'signer@example.com', role: 'viewer' }, changes: [{ field: 'method', after: 'password' }, { field: 'reason', after: 'bad_password' }] });
    expect(of('auth.sign-in-failed', 'ghost@example.com')[0]).toMatchObject({ actor: { kind: 'anonymous', email: 'ghost@example.com' }, target: { kind: 'member', id: null } });
    expect(of('auth.sign-in', 'signer@example.com')[0]).toMatchObject({ actor: { kind: 'member', role: 'viewer' }, changes: [{ field: 'method', after: 'password' }] });
    expect(of('auth.code-sent', 'signer@example.com')).toHaveLength(1);
    const signOut = (await entries(owner, { action: 'auth.sign-out' }))[0];
    expect(signOut.actor).toMatchObject({ email: 'signer@example.com', role: 'viewer' });
    expect(await wholeTable(t)).not.toContain('wrong password 11');
  });

  it('filters by member, action (or its kind), target (kind or kind:id), words of the target and dates', async () => {
    const item = (await owner.post('/api/knowledge').send({ title: 'Warranty terms', content: 'Two years.', vertical: 'customer-service' }).expect(201)).body.data;
    const all = (await owner.get('/api/audit').expect(200)).body.data;
    expect(all.actions).toEqual(expect.arrayContaining(['agent.update', 'knowledge.create', 'settings.update', 'auth.sign-in']));
    expect(all.targetKinds).toEqual(expect.arrayContaining(['agent', 'knowledge', 'member', 'settings']));

    const mine = await entries(owner, { member: ownerId, pageSize: '100' });
    expect(mine.length).toBeGreaterThan(5);
    expect(mine.every((e) => e.actor.id === ownerId)).toBe(true);
    expect((await entries(owner, { member: TEST_ADMIN.email.toUpperCase(), pageSize: '100' })).length).toBe(mine.length);
    expect((await entries(owner, { action: 'knowledge' })).map((e) => e.action).sort()).toEqual(['knowledge.create', 'knowledge.create', 'knowledge.delete', 'knowledge.update']);
    expect((await entries(owner, { target: `knowledge:${item.id}` })).map((e) => e.action)).toEqual(['knowledge.create']);
    expect((await entries(owner, { search: 'warranty' })).map((e) => e.target?.id)).toEqual([item.id]);
    expect(await entries(owner, { from: '2099-01-01' })).toEqual([]);
    expect((await entries(owner, { to: '2000-01-02' })).length).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await entries(owner, { from: today, to: today, action: 'knowledge.create' })).length).toBe(2);

    const paged = (await owner.get('/api/audit').query({ pageSize: '10', page: '2' }).expect(200)).body.data;
    expect(paged).toMatchObject({ page: 2, pageSize: 10 });
    expect(paged.total).toBe(all.total);
  });

  it('refuses bad filters with a 400 that says what to fix', async () => {
    expect((await owner.get('/api/audit').query({ from: 'yesterday' }).expect(400)).body.error.message).toMatch(/From must be a date/);
    expect((await owner.get('/api/audit').query({ pageSize: '7' }).expect(400)).body.error.message).toMatch(/page size/);
    expect((await owner.get('/api/audit/export').query({ format: 'xml' }).expect(400)).body.error.message).toMatch(/format must be one of json, csv/);
    await owner.get('/api/audit?action=a&action=b').expect(400);
  });

  it('exports the filtered log as CSV and JSON, oldest first', async () => {
    const json = await owner.get('/api/audit/export').query({ format: 'json', action: 'knowledge' }).expect(200);
    expect(json.headers['content-disposition']).toMatch(/attachment; filename="audit-log-.*\.json"/);
    const rows = JSON.parse(json.text) as AuditEntry[];
    expect(rows.map((r) => r.action)).toEqual(['knowledge.create', 'knowledge.update', 'knowledge.delete', 'knowledge.create']);
    expect(rows[1].changes).toContainEqual({ field: 'title', before: 'Returns', after: 'Returns policy' });

    const csv = await owner.get('/api/audit/export').query({ format: 'csv', action: 'agent.update' }).expect(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('at,actor_kind,actor_id,actor_email,actor_name,actor_role,action,target_kind,target_id,target_title,changes,ip,user_agent,request_id');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(',agent.update,agent,hr-agent,');
    expect(lines[1]).toContain('""field"":""llmConfig.apiKey"",""secret"":true');
    expect(csv.text).not.toContain(AGENT_KEY);
  });

  it('is append-only: no route edits or deletes an entry, and the database refuses UPDATE', async () => {
    const [entry] = await entries(owner);
    for (const method of ['put', 'patch', 'delete'] as const) {
      const res = await owner[method](`/api/audit/${entry.id}`).send({ action: 'nothing' });
      expect(res.status).toBe(404);
      await owner[method]('/api/audit').send({}).expect(404);
    }
    await expect(t.dataSource.query(`UPDATE audit_entries SET action = 'forged' WHERE id = '${entry.id}'`)).rejects.toThrow(/append-only/);
    expect((await entries(owner))[0].action).toBe(entry.action);
  });

  it('keeps entries for its own retention (default 365 days, owners change it) and the purge deletes older ones', async () => {
    expect((await owner.get('/api/audit/settings').expect(200)).body.data).toEqual({ retentionDays: 365 });
    const users = t.app.get(AdminUsersService);
    await users.create({ email: 'second-admin@example.com', name: 'Second', password: 'second admin pass', role: 'admin' });
    const admin = await signedIn(t, 'second-admin@example.com', 'second admin pass');
    await admin.get('/api/audit/settings').expect(200);
    await admin.put('/api/audit/settings').send({ retentionDays: 30 }).expect(403);
    expect((await owner.put('/api/audit/settings').send({ retentionDays: 29 }).expect(400)).body.error.message).toMatch(/from 30 to 3,650/);
    await owner.put('/api/audit/settings').send({ retentionDays: 30 }).expect(200);
    const [change] = await entries(owner, { action: 'audit.retention-update' });
    expect(change.changes).toEqual([{ field: 'retentionDays', before: 365, after: 30 }]);

    const audit = t.app.get(AuditService);
    const total = (await owner.get('/api/audit').expect(200)).body.data.total;
    // 31 days from now, everything written so far is past a 30-day retention.
    expect(await audit.purge(Date.now() + 31 * 86_400_000)).toBe(total);
    expect((await owner.get('/api/audit').expect(200)).body.data.total).toBe(0);
    await owner.put('/api/audit/settings').send({ retentionDays: 365 }).expect(200);
    expect(await audit.purge(Date.now() + 31 * 86_400_000)).toBe(0);
  });
});
