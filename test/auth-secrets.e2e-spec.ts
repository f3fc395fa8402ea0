/**
 * After full sign-in flows (code and password, refresh, logout), neither the database (every row
 * of every table), nor Redis (every key of the app, when REDIS_URL is set), nor the server log
 * contains the one-time code (outside the log transport's printed mail), a session token or the
 * password.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Redis from 'ioredis';
import request from 'supertest';
import { dialectOf } from '../src/database/data-source';
import { LOG_MAIL_BEGIN, LOG_MAIL_END } from '../src/mail/log-mail.transport';
import { MailOutbox } from '../src/mail/mail-outbox.entity';
import { eventually, startTestApp, TestApp } from './support/test-app';

const PASSWORD = 'a long secret passphrase 42';

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

function cookieOf(res: request.Response): string {
  return String(([] as string[]).concat(res.headers['set-cookie'] ?? [])[0] ?? '').split(';')[0];
}

/** Every row of every table, as text (binary columns as latin1 so no byte sequence is missed). */
async function dumpDatabase(t: TestApp): Promise<{ tables: string[]; text: string }> {
  const ds = t.dataSource;
  const tables: string[] =
    dialectOf(ds) === 'postgres'
      ? (await ds.query(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)).map((r: { name: string }) => r.name)
      : (await ds.query(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((r: { name: string }) => r.name);
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await ds.query(`SELECT * FROM "${table}"`);
    parts.push(`## ${table}\n${JSON.stringify(rows, (_k, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('latin1') : v))}`);
  }
  return { tables, text: parts.join('\n') };
}

/** Every key under the app's Redis prefix, with its value. */
async function dumpRedis(redisUrl: string, prefix: string): Promise<string> {
  const redis = new Redis(redisUrl);
  try {
    const parts: string[] = [];
    for (const key of await redis.keys(`${prefix}*`)) {
      const type = await redis.type(key);
      const value =
        type === 'string' ? await redis.get(key)
        : type === 'hash' ? await redis.hgetall(key)
        : type === 'list' ? await redis.lrange(key, 0, -1)
        : type === 'set' ? await redis.smembers(key)
        : type === 'zset' ? await redis.zrange(key, 0, -1, 'WITHSCORES')
        : type === 'stream' ? await redis.xrange(key, '-', '+')
        : type;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}

function withoutPrintedMail(log: string): string {
  let rest = log;
  for (;;) {
    const begin = rest.indexOf(LOG_MAIL_BEGIN);
    if (begin < 0) return rest;
    const end = rest.indexOf(LOG_MAIL_END, begin);
    if (end < 0) throw new Error('a printed mail has no end marker');
    rest = rest.slice(0, begin) + rest.slice(end + LOG_MAIL_END.length);
  }
}

describe('codes, tokens and passwords stay out of the database and the log', () => {
  it('after a full sign-in flow, only hashes are stored and only the printed mail shows the code', async () => {
    const output = captureOutput();
    let t: TestApp | undefined;
    try {
      t = await startTestApp({ logLevel: 'debug', adminEmail: 'owner@example.com', adminPassword: PASSWORD, adminName: 'Owner', seedSampleKnowledge: false, signInIpLimit: 1000 });
      const email = 'owner@example.com';
      const tokens: string[] = [];

      await request(t.url).post('/api/auth/check-methods').send({ email }).expect(200);
      await request(t.url).post('/api/auth/request-otp').send({ email }).expect(200);
      const outbox = path.join(t.config.dataDir, 'outbox');
      const code = await eventually(() => {
        const file = fs.existsSync(outbox) && fs.readdirSync(outbox).find((f) => f.endsWith(`-${email}.eml`));
        return file ? /Verification code: (\d{6})/.exec(fs.readFileSync(path.join(outbox, file), 'utf8'))?.[1] : undefined;
      });
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      await request(t.url).post('/api/auth/verify-otp').send({ email, otp: wrong }).expect(401);
      const viaCode = await request(t.url).post('/api/auth/verify-otp').send({ email, otp: code }).expect(200);
      tokens.push(cookieOf(viaCode));
      await request(t.url).get('/api/auth/me').set('Cookie', tokens[0]).expect(200);
      const refreshed = await request(t.url).post('/api/auth/refresh').set('Cookie', tokens[0]).expect(200);
      tokens.push(cookieOf(refreshed));
      await request(t.url).post('/api/auth/logout').set('Cookie', tokens[1]).expect(200);
      const viaPassword = await request(t.url).post('/api/auth/login-password').send({ email, password: PASSWORD }).expect(200);
      tokens.push(cookieOf(viaPassword));
      await request(t.url).get('/api/auth/stats').set('Cookie', tokens[2]).expect(200);
      await request(t.url).post('/api/auth/login-password').send({ email, password: 'wrong ' + PASSWORD }).expect(401);
      await eventually(async () => (await t!.dataSource.getRepository(MailOutbox).findOneBy({ toAddress: email }))?.status === 'sent');

      const secrets = { code, ...Object.fromEntries(tokens.map((c, i) => [`token${i}`, c.split('=')[1]])), password: PASSWORD };
      for (const token of tokens) expect(token.split('=')[1]).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const db = await dumpDatabase(t);
      expect(db.tables).toEqual(expect.arrayContaining(['admin_users', 'admin_sessions', 'one_time_codes', 'mail_outbox', 'admin_sign_in_events']));
      expect(db.text).toContain('owner@example.com'); // the dump really has the rows
      for (const [name, secret] of Object.entries(secrets)) expect([name, db.text.includes(secret)]).toEqual([name, false]);

      if (t.config.redisUrl) {
        const redisDump = await dumpRedis(t.config.redisUrl, t.config.redisPrefix);
        for (const [name, secret] of Object.entries(secrets)) expect([name, redisDump.includes(secret)]).toEqual([name, false]);
      }

      await t.close();
      t = undefined;
      const log = output.text();
      // The capture works: the log transport printed the mail with the code.
      expect(log).toContain(LOG_MAIL_BEGIN);
      expect(log).toContain(`Verification code: ${code}`);
      const rest = withoutPrintedMail(log);
      expect(rest.length).toBeGreaterThan(500);
      for (const [name, secret] of Object.entries(secrets)) expect([name, rest.includes(secret)]).toEqual([name, false]);
      for (const token of tokens) expect(log.includes(token.split('=')[1])).toBe(false);
    } finally {
      output.restore();
      await t?.close();
    }
  });
});
