/**
 * Members and roles through the real API: inviting by email (the mail from the outbox holds a
 * single-use link valid 72 hours), accepting with a name and a password or with code sign-in,
 * changing a role, disabling and removing (their sessions end at once), the last enabled owner
 * rule (409), what an admin may not do to owners (403), what an agent may not open (403), bad
 * input, and the upgrade that makes existing admins owners.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { Clock } from '../src/common/clock';
import { loadConfig } from '../src/config/app-config';
import { dropPostgresSchema, openDataSource } from '../src/database/data-source';
import type { Role } from '../src/shared/contracts/roles';
import { invitationLink, mailsTo, tokenOf } from './support/outbox-mail';
import { distributed, eventually, startTestApp, TestApp, uniqueSchema } from './support/test-app';

type Agent = ReturnType<typeof request.agent>;

async function signedIn(t: TestApp, email: string, password: string): Promise<Agent> {
  const agent = request.agent(t.url);
  await agent.post('/api/auth/login-password').send({ email, password }).expect(200);
  return agent;
}

function cookieOf(res: request.Response): string {
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
}

function adminSocket(url: string, cookie: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

describe('team: members and roles', () => {
  let t: TestApp;
  let owner: Agent;
  const OWNER = { email: 'olive@example.com', name: 'Olive Owner', password: 'olive owner password' };
  let ownerId: string;

  /** A member created directly (as the command line does), signed in through the API. */
  async function member(email: string, role: Role): Promise<{ id: string; agent: Agent; cookie: string }> {
    const password = `${email} password`;
    const users = t.app.get(AdminUsersService);
    const user = (await users.findByEmail(email)) ?? (await users.create({ email, name: email.split('@')[0], password, role }));
    const res = await request(t.url).post('/api/auth/login-password').send({ email, password }).expect(200);
    const agent = request.agent(t.url);
    agent.set('Cookie', cookieOf(res));
    return { id: user.id, agent, cookie: cookieOf(res) };
  }

  async function invite(email: string, role: Role, by: Agent = owner): Promise<string> {
    const before = mailsTo(t.config.dataDir, email).length;
    await by.post('/api/team/invitations').send({ email, role }).expect(201);
    return invitationLink(t.config.dataDir, email, before + 1);
  }

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 100_000 });
    ownerId = (await t.app.get(AdminUsersService).create({ ...OWNER, role: 'owner' })).id;
    // The owner a fresh install creates (admin@localhost) leaves: Olive is the only owner.
    await t.app.get(AdminUsersService).remove('admin@localhost');
    owner = await signedIn(t, OWNER.email, OWNER.password);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('an invitation mail holds a single-use link valid 72 hours; the invitee sets a name and a password and signs in with the invited role', async () => {
    const sent = await owner.post('/api/team/invitations').send({ email: ' Ada@Example.com ', role: 'agent' }).expect(201);
    expect(sent.body.data).toMatchObject({ email: 'ada@example.com', role: 'agent', status: 'pending', invitedBy: { email: OWNER.email } });
    const hours = (Date.parse(sent.body.data.expiresAt) - Date.parse(sent.body.data.createdAt)) / 3_600_000;
    expect(hours).toBe(72);
    expect(JSON.stringify(sent.body)).not.toMatch(/invitation\//);

    const link = await invitationLink(t.config.dataDir, 'ada@example.com');
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin\/invitation\/[A-Za-z0-9_-]{43}$/);
    const mail = mailsTo(t.config.dataDir, 'ada@example.com')[0];
    expect(mail).toContain('Olive Owner invited you to the Support Assistant admin console as an Agent.');
    expect(mail).toContain('expires in 72 hours');
    const token = tokenOf(link);
    // Only the token's hash is stored.
    const rows = await t.dataSource.query('SELECT * FROM team_invitations');
    expect(JSON.stringify(rows)).not.toContain(token);

    const team = (await owner.get('/api/team/members').expect(200)).body.data;
    expect(team.invitations).toEqual([expect.objectContaining({ email: 'ada@example.com', role: 'agent', status: 'pending' })]);

    const preview = await request(t.url).get(`/api/team/invitations/${token}`).expect(200);
    expect(preview.body.data).toMatchObject({ email: 'ada@example.com', role: 'agent', invitedBy: 'Olive Owner' });

    const short = await request(t.url).post(`/api/team/invitations/${token}/accept`).send({ name: 'Ada', password: 'too short' }).expect(400);
    expect(short.body.error.message).toBe('The password must be at least 12 characters long');
    const accepted = await request(t.url).post(`/api/team/invitations/${token}/accept`).send({ name: ' Ada Agent ', password: 'ada agent password' }).expect(200);
    expect(accepted.body.user).toMatchObject({ email: 'ada@example.com', name: 'Ada Agent', role: 'agent' });

    // The link works once.
    const again = await request(t.url).post(`/api/team/invitations/${token}/accept`).send({ name: 'Eve', password: 'eve password 1234' }).expect(410);
    expect(again.body.error).toEqual({ code: 'gone', message: 'This invitation link was already used. Sign in with your email instead.' });
    await request(t.url).get(`/api/team/invitations/${token}`).expect(410);

    const ada = await signedIn(t, 'ada@example.com', 'ada agent password');
    expect((await ada.get('/api/auth/me').expect(200)).body.user).toMatchObject({ role: 'agent', name: 'Ada Agent' });
    const members = (await owner.get('/api/team/members').expect(200)).body.data;
    expect(members.invitations).toEqual([]);
    expect(members.members.find((m: { email: string }) => m.email === 'ada@example.com')).toMatchObject({
      role: 'agent',
      status: 'active',
      twoFactor: false,
      passwordLogin: true,
      codeLogin: true,
      lastSignInAt: expect.any(String),
    });

    const audit = (await owner.get('/api/audit?action=member').expect(200)).body.data.entries;
    const join = audit.find((e: { action: string }) => e.action === 'member.join');
    expect(join).toMatchObject({ actor: { email: 'ada@example.com', role: 'agent' }, target: { kind: 'member', title: 'Ada Agent <ada@example.com>' } });
    expect(audit.find((e: { action: string }) => e.action === 'member.invite')).toMatchObject({ actor: { email: OWNER.email, role: 'owner' }, target: { kind: 'invitation' } });
    const everything = JSON.stringify(await t.dataSource.query('SELECT * FROM audit_entries'));
    expect(everything).not.toContain(token);
    expect(everything).not.toContain('ada agent password');
  });

  it('an invitee may skip the password and sign in with emailed codes', async () => {
    const token = tokenOf(await invite('cody@example.com', 'viewer'));
    const res = await request(t.url).post(`/api/team/invitations/${token}/accept`).send({ name: 'Cody' }).expect(200);
    expect(res.body.user.role).toBe('viewer');
    const methods = await request(t.url).post('/api/auth/check-methods').send({ email: 'cody@example.com' }).expect(200);
    expect(methods.body.methods).toEqual({ password: false, otp: true });
  });

  it('an expired link is refused (410) and creates nothing; a newer invitation replaces the older link', async () => {
    const first = tokenOf(await invite('late@example.com', 'agent'));
    const second = tokenOf(await invite('late@example.com', 'viewer'));
    const replaced = await request(t.url).post(`/api/team/invitations/${first}/accept`).send({ name: 'Late' }).expect(410);
    expect(replaced.body.error.message).toMatch(/withdrawn or replaced/);

    const clock = t.app.get(Clock);
    const realNow = clock.now;
    clock.now = () => Date.now() + 72 * 3_600_000 + 1000;
    try {
      const expired = await request(t.url).post(`/api/team/invitations/${second}/accept`).send({ name: 'Late', password: 'late password 123' }).expect(410);
      expect(expired.body.error.message).toBe('This invitation link has expired (links work for 72 hours). Ask whoever invited you to send a new one.');
      await request(t.url).get(`/api/team/invitations/${second}`).expect(410);
    } finally {
      clock.now = realNow;
    }
    expect(await t.app.get(AdminUsersService).findByEmail('late@example.com')).toBeNull();

    const unknown = await request(t.url).get(`/api/team/invitations/${'x'.repeat(43)}`).expect(404);
    expect(unknown.body.error.message).toMatch(/not valid/);
    await request(t.url).post('/api/team/invitations/nonsense/accept').send({ name: 'X' }).expect(404);
  });

  it('refuses bad invitations: an existing member (409), an invalid email, an unknown role (400); an admin cannot invite an owner (403)', async () => {
    const existing = await owner.post('/api/team/invitations').send({ email: OWNER.email.toUpperCase(), role: 'agent' }).expect(409);
    expect(existing.body.error.message).toBe('olive@example.com is already a member of the team.');
    const badEmail = await owner.post('/api/team/invitations').send({ email: 'not-an-email', role: 'agent' }).expect(400);
    expect(badEmail.body.error.message).toBe('Enter a valid email address');
    const badRole = await owner.post('/api/team/invitations').send({ email: 'x@example.com', role: 'superuser' }).expect(400);
    expect(badRole.body.error.message).toBe('The role must be one of: owner, admin, agent, viewer');
    await owner.post('/api/team/invitations').send({ email: 'x@example.com' }).expect(400);
    const admin = await member('adam@example.com', 'admin');
    const ownerInvite = await admin.agent.post('/api/team/invitations').send({ email: 'boss@example.com', role: 'owner' }).expect(403);
    expect(ownerInvite.body.error.message).toMatch(/Only an owner/);
    expect(mailsTo(t.config.dataDir, 'x@example.com')).toEqual([]);
    expect(mailsTo(t.config.dataDir, 'boss@example.com')).toEqual([]);
  });

  it('the last enabled owner cannot be removed, disabled or demoted (409); with a second owner they can be', async () => {
    const lastOwner = 'The team needs at least one enabled owner: make another member an owner first.';
    const demote = await owner.patch(`/api/team/members/${ownerId}`).send({ role: 'admin' }).expect(409);
    expect(demote.body.error).toEqual({ code: 'conflict', message: lastOwner });
    expect((await owner.patch(`/api/team/members/${ownerId}`).send({ disabled: true }).expect(409)).body.error.message).toBe(lastOwner);
    expect((await owner.delete(`/api/team/members/${ownerId}`).expect(409)).body.error.message).toBe(lastOwner);
    expect((await t.app.get(AdminUsersService).findById(ownerId))?.role).toBe('owner');

    const second = await member('sam@example.com', 'admin');
    await owner.patch(`/api/team/members/${second.id}`).send({ role: 'owner' }).expect(200);
    // Now the first owner may step down, and the second cannot.
    const stepDown = await owner.patch(`/api/team/members/${ownerId}`).send({ role: 'admin' }).expect(200);
    expect(stepDown.body.data.role).toBe('admin');
    await second.agent.patch(`/api/team/members/${second.id}`).send({ role: 'agent' }).expect(409);
    await second.agent.patch(`/api/team/members/${ownerId}`).send({ role: 'owner' }).expect(200);
    await owner.get('/api/auth/me').expect(200);
  });

  it('an admin manages agents and viewers but not owners (403), and cannot make anyone an owner', async () => {
    const admin = await member('adam@example.com', 'admin');
    const victim = await member('vic@example.com', 'viewer');
    await admin.agent.patch(`/api/team/members/${victim.id}`).send({ role: 'agent' }).expect(200);
    expect((await admin.agent.patch(`/api/team/members/${victim.id}`).send({ role: 'owner' }).expect(403)).body.error.message).toMatch(/Only an owner/);
    await admin.agent.patch(`/api/team/members/${ownerId}`).send({ disabled: true }).expect(403);
    await admin.agent.delete(`/api/team/members/${ownerId}`).expect(403);
    await admin.agent.delete(`/api/team/members/${ownerId}/totp`).expect(403);
    expect((await t.app.get(AdminUsersService).findById(ownerId))?.disabledAt).toBeNull();
  });

  it("disabling or removing a member ends their sessions at once: 401 over HTTP and their /admin socket closed", async () => {
    const disabled = await member('dora@example.com', 'agent');
    const socket = await adminSocket(t.url, disabled.cookie);
    const closed = new Promise<number>((resolve) => {
      const start = Date.now();
      socket.once('disconnect', () => resolve(Date.now() - start));
    });
    const res = await owner.patch(`/api/team/members/${disabled.id}`).send({ disabled: true }).expect(200);
    expect(res.body.data.status).toBe('disabled');
    expect(await closed).toBeLessThan(1000);
    await disabled.agent.get('/api/knowledge').expect(401);
    const refused = await request(t.url).post('/api/auth/login-password').send({ email: 'dora@example.com', password: 'dora@example.com password' }).expect(403);
    expect(refused.body.error.message).toMatch(/disabled/);
    await owner.patch(`/api/team/members/${disabled.id}`).send({ disabled: false }).expect(200);
    await signedIn(t, 'dora@example.com', 'dora@example.com password');

    const removed = await member('rex@example.com', 'viewer');
    const removedSocket = await adminSocket(t.url, removed.cookie);
    const gone = new Promise<void>((resolve) => removedSocket.once('disconnect', () => resolve()));
    const answer = await owner.delete(`/api/team/members/${removed.id}`).expect(200);
    expect(answer.body.data.email).toBe('rex@example.com');
    await gone;
    await removed.agent.get('/api/knowledge').expect(401);
    await owner.delete(`/api/team/members/${removed.id}`).expect(404);
    await owner.patch('/api/team/members/nobody').send({ role: 'agent' }).expect(404);
    const removal = (await owner.get('/api/audit?action=member.remove').expect(200)).body.data.entries[0];
    expect(removal.changes).toEqual(expect.arrayContaining([{ field: 'role', before: 'viewer' }, { field: 'email', before: 'rex@example.com' }]));
  });

  it('an agent reads knowledge and conversations; configuration, budgets, team, audit and API keys answer 403', async () => {
    const agent = await member('agnes@example.com', 'agent');
    await agent.agent.get('/api/knowledge').expect(200);
    await agent.agent.get('/api/conversations').expect(200);
    for (const route of ['/api/config', '/api/config/agents', '/api/budgets', '/api/team/members', '/api/audit', '/api/audit/export', '/api/api-keys']) {
      const res = await agent.agent.get(route);
      expect([route, res.status, res.body.error?.message]).toEqual([route, 403, 'Your role (Agent) does not allow this.']);
    }
    await agent.agent.post('/api/team/invitations').send({ email: 'z@example.com', role: 'agent' }).expect(403);
    await agent.agent.patch(`/api/team/members/${agent.id}`).send({ role: 'owner' }).expect(403);
    expect((await t.app.get(AdminUsersService).findById(agent.id))?.role).toBe('agent');
  });

  it('refuses bad member changes with a 400 that says what to fix', async () => {
    const target = await member('bea@example.com', 'viewer');
    expect((await owner.patch(`/api/team/members/${target.id}`).send({}).expect(400)).body.error.message).toBe('Send the role, the name or whether the member is disabled');
    expect((await owner.patch(`/api/team/members/${target.id}`).send({ role: 'root' }).expect(400)).body.error.message).toBe('The role must be one of: owner, admin, agent, viewer');
    expect((await owner.patch(`/api/team/members/${target.id}`).send({ disabled: 'yes' }).expect(400)).body.error.message).toBe('Disabled must be true or false');
    await owner.patch(`/api/team/members/${target.id}`).send({ name: 'x'.repeat(101) }).expect(400);
  });
});

