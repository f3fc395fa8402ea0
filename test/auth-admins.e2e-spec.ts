/**
 * Admin users: the first-start admin (admin@localhost, code sign-in, instructions in the log),
 * ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME create-or-update at start, argon2id hashes,
 * case-insensitive unique emails, the 12..128 password rule, and `npm run admin -- add |
 * set-password | remove | list` run as a real process against a running server's database.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { io } from 'socket.io-client';
import request from 'supertest';
import { AdminUser } from '../src/auth/admin-user.entity';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { AppError } from '../src/common/app-error';
import { startTestApp, TestApp } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');

function captureOutput(): { text(): string; restore(): void } {
  const chunks: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const capture = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  return {
    text: () => chunks.join(''),
    restore: () => {
      process.stdout.write = out;
      process.stderr.write = err;
    },
  };
}

/** Runs the admin CLI (from source, as `npm run admin` runs it from dist/) against the app's database. */
function adminCli(t: TestApp, args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: t.config.dataDir, TS_NODE_TRANSPILE_ONLY: 'true' };
    if (t.config.databaseUrl) env.DATABASE_URL = t.config.databaseUrl;
    if (t.config.databaseSchema) env.DATABASE_SCHEMA = t.config.databaseSchema;
    if (t.config.redisUrl) Object.assign(env, { REDIS_URL: t.config.redisUrl, REDIS_PREFIX: t.config.redisPrefix });
    const child = spawn(process.execPath, ['-r', 'ts-node/register', 'src/auth/admin-cli.ts', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const login = (t: TestApp, email: string, password: string) => request(t.url).post('/api/auth/login-password').send({ email, password });
const methodsOf = async (t: TestApp, email: string) => (await request(t.url).post('/api/auth/check-methods').send({ email })).body.methods;

describe('admin users', () => {
  it('first start with no admin: creates admin@localhost with code sign-in only, and logs how to sign in', async () => {
    const output = captureOutput();
    let t: TestApp | undefined;
    try {
      t = await startTestApp({ logLevel: 'log', seedSampleKnowledge: false });
      const log = output.text();
      output.restore();
      const admins = await t.dataSource.getRepository(AdminUser).find();
      expect(admins.map((a) => [a.email, a.passwordLogin, a.otpLogin, a.passwordHash])).toEqual([['admin@localhost', false, true, null]]);
      expect(log).toContain('admin@localhost');
      expect(log).toContain('/admin');
      expect(log).toContain(path.join(t.config.dataDir, 'outbox'));
      expect(log).toContain('npm run admin -- add');
      expect(await methodsOf(t, 'admin@localhost')).toEqual({ password: false, otp: true });
    } finally {
      output.restore();
      await t?.close();
    }
  });

  it('ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME create the admin, and a restart with new values updates it', async () => {
    const first = await startTestApp({ adminEmail: 'boss@example.com', adminPassword: 'first password!', adminName: 'The Boss', seedSampleKnowledge: false });
    let second: TestApp | undefined;
    let third: TestApp | undefined;
    try {
      const users = await first.dataSource.getRepository(AdminUser).find();
      expect(users.map((u) => u.email)).toEqual(['boss@example.com']); // no admin@localhost when ADMIN_EMAIL is set
      expect(users[0].passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await methodsOf(first, 'boss@example.com')).toEqual({ password: true, otp: true });
      const ok = await login(first, 'boss@example.com', 'first password!').expect(200);
      expect(ok.body.user).toMatchObject({ name: 'The Boss', email: 'boss@example.com', role: 'owner' });
      await first.close({ keepData: true });

      second = await startTestApp({
        dataDir: first.config.dataDir,
        databaseSchema: first.config.databaseSchema,
        adminEmail: 'BOSS@example.com',
        adminPassword: 'second password!',
        adminName: 'Chief',
        seedSampleKnowledge: false,
      });
      await login(second, 'boss@example.com', 'first password!').expect(401);
      const renamed = await login(second, 'boss@example.com', 'second password!').expect(200);
      expect(renamed.body.user).toMatchObject({ name: 'Chief', email: 'boss@example.com', role: 'owner' });
      expect(await second.dataSource.getRepository(AdminUser).count()).toBe(1);
      await second.close({ keepData: true });

      // ADMIN_EMAIL alone keeps the password set before.
      third = await startTestApp({ dataDir: first.config.dataDir, databaseSchema: first.config.databaseSchema, adminEmail: 'boss@example.com', seedSampleKnowledge: false });
      await login(third, 'boss@example.com', 'second password!').expect(200);
    } finally {
      await third?.close();
      if (!third) await (second ?? first).close().catch(() => undefined);
    }
  });

  it('ADMIN_EMAIL without ADMIN_PASSWORD: code sign-in only', async () => {
    const t = await startTestApp({ adminEmail: 'codes@example.com', seedSampleKnowledge: false });
    try {
      expect(await methodsOf(t, 'codes@example.com')).toEqual({ password: false, otp: true });
    } finally {
      await t.close();
    }
  });

  describe('rules', () => {
    let t: TestApp;
    let users: AdminUsersService;

    beforeAll(async () => {
      t = await startTestApp({ seedSampleKnowledge: false });
      users = t.app.get(AdminUsersService);
    });

    afterAll(async () => {
      await t?.close();
    });

    it('emails are unique case-insensitively and stored lower-case', async () => {
      const created = await users.create({ email: '  Mixed.Case@Example.COM ', name: 'Mixed' });
      expect(created.email).toBe('mixed.case@example.com');
      await expect(users.create({ email: 'MIXED.case@example.com' })).rejects.toMatchObject({ code: 'conflict' });
      expect((await users.findByEmail('MIXED.CASE@EXAMPLE.COM'))?.id).toBe(created.id);
    });

    it('passwords: at least 12 and at most 128 characters, no composition rules', async () => {
      await expect(users.create({ email: 'short@example.com', password: 'x'.repeat(11) })).rejects.toBeInstanceOf(AppError);
      await expect(users.create({ email: 'long@example.com', password: 'x'.repeat(129) })).rejects.toThrow(/at most 128/);
      await users.create({ email: 'min@example.com', password: 'aaaaaaaaaaaa' });
      await users.create({ email: 'max@example.com', password: 'z'.repeat(128) });
      await login(t, 'min@example.com', 'aaaaaaaaaaaa').expect(200);
      await login(t, 'max@example.com', 'z'.repeat(128)).expect(200);
      expect(await t.dataSource.getRepository(AdminUser).countBy({ email: 'short@example.com' })).toBe(0);
    });
  });

  describe('npm run admin', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ seedSampleKnowledge: false, adminSocketCheckMs: 200 });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('add, list, set-password and remove manage admins of the running server', async () => {
      const added = await adminCli(t, ['add', 'Ops@Example.com', '--name', 'Ops Team', '--password'], 'ops password 123\n');
      expect(added).toMatchObject({ code: 0 });
      expect(added.stdout).toContain('Added ops@example.com as owner (sign-in: password + code)');
      expect(added.stdout + added.stderr).not.toContain('ops password 123');

      const list = await adminCli(t, ['list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(/^admin@localhost\t-\towner\tactive\tcode\t/m);
      expect(list.stdout).toMatch(/^ops@example\.com\tOps Team\towner\tactive\tpassword \+ code\t/m);

      const session = await login(t, 'ops@example.com', 'ops password 123').expect(200);
      const cookie = String(session.headers['set-cookie']).split(';')[0];

      const changed = await adminCli(t, ['set-password', 'ops@example.com'], 'a brand new password\n');
      expect(changed.code).toBe(0);
      await login(t, 'ops@example.com', 'ops password 123').expect(401);
      await login(t, 'ops@example.com', 'a brand new password').expect(200);

      const socket = io(`${t.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { Cookie: cookie } });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      const dropped = new Promise((resolve) => socket.once('disconnect', resolve));
      const removed = await adminCli(t, ['remove', 'OPS@example.com']);
      expect(removed).toMatchObject({ code: 0 });
      await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(401);
      await login(t, 'ops@example.com', 'a brand new password').expect(401);
      await expect(dropped).resolves.toBe('io server disconnect'); // the periodic re-check ends its socket too
      socket.close();
      expect((await adminCli(t, ['list'])).stdout).not.toContain('ops@example.com');
    }, 240_000);

    it('uses the team rules: roles, disable and enable, and the last enabled owner stays', async () => {
      const added = await adminCli(t, ['add', 'vera@example.com', '--role', 'viewer', '--password'], 'vera password 123\n');
      expect(added.stdout).toContain('Added vera@example.com as viewer');
      const session = await login(t, 'vera@example.com', 'vera password 123').expect(200);
      const cookie = String(session.headers['set-cookie']).split(';')[0];
      await request(t.url).get('/api/config').set('Cookie', cookie).expect(403);

      expect((await adminCli(t, ['set-role', 'vera@example.com', 'admin'])).stdout).toContain('vera@example.com is now admin.');
      await request(t.url).get('/api/config').set('Cookie', cookie).expect(200);
      expect((await adminCli(t, ['disable', 'vera@example.com'])).stdout).toContain('Disabled vera@example.com; their sessions have ended.');
      await request(t.url).get('/api/auth/me').set('Cookie', cookie).expect(401);
      await login(t, 'vera@example.com', 'vera password 123').expect(403);
      await adminCli(t, ['enable', 'vera@example.com']);
      await login(t, 'vera@example.com', 'vera password 123').expect(200);

      const badRole = await adminCli(t, ['set-role', 'vera@example.com', 'root']);
      expect(badRole.code).toBe(2);
      expect(badRole.stderr).toContain('The role must be one of: owner, admin, agent, viewer');
      // admin@localhost is the only owner now.
      for (const args of [['set-role', 'admin@localhost', 'agent'], ['disable', 'admin@localhost'], ['remove', 'admin@localhost']]) {
        const refused = await adminCli(t, args);
        expect([args[0], refused.code, refused.stderr.trim()]).toEqual([args[0], 1, 'The team needs at least one enabled owner: make another member an owner first.']);
      }
      expect((await t.app.get(AdminUsersService).findByEmail('admin@localhost'))?.role).toBe('owner');
      await adminCli(t, ['remove', 'vera@example.com']);
    }, 240_000);

    it('refuses bad input with a message and a non-zero exit code', async () => {
      const short = await adminCli(t, ['add', 'weak@example.com', '--password'], 'too short\n');
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('at least 12 characters');
      const duplicate = await adminCli(t, ['add', 'ADMIN@localhost']);
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain('already exists');
      const unknown = await adminCli(t, ['remove', 'nobody@example.com']);
      expect(unknown.code).toBe(1);
      const usage = await adminCli(t, ['frobnicate']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('Usage: npm run admin');
      expect(await t.dataSource.getRepository(AdminUser).countBy({ email: 'weak@example.com' })).toBe(0);
    }, 240_000);
  });
});
