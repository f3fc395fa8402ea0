/**
 * One-time codes end to end: the mail, single use (also under 20 parallel submissions), the
 * 5-try limit, the 10-minute lifetime (controlled clock), replacement by a newer code, and the
 * per-email request limits (429 + Retry-After).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { Clock } from '../src/common/clock';
import { OneTimeCode } from '../src/auth/one-time-code.entity';
import { MailOutbox } from '../src/mail/mail-outbox.entity';
import { eventually, startTestApp, TestApp } from './support/test-app';

/** Shifts one app's clock (the injected Clock), leaving real time alone. */
function controlClock(t: TestApp): { advance(ms: number): void; reset(): void } {
  const clock = t.app.get(Clock);
  let offset = 0;
  clock.now = () => Date.now() + offset;
  return { advance: (ms) => (offset += ms), reset: () => (offset = 0) };
}

function mailFiles(t: TestApp, email: string): string[] {
  const dir = path.join(t.config.dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(`-${email}.eml`))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The code of the nth mail (1-based) to `email` in DATA_DIR/outbox, waiting for it to be written. */
async function codeFromOutbox(t: TestApp, email: string, nth: number): Promise<string> {
  return eventually(
    () => {
      const files = mailFiles(t, email);
      if (files.length < nth) return undefined;
      return /Verification code: (\d{6})/.exec(fs.readFileSync(files[nth - 1], 'utf8'))?.[1];
    },
    10000,
    `mail #${nth} to ${email}`,
  );
}

const verify = (t: TestApp, email: string, otp: string) => request(t.url).post('/api/auth/verify-otp').send({ email, otp });
const requestCode = (t: TestApp, email: string) => request(t.url).post('/api/auth/request-otp').send({ email });

/** A code different from `code` (the only 6-digit string sure to be wrong). */
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('one-time codes', () => {
  let t: TestApp;
  let clock: ReturnType<typeof controlClock>;
  let users: AdminUsersService;
  let n = 0;

  /** A fresh admin per test: its own codes and per-email limits. */
  async function newAdmin(name = 'Grace Hopper'): Promise<string> {
    n += 1;
    const email = `admin${n}@example.com`;
    await users.create({ email, name });
    return email;
  }

  beforeAll(async () => {
    t = await startTestApp({ signInIpLimit: 10000, seedSampleKnowledge: false });
    clock = controlClock(t);
    users = t.app.get(AdminUsersService);
  });

  afterEach(() => clock.reset());

  afterAll(async () => {
    await t?.close();
  });

  it('mails a 6-digit code, in plain text and HTML, saying it expires in 10 minutes; it signs in once', async () => {
    const email = await newAdmin();
    const res = await requestCode(t, email).expect(200);
    expect(res.body).toMatchObject({ success: true, message: 'Verification code sent to your email' });
    const code = await codeFromOutbox(t, email, 1);
    expect(code).toMatch(/^\d{6}$/);
    // Quoted-printable soft line breaks and escapes undone.
    const eml = fs
      .readFileSync(mailFiles(t, email)[0], 'utf8')
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(eml).toMatch(/Content-Type: text\/plain/);
    expect(eml).toMatch(/Content-Type: text\/html/);
    expect(eml.match(/expires in 10 minutes/g)?.length).toBeGreaterThanOrEqual(2);
    expect(eml).toMatch(new RegExp(`^To: ${email.replace('.', '\\.')}$`, 'm'));

    const ok = await verify(t, email, code).expect(200);
    expect(ok.body).toMatchObject({ success: true, message: 'Login successful', user: { name: 'Grace Hopper', email } });
    await request(t.url).get('/api/auth/me').set('Cookie', String(ok.headers['set-cookie']).split(';')[0]).expect(200);

    const again = await verify(t, email, code).expect(401);
    expect(again.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });

  it('stores only a 64-hex HMAC of the code, never the code', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const code = await codeFromOutbox(t, email, 1);
    const user = await users.findByEmail(email);
    const rows = await t.dataSource.getRepository(OneTimeCode).findBy({ userId: user!.id });
    expect(rows).toHaveLength(1);
    expect(rows[0].codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('5 wrong codes, then the right one: refused', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const code = await codeFromOutbox(t, email, 1);
    const messages: string[] = [];
    for (let i = 0; i < 5; i += 1) messages.push((await verify(t, email, wrongCode(code)).expect(401)).body.error.message);
    expect(messages.slice(0, 4)).toEqual([
      'Invalid verification code. 4 attempts left.',
      'Invalid verification code. 3 attempts left.',
      'Invalid verification code. 2 attempts left.',
      'Invalid verification code. 1 attempt left.',
    ]);
    const refused = await verify(t, email, code).expect(401);
    expect(refused.body.error.message).toBe('Too many incorrect attempts. Please request a new code.');
  });

  it('4 wrong codes, then the right one: accepted (the limit is exactly 5 tries)', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const code = await codeFromOutbox(t, email, 1);
    for (let i = 0; i < 4; i += 1) await verify(t, email, wrongCode(code)).expect(401);
    await verify(t, email, code).expect(200);
  });

  it('20 parallel submissions of the right code: exactly 1 succeeds', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const code = await codeFromOutbox(t, email, 1);
    const results = await Promise.all(Array.from({ length: 20 }, () => verify(t, email, code)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    // The others are refused: wrong-or-used (401), or past the 10 code checks per 15 minutes one address may make (429).
    expect(statuses.filter((s) => s === 401 || s === 429)).toHaveLength(19);
    expect(results.filter((r) => r.headers['set-cookie']).length).toBe(1);
  });

  it('a code used after 10 minutes (controlled clock): refused; just before: accepted', async () => {
    const late = await newAdmin();
    await requestCode(t, late).expect(200);
    const lateCode = await codeFromOutbox(t, late, 1);
    const onTime = await newAdmin();
    await requestCode(t, onTime).expect(200);
    const onTimeCode = await codeFromOutbox(t, onTime, 1);

    clock.advance(10 * 60 * 1000 - 2000);
    await verify(t, onTime, onTimeCode).expect(200);
    clock.advance(3000);
    const refused = await verify(t, late, lateCode).expect(401);
    expect(refused.body.error.message).toBe('The verification code has expired. Please request a new one.');
  });

  it('a second request: the first code no longer works, the second does', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const first = await codeFromOutbox(t, email, 1);
    let second = first;
    let mails = 1;
    // A new code equals the old one once in a million; ask again until they differ.
    while (second === first) {
      clock.advance(31_000);
      await requestCode(t, email).expect(200);
      mails += 1;
      second = await codeFromOutbox(t, email, mails);
    }
    await verify(t, email, first).expect(401);
    const ok = await verify(t, email, second).expect(200);
    expect(ok.body.user.email).toBe(email);
    const user = await users.findByEmail(email);
    expect(await t.dataSource.getRepository(OneTimeCode).countBy({ userId: user!.id })).toBe(1);
  });

  it('a new request revives sign-in after 5 wrong tries', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const first = await codeFromOutbox(t, email, 1);
    for (let i = 0; i < 5; i += 1) await verify(t, email, wrongCode(first)).expect(401);
    clock.advance(31_000);
    await requestCode(t, email).expect(200);
    await verify(t, email, await codeFromOutbox(t, email, 2)).expect(200);
  });

  it('at most 1 request per 30 s per email: 429 with Retry-After, no second mail', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    await codeFromOutbox(t, email, 1);
    const limited = await requestCode(t, email).expect(429);
    expect(limited.body).toMatchObject({ success: false, error: { code: 'rate_limited' } });
    expect(limited.body.error.message).toMatch(/^Please wait \d+ seconds before requesting another code\.$/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(25);
    expect(retryAfter).toBeLessThanOrEqual(30);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailFiles(t, email)).toHaveLength(1);
    // Another admin is not affected.
    await requestCode(t, await newAdmin()).expect(200);
    clock.advance(30_500);
    await requestCode(t, email).expect(200);
  });

  it('at most 10 requests per hour per email: the 11th gets 429 with a Retry-After of minutes', async () => {
    const email = await newAdmin();
    for (let i = 0; i < 10; i += 1) {
      await requestCode(t, email).expect(200);
      clock.advance(31_000);
    }
    const limited = await requestCode(t, email).expect(429);
    expect(limited.body.error.message).toMatch(/^Too many codes requested for this email\. Try again in \d+ minutes\.$/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3600 - 11 * 31 - 5);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    clock.advance(retryAfter * 1000);
    await requestCode(t, email).expect(200);
  });

  it('the mail job sends the outbox row and wipes its encrypted body', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    await codeFromOutbox(t, email, 1);
    const row = await eventually(async () => {
      const r = await t.dataSource.getRepository(MailOutbox).findOneBy({ toAddress: email });
      return r?.status === 'sent' ? r : undefined;
    });
    expect(row).toMatchObject({ kind: 'otp', payload: null, attempts: 1 });
  });

  it('rejects a malformed code with 400 without using up a try', async () => {
    const email = await newAdmin();
    await requestCode(t, email).expect(200);
    const code = await codeFromOutbox(t, email, 1);
    const bad = await verify(t, email, '12ab56').expect(400);
    expect(bad.body.error.code).toBe('validation_failed');
    await request(t.url).post('/api/auth/verify-otp').send({ email }).expect(400);
    for (let i = 0; i < 4; i += 1) await verify(t, email, wrongCode(code)).expect(401);
    await verify(t, email, code).expect(200);
  });

  it('with no code requested, verify-otp says so', async () => {
    const email = await newAdmin();
    const res = await verify(t, email, '123456').expect(401);
    expect(res.body.error.message).toBe('No active verification code. Please request a new one.');
  });
});