describe('team: upgrade', () => {
  it('existing admins become owners when the team migration runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-team-upgrade-'));
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    const config = loadConfig({}, { dataDir, databaseUrl: distributed.databaseUrl, databaseSchema: schema, logLevel: 'error' });
    const ds = await openDataSource(config);
    try {
      // Back to the schema before members had roles.
      for (;;) {
        const [last] = (await ds.query('SELECT name FROM migrations ORDER BY timestamp DESC LIMIT 1')) as Array<{ name: string }>;
        if (!last) throw new Error('no team migration was run');
        await ds.undoLastMigration();
        if (last.name.startsWith('Team')) break;
      }
      await ds.query(
        "INSERT INTO admin_users (id, email, name, password_hash, password_login, otp_login, created_at, updated_at) VALUES ('u1', 'old@example.com', 'Old Admin', NULL, false, true, 1, 1)",
      );
      await ds.runMigrations({ transaction: 'each' });
      const [row] = (await ds.query("SELECT role, disabled_at FROM admin_users WHERE id = 'u1'")) as Array<{ role: string; disabled_at: unknown }>;
      expect(row).toEqual({ role: 'owner', disabled_at: null });
    } finally {
      await ds.destroy();
      if (schema && config.databaseUrl) await dropPostgresSchema(config.databaseUrl, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
