/**
 * Fault matrix: Redis down for 60 s while visitors chat over the socket and /interact.
 *
 * The app runs as a child process (what production runs) against a Redis of its own on a free
 * port (test/support/service-instances), restarted without persistence, so it comes back empty.
 * Checked: at least 99 % of the chats are answered, a sign-in code asked for during the outage is
 * mailed exactly once after Redis is back, the usage rollup job runs again in the fresh Redis
 * (its schedule re-asserted), and the log says a few lines in the whole minute, not a warning per retry.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { dropPostgresSchema } from '../../src/database/data-source';
import { RedisInstance } from '../support/service-instances';
import { distributed, eventually, uniqueSchema } from '../support/test-app';
import { describeLoad, startChatLoad } from './support/chat-load';
import { ServerProcess, startServerProcess } from './support/server-process';
import { describeWith, NEEDS } from '../support/requirements';

const OUTAGE_MS = 60_000;
const OWNER = 'owner@example.com';

/** Waits until `check` holds; the ms it took, or undefined after `timeoutMs` (reported, then asserted). */
async function within(timeoutMs: number, check: () => boolean | Promise<boolean>, from = Date.now()): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return Date.now() - from;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** Nest log lines at WARN or ERROR level in a slice of the output. */
function warningLines(text: string): string[] {
  return text.split('\n').filter((line) => /\[Nest\].*\b(WARN|ERROR)\b/.test(line));
}

function mailsTo(dataDir: string, to: string): string[] {
  const dir = path.join(dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith(`-${to}.eml`));
}

describeWith([NEEDS.redisServer], 'Redis down for 60 s during chats', () => {
  let redis: RedisInstance;
  let server: ServerProcess | undefined;
  let dataDir: string;
  const schema = distributed.databaseUrl ? uniqueSchema() : undefined;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-redis-fault-'));
  });

  afterAll(async () => {
    server?.kill();
    await server?.exited;
    await redis.stop();
    if (schema && distributed.databaseUrl) await dropPostgresSchema(distributed.databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers >= 99 % of chats over socket and /interact, mails the code once after recovery, resumes rollups, and logs a few lines', async () => {
    server = await startServerProcess({
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'fault',
      DATABASE_URL: distributed.databaseUrl,
      DATABASE_SCHEMA: schema,
      ADMIN_EMAIL: OWNER,
      OUTBOX_SWEEP_MS: '2000',
      LOCAL_RESPONDER_DELAY_MS: '2',
      SEED_SAMPLE_KNOWLEDGE: 'true',
    });
    const url = server.url;
    // The rollup job ran once in this Redis (its scheduler runs the first tick at once).
    await eventually(async () => Number(await redis.command('zcard', 'fault:analytics-rollup:completed')) > 0, 20_000, 'a first rollup run');
    const load = await startChatLoad(url, { sockets: 3, rest: 2, pauseMs: 50 });
    await new Promise((r) => setTimeout(r, 3000));
    const beforeOutage = { ...load.result };

    const outputAtStop = server.output().length;
    await redis.stop();
    const stoppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 2000));
    // A sign-in code asked for while Redis is down: stored with its mail, sent once Redis is back.
    const otp = await fetch(`${url}/api/auth/request-otp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: OWNER }) });
    expect(otp.status).toBe(200);
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - stoppedAt)));
    const mailsDuringOutage = mailsTo(dataDir, OWNER).length;
    await redis.start();
    const restartedAt = Date.now();

    const [mailedAfterMs, rollupAfterMs] = await Promise.all([
      within(20_000, () => mailsTo(dataDir, OWNER).length >= 1, restartedAt),
      // Its scheduler is back in the empty Redis (0 before the fix, until the app restarted), and it ran.
      within(
        20_000,
        async () => Number(await redis.command('zcard', 'fault:analytics-rollup:repeat')) === 1 && Number(await redis.command('zcard', 'fault:analytics-rollup:completed')) > 0,
        restartedAt,
      ),
    ]);
    // More traffic after recovery, then make sure the mail is still one.
    await new Promise((r) => setTimeout(r, 5000));
    const result = await load.stop();
    const outageLog = warningLines(server.output().slice(outputAtStop));

    const ratio = result.answered / result.sent;
    console.log(
      [
        `Redis down ${OUTAGE_MS / 1000} s: chats ${describeLoad(result)} (before the outage ${beforeOutage.answered}/${beforeOutage.sent})`,
        `sign-in code mail: ${mailsDuringOutage} during the outage, ${mailsTo(dataDir, OWNER).length} after (sent ${mailedAfterMs === undefined ? 'never, within 20 s' : `${(mailedAfterMs / 1000).toFixed(1)} s`} after Redis came back)`,
        `rollup job: ${rollupAfterMs === undefined ? 'did NOT run within 20 s' : `ran again ${(rollupAfterMs / 1000).toFixed(1)} s`} after Redis came back`,
        `warning/error log lines over the outage: ${outageLog.length}`,
        ...outageLog.map((l) => `  ${l.replace(/\x1b\[[0-9;]*m/g, '').slice(0, 220)}`),
      ].join('\n'),
    );
    expect(ratio).toBeGreaterThanOrEqual(0.99);
    expect(result.sent).toBeGreaterThan(100);
    expect(mailsDuringOutage).toBe(0);
    expect(mailsTo(dataDir, OWNER)).toHaveLength(1);
    expect(rollupAfterMs).toBeDefined();
    expect(outageLog.length).toBeLessThanOrEqual(6);
    expect(server.output().slice(outputAtStop)).toMatch(/Redis at .* is back after \d+ s/);
  }, 150_000);
});
