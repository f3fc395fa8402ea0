/**
 * The code mail over real SMTP (an `smtp-server` on loopback started here), sent by the mail job
 * from the outbox: with retries when the SMTP server fails, through BullMQ on a Redis this test
 * owns, and — with that Redis stopped during the request — delivered once Redis is back.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as net from 'node:net';
import Redis from 'ioredis';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { Clock } from '../src/common/clock';
import { JOB_QUEUE, JobQueue } from '../src/jobs/job-queue';
import { MailOutbox } from '../src/mail/mail-outbox.entity';
import { eventually, startTestApp, TestApp } from './support/test-app';
import { describeWith, NEEDS } from './support/requirements';

interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

interface MailServer {
  url: string;
  mails: ReceivedMail[];
  /** The next `n` deliveries are refused with a temporary error (451). */
  failNext(n: number): void;
  close(): Promise<void>;
}

async function startMailServer(): Promise<MailServer> {
  const mails: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures -= 1;
          callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          return;
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    failNext: (n) => (failures = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The message with quoted-printable soft line breaks and escapes undone (enough for these ASCII checks). */
function decoded(mail: ReceivedMail): string {
  return mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function codeOf(mail: ReceivedMail): string {
  const code = /Verification code: (\d{6})/.exec(decoded(mail))?.[1];
  if (!code) throw new Error('no code in the mail');
  return code;
}

function mailsTo(server: MailServer, email: string): ReceivedMail[] {
  return server.mails.filter((m) => m.to.includes(email));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A redis-server of this test's own (no persistence), so it can be stopped and started again. */
class OwnRedis {
  private process: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = proc;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10000);
      proc.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/Ready to accept connections/i.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  }

  async stop(): Promise<void> {
    const proc = this.process;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
    this.process = undefined;
  }
}

const redisServerInstalled = spawnSync('redis-server', ['--version']).status === 0;
if (!redisServerInstalled && process.env.CI) throw new Error('redis-server is needed for the Redis outage test (.ci/run installs it)');
const describeWithRedisServer = (name: string, fn: () => void) => describeWith([NEEDS.redisServer], name, fn);

describe('the code mail over SMTP', () => {
  let smtp: MailServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startMailServer();
    // With REDIS_URL set (CI), the mail job runs on BullMQ; otherwise in process.
    t = await startTestApp({ smtpUrl: smtp.url, signInIpLimit: 10000, seedSampleKnowledge: false, mailFrom: 'Support Desk <desk@example.com>' });
    await t.app.get(AdminUsersService).create({ email: 'smtp@example.com', name: 'Smtp Admin' });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('delivers the code to the SMTP server (plain + HTML, 10 minutes) and the code signs in', async () => {
    await request(t.url).post('/api/auth/request-otp').send({ email: 'smtp@example.com' }).expect(200);
    const [mail] = await eventually(() => mailsTo(smtp, 'smtp@example.com').length > 0 && mailsTo(smtp, 'smtp@example.com'), 15000, 'the SMTP mail');
    expect(mail.from).toBe('desk@example.com');
    expect(mail.raw).toMatch(/^Subject: Your Support Assistant sign-in code/m);
    expect(mail.raw).toMatch(/text\/plain/);
    expect(mail.raw).toMatch(/text\/html/);
    expect(decoded(mail).match(/expires in 10 minutes/g)?.length).toBeGreaterThanOrEqual(2);
    const res = await request(t.url).post('/api/auth/verify-otp').send({ email: 'smtp@example.com', otp: codeOf(mail) }).expect(200);
    expect(res.body.user).toMatchObject({ name: 'Smtp Admin', email: 'smtp@example.com', role: 'owner' });
  });

  it('retries with backoff when the SMTP server refuses the first delivery', async () => {
    await t.app.get(AdminUsersService).create({ email: 'retry@example.com' });
    smtp.failNext(1);
    const started = Date.now();
    await request(t.url).post('/api/auth/request-otp').send({ email: 'retry@example.com' }).expect(200);
    const [mail] = await eventually(() => mailsTo(smtp, 'retry@example.com').length > 0 && mailsTo(smtp, 'retry@example.com'), 20000, 'the retried mail');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900); // the first backoff is 2 s
    const row = await eventually(async () => {
      const r = await t.dataSource.getRepository(MailOutbox).findOneByOrFail({ toAddress: 'retry@example.com' });
      return r.status === 'sent' && r;
    });
    expect(row).toMatchObject({ status: 'sent', attempts: 2, payload: null });
    await request(t.url).post('/api/auth/verify-otp').send({ email: 'retry@example.com', otp: codeOf(mail) }).expect(200);
  });
});

describeWithRedisServer('the code mail through BullMQ when Redis goes away', () => {
  let smtp: MailServer;
  let redis: OwnRedis;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startMailServer();
    redis = new OwnRedis(await freePort());
    await redis.start();
    t = await startTestApp({ logLevel: (process.env.AUTH_MAIL_LOG as 'debug') || 'error', redisUrl: redis.url, smtpUrl: smtp.url, outboxSweepMs: 300, signInIpLimit: 10000, seedSampleKnowledge: false });
    await t.app.get(AdminUsersService).create({ email: 'outage@example.com' });
  }, 30000);

  afterAll(async () => {
    await t?.close();
    await redis?.stop();
    await smtp?.close();
  });

  it('goes through BullMQ to SMTP; with Redis stopped during the request, it is delivered after Redis returns', async () => {
    expect(t.app.get<JobQueue>(JOB_QUEUE).kind).toBe('bullmq');
    const email = 'outage@example.com';
    await request(t.url).post('/api/auth/request-otp').send({ email }).expect(200);
    await eventually(() => mailsTo(smtp, email).length === 1, 15000, 'the first mail');
    // Let BullMQ record that job's completion (its key goes: removeOnComplete) before pulling the plug.
    const first = await t.dataSource.getRepository(MailOutbox).findOneByOrFail({ toAddress: email });
    const probe = new Redis(redis.url);
    try {
      await eventually(async () => (await probe.exists(`${t.config.redisPrefix}:mail.send:c-${first.id}`)) === 0, 10000, 'the finished BullMQ job');
    } finally {
      probe.disconnect();
    }

    await redis.stop();
    const clock = t.app.get(Clock);
    clock.now = () => Date.now() + 31_000; // past the 1-per-30-s limit
    const started = Date.now();
    const res = await request(t.url).post('/api/auth/request-otp').send({ email }).expect(200);
    expect(res.body.success).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);

    // Nothing can be sent while Redis is away: the mail waits in the outbox.
    await new Promise((r) => setTimeout(r, 2500));
    expect(mailsTo(smtp, email)).toHaveLength(1);
    const pending = await t.dataSource.getRepository(MailOutbox).findBy({ toAddress: email, status: 'pending' });
    expect(pending).toHaveLength(1);
    expect(pending[0].payload).not.toBeNull();

    await redis.start(); // empty: the outage lost everything Redis held
    const mails = await eventually(() => mailsTo(smtp, email).length === 2 && mailsTo(smtp, email), 30000, 'the mail after Redis returned');
    await request(t.url).post('/api/auth/verify-otp').send({ email, otp: codeOf(mails[1]) }).expect(200);
    const rows = await eventually(async () => {
      const all = await t.dataSource.getRepository(MailOutbox).findBy({ toAddress: email });
      return all.every((r) => r.status === 'sent') && all;
    });
    expect(rows).toHaveLength(2);
    // Sent once: the sweeps that ran meanwhile did not send it again.
    await new Promise((r) => setTimeout(r, 1500));
    expect(mailsTo(smtp, email)).toHaveLength(2);
  }, 60000);
});
