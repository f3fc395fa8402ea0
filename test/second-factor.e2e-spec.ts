/**
 * The TOTP second factor through the real API: set-up (a secret turns on only after a valid
 * code), sign-in in two steps (the half-signed-in session opens nothing else), codes refused when
 * reused, stale, malformed or wrong (and counted in the sign-in throttling), recovery codes that
 * work once, the owner's "require for everyone" and reset, and the secret encrypted at rest.
 * The app's clock is moved instead of waiting for the next 30-second step.
 */
import { TOTP, Secret } from 'otpauth';
import request from 'supertest';
import { io } from 'socket.io-client';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { Clock } from '../src/common/clock';
import type { Role } from '../src/shared/contracts/roles';
import { startTestApp, TestApp } from './support/test-app';

const PERIOD_MS = 30_000;

/** The code an authenticator app shows for `secret` at `at` (epoch ms). */
function codeAt(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
}

type Agent = ReturnType<typeof request.agent>;

describe('second factor (TOTP)', () => {
  let t: TestApp;
  let now: number;
  const users = () => t.app.get(AdminUsersService);
  const advance = (ms: number) => (now += ms);

  async function member(email: string, password = `${email} password`, role: Role = 'owner'): Promise<{ email: string; password: string; id: string }> {
    const user = (await users().findByEmail(email)) ?? (await users().create({ email, name: email.split('@')[0], password, role }));
    return { email, password, id: user.id };
  }

  async function signInFirstFactor(who: { email: string; password: string }): Promise<{ agent: Agent; body: any }> {
    const agent = request.agent(t.url);
    const res = await agent.post('/api/auth/login-password').send({ email: who.email, password: who.password }).expect(200);
    return { agent, body: res.body };
  }

  async function enrol(agent: Agent): Promise<{ secret: string; recoveryCodes: string[] }> {
    const enrolment = (await agent.post('/api/auth/totp/enrol').expect(200)).body.data;
    const confirmed = await agent.post('/api/auth/totp/confirm').send({ code: codeAt(enrolment.secret, now) }).expect(200);
    return { secret: enrolment.secret, recoveryCodes: confirmed.body.data.recoveryCodes };
  }

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 100_000 });
    now = Date.UTC(2026, 0, 5, 9, 0, 0);
    t.app.get(Clock).now = () => now;
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => advance(10 * 60_000));

  it('enrol, sign out, sign in with the password and then the code; the half-signed-in session opens nothing else', async () => {
    const ann = await member('ann@example.com');
    const { agent } = await signInFirstFactor(ann);
    const status = await agent.get('/api/auth/totp').expect(200);
    expect(status.body.data).toMatchObject({ enabled: false, recoveryCodesLeft: 0, required: false });

    const enrolment = (await agent.post('/api/auth/totp/enrol').expect(200)).body.data;
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.otpauthUri).toBe(`otpauth://totp/Support%20Assistant:ann%40example.com?issuer=Support%20Assistant&secret=${enrolment.secret}&algorithm=SHA1&digits=6&period=30`);
    expect(enrolment.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    // Not in force before a code confirms it: the next sign-in is a full one at once.
    expect((await signInFirstFactor(ann)).body.user).toMatchObject({ name: 'ann', email: 'ann@example.com' });

    const wrong = await agent.post('/api/auth/totp/confirm').send({ code: codeAt(enrolment.secret, now - 10 * PERIOD_MS) }).expect(400);
    expect(wrong.body.error.message).toMatch(/does not match/);
    const confirmed = await agent.post('/api/auth/totp/confirm').send({ code: codeAt(enrolment.secret, now) }).expect(200);
    expect(confirmed.body.data.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.data.recoveryCodes).size).toBe(10);
    for (const code of confirmed.body.data.recoveryCodes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    expect((await agent.get('/api/auth/totp').expect(200)).body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    await agent.post('/api/auth/totp/enrol').expect(409);

    await agent.post('/api/auth/logout').expect(200);
    advance(PERIOD_MS);
    const first = await signInFirstFactor(ann);
    expect(first.body).toMatchObject({ success: true, secondFactor: 'totp', data: { secondFactor: 'totp' } });
    expect(first.body.user).toBeUndefined();

    // Half signed in: nothing of the console, no /admin socket; /me says what is still to come.
    await first.agent.get('/api/knowledge').expect(401);
    await first.agent.get('/api/auth/sessions').expect(401);
    await first.agent.post('/api/auth/totp/enrol').expect(401);
    await first.agent.put('/api/config/global').send({ requireApiKey: true }).expect(401);
    const me = await first.agent.get('/api/auth/me').expect(200);
    expect(me.body).toMatchObject({ success: true, secondFactor: 'totp', data: { user: { email: 'ann@example.com' } } });
    expect(me.body.user).toBeUndefined();
    const pendingCookie = cookieOf(first.agent, t.url);
    const refused = await new Promise<string>((resolve) => {
      const socket = io(`${t.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { cookie: pendingCookie } });
      socket.once('connect', () => resolve('connected'));
      socket.once('connect_error', (error) => resolve(error.message));
    });
    expect(refused).toBe('Not authenticated');

    const signedIn = await first.agent.post('/api/auth/verify-totp').send({ code: codeAt(enrolment.secret, now) }).expect(200);
    expect(signedIn.body).toMatchObject({ success: true, message: 'Login successful', user: { email: 'ann@example.com' } });
    await first.agent.get('/api/knowledge').expect(200);
    // The half-signed-in cookie was replaced, not upgraded.
    await request(t.url).get('/api/auth/me').set('Cookie', pendingCookie).expect(401);
  });

  it('refuses a reused code, an older one, a stale one, 5 digits, non-digits, and both kinds at once', async () => {
    const bob = await member('bob@example.com');
    const { secret } = await enrol((await signInFirstFactor(bob)).agent);
    advance(PERIOD_MS);
    const code = codeAt(secret, now);
    await (await signInFirstFactor(bob)).agent.post('/api/auth/verify-totp').send({ code }).expect(200);

    const again = (await signInFirstFactor(bob)).agent;
    const reused = await again.post('/api/auth/verify-totp').send({ code }).expect(401);
    expect(reused.body.error.message).toBe('This code was already used. Wait for the next code in your authenticator app.');
    // The previous step's code is still within the window, but older than the one accepted.
    const older = await again.post('/api/auth/verify-totp').send({ code: codeAt(secret, now - PERIOD_MS) }).expect(401);
    expect(older.body.error.message).toMatch(/already used/);
    const stale = await again.post('/api/auth/verify-totp').send({ code: codeAt(secret, now - 3 * PERIOD_MS) }).expect(401);
    expect(stale.body.error.message).toBe('The code is not right. Enter the newest code from your authenticator app.');

    const five = await again.post('/api/auth/verify-totp').send({ code: '12345' }).expect(400);
    expect(five.body.error.message).toBe('Enter all 6 digits of the code');
    const letters = await again.post('/api/auth/verify-totp').send({ code: '12a456' }).expect(400);
    expect(letters.body.error.message).toBe('The code from your authenticator app is made of digits only');
    await again.post('/api/auth/verify-totp').send({}).expect(400);
    await again.post('/api/auth/verify-totp').send({ code: 123456 }).expect(400);
    await again.post('/api/auth/verify-totp').send({ code: '1234567' }).expect(400);
    const both = await again.post('/api/auth/verify-totp').send({ code: '123456', recoveryCode: 'abcde-23456' }).expect(400);
    expect(both.body.error.message).toBe('Send either the code or a recovery code, not both');

    // The next step's code, with spaces as apps show it, signs in.
    advance(PERIOD_MS);
    const next = codeAt(secret, now);
    await again.post('/api/auth/verify-totp').send({ code: `${next.slice(0, 3)} ${next.slice(3)}` }).expect(200);
  });

  it('a recovery code works once, in any case and with or without its hyphen', async () => {
    const cy = await member('cy@example.com');
    const { recoveryCodes } = await enrol((await signInFirstFactor(cy)).agent);
    const [code] = recoveryCodes;
    const first = (await signInFirstFactor(cy)).agent;
    await first.post('/api/auth/verify-totp').send({ recoveryCode: code.toUpperCase().replace('-', ' ') }).expect(200);
    expect((await first.get('/api/auth/totp').expect(200)).body.data.recoveryCodesLeft).toBe(9);

    const second = (await signInFirstFactor(cy)).agent;
    const used = await second.post('/api/auth/verify-totp').send({ recoveryCode: code }).expect(401);
    expect(used.body.error.message).toBe('This recovery code is not valid or was already used.');
    const malformed = await second.post('/api/auth/verify-totp').send({ recoveryCode: 'abc' }).expect(400);
    expect(malformed.body.error.message).toBe('Enter a recovery code such as abcde-23456');
    await second.post('/api/auth/verify-totp').send({ recoveryCode: recoveryCodes[1] }).expect(200);
  });

  it('wrong codes count in the sign-in throttling: the 11th try from an address waits, even with the right code', async () => {
    const dee = await member('dee@example.com');
    const { secret } = await enrol((await signInFirstFactor(dee)).agent);
    advance(PERIOD_MS);
    const { agent } = await signInFirstFactor(dee);
    const wrong = codeAt(secret, now + 20 * PERIOD_MS);
    for (let i = 0; i < 10; i++) await agent.post('/api/auth/verify-totp').send({ code: wrong }).expect(401);
    const limited = await agent.post('/api/auth/verify-totp').send({ code: codeAt(secret, now) }).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.error.message).toMatch(/Too many sign-in attempts/);
    const failures = await t.dataSource.query(`SELECT count(*) AS n FROM admin_sign_in_events WHERE email = 'dee@example.com' AND method = 'totp' AND outcome = 'failure'`);
    expect(Number(failures[0].n)).toBe(10);
  });

  it('turning it off needs a code; the secret is stored encrypted', async () => {
    const eve = await member('eve@example.com');
    const { agent } = await signInFirstFactor(eve);
    const { secret } = await enrol(agent);
    const [row] = await t.dataSource.query(`SELECT secret FROM admin_second_factors WHERE user_id = '${eve.id}'`);
    expect(row.secret).toMatch(/^v1:/);
    expect(row.secret).not.toContain(secret);

    await agent.delete('/api/auth/totp').send({}).expect(400);
    advance(PERIOD_MS);
    await agent.delete('/api/auth/totp').send({ code: codeAt(secret, now + 10 * PERIOD_MS) }).expect(400);
    await agent.delete('/api/auth/totp').send({ code: codeAt(secret, now) }).expect(200);
    expect((await agent.get('/api/auth/totp').expect(200)).body.data.enabled).toBe(false);
    expect((await signInFirstFactor(eve)).body.user).toMatchObject({ name: 'eve', email: 'eve@example.com' });
    expect(await t.dataSource.query(`SELECT * FROM admin_recovery_codes WHERE user_id = '${eve.id}'`)).toEqual([]);
  });

  it('an owner requires it of everyone: members without one can only set it up, then are signed in; an owner resets a member', async () => {
    const owner = await member('owner@example.com');
    const ownerAgent = (await signInFirstFactor(owner)).agent;
    const noOwnYet = await ownerAgent.put('/api/auth/security').send({ requireSecondFactor: true }).expect(409);
    expect(noOwnYet.body.error.message).toMatch(/your own two-factor/);
    const ownerFactor = await enrol(ownerAgent);

    const fay = await member('fay@example.com', undefined, 'admin');
    const fayBefore = (await signInFirstFactor(fay)).agent;
    await fayBefore.get('/api/knowledge').expect(200);

    await ownerAgent.put('/api/auth/security').send({ requireSecondFactor: true }).expect(200);
    expect((await ownerAgent.get('/api/auth/security').expect(200)).body.data).toEqual({ requireSecondFactor: true });
    await ownerAgent.get('/api/knowledge').expect(200);
    // Fay's open session now only opens the set-up.
    await fayBefore.get('/api/knowledge').expect(401);
    expect((await fayBefore.get('/api/auth/me').expect(200)).body.secondFactor).toBe('enrol');

    const fresh = await signInFirstFactor(fay);
    expect(fresh.body).toMatchObject({ secondFactor: 'enrol', message: 'Set up two-factor authentication to continue' });
    await fresh.agent.get('/api/knowledge').expect(401);
    await fresh.agent.get('/api/api-keys').expect(401);
    await fresh.agent.post('/api/auth/verify-totp').send({ code: '123456' }).expect(401);
    expect((await fresh.agent.get('/api/auth/totp').expect(200)).body.data.required).toBe(true);
    const enrolment = (await fresh.agent.post('/api/auth/totp/enrol').expect(200)).body.data;
    const confirmed = await fresh.agent.post('/api/auth/totp/confirm').send({ code: codeAt(enrolment.secret, now) }).expect(200);
    expect(confirmed.body.data).toMatchObject({ signedIn: true, user: { email: 'fay@example.com' } });
    await fresh.agent.get('/api/knowledge').expect(200);
    // Only an owner changes the policy or resets someone else's.
    await fresh.agent.put('/api/auth/security').send({ requireSecondFactor: false }).expect(403);
    await fresh.agent.delete(`/api/team/members/${owner.id}/totp`).expect(403);
    advance(PERIOD_MS);
    const cannotTurnOff = await fresh.agent.delete('/api/auth/totp').send({ code: codeAt(enrolment.secret, now) }).expect(403);
    expect(cannotTurnOff.body.error.message).toMatch(/required for every member/);

    // The owner resets Fay's (a lost phone): her sessions end, and she must set one up again.
    await ownerAgent.delete(`/api/team/members/${owner.id}/totp`).expect(400);
    await ownerAgent.delete('/api/team/members/00000000-0000-4000-8000-000000000000/totp').expect(404);
    await ownerAgent.delete(`/api/team/members/${fay.id}/totp`).expect(200);
    await fresh.agent.get('/api/auth/me').expect(401);
    expect((await signInFirstFactor(fay)).body.secondFactor).toBe('enrol');
    const audit = await t.dataSource.query(`SELECT * FROM audit_entries WHERE action = 'member.totp-reset'`);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0])).toContain('owner@example.com');

    advance(PERIOD_MS);
    await ownerAgent.put('/api/auth/security').send({ requireSecondFactor: false }).expect(200);
    expect((await signInFirstFactor(fay)).body.user).toMatchObject({ name: 'fay', email: 'fay@example.com' });
    expect(ownerFactor.recoveryCodes).toHaveLength(10);
    const actions = (await t.dataSource.query(`SELECT action FROM audit_entries`)).map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['auth.totp-enable', 'settings.sign-in-policy', 'member.totp-reset', 'auth.first-factor-passed', 'auth.sign-in']));
  });
});

/** The Cookie header a supertest agent would send to `url`. */
function cookieOf(agent: Agent, url: string): string {
  const jar = (agent as unknown as { jar: { getCookies(access: unknown): Array<{ name: string; value: string }> } }).jar;
  const { hostname } = new URL(url);
  return jar
    .getCookies({ domain: hostname, path: '/', secure: false, script: false })
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
}
