/**
 * Analytics benchmark: hourly rollups vs aggregating raw usage events, and batched ingest.
 *
 *   npx ts-node --transpile-only bench/analytics.ts
 *
 * One run, one database (SQLite in a temporary folder; Postgres in a schema of its own when
 * DATABASE_URL is set):
 *  1. ingest: BENCH_EVENTS (default 1,000,000) usage events spread evenly over the last 720 hours,
 *     in time order as traffic arrives, go
 *     through UsageRecorderService exactly as the chat pipeline records them (record(), batched
 *     INSERTs of 500), awaited every 5,000 events; reported in events per second (the time of
 *     record() and the writes; making up the events is not counted);
 *  2. the real app starts on that database and the rollup job backfills the 720 hours (timed);
 *  3. each endpoint's figures for the 720-hour window, side by side: through the rollups, cold
 *     (rollup rows read again each call) and warm (the server's answers kept while the rollup
 *     generation is unchanged, the steady state), the HTTP endpoint with an admin session
 *     (auth, JSON and all), and the very same figures aggregated from every raw event (rollups
 *     off). Rollup and raw answers are compared for equality before timing. p50 / p95 over
 *     BENCH_ROUNDS (default 40) calls and BENCH_RAW_ROUNDS (default 7) raw calls, interleaved.
 *
 * Goals (printed, not asserted): rollup p95 <= 50 ms and >= 20x faster than raw; ingest >= 20,000
 * events/s. Progress goes to stderr, the report to stdout.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory';
import { AnalyticsQueryOptions, AnalyticsService } from '../src/analytics/analytics.service';
import { ReplyFeedback } from '../src/analytics/reply-feedback.entity';
import { UsageRecorderService } from '../src/analytics/usage-recorder.service';
import { UsageRollupService } from '../src/analytics/usage-rollup.service';
import { loadConfig } from '../src/config/app-config';
import { dropPostgresSchema, openDataSource } from '../src/database/data-source';
import { queuedWrite } from '../src/database/write-queue';
import { costUsd } from '../src/shared/catalog/providers';

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

const EVENTS = intFromEnv('BENCH_EVENTS', 1_000_000, 10_000, 5_000_000);
const ROUNDS = intFromEnv('BENCH_ROUNDS', 40, 5, 1000);
const RAW_ROUNDS = intFromEnv('BENCH_RAW_ROUNDS', 7, 3, 100);
const CHUNK = 5000;
const HOURS = 720;
const HOUR_MS = 3_600_000;
const ADMIN = { email: 'bench@example.com', password: 'bench admin password' };

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ------------------------------------------------------------------------------------------------
// Synthetic traffic: five agents, five models on four providers, 95% success / 3% error / 2% cancelled

const AGENTS = [
  { agentId: 'customer-service-agent', vertical: 'customer-service', provider: 'openai', model: 'gpt-4o-mini', weight: 40 },
  { agentId: 'hr-agent', vertical: 'hr', provider: 'anthropic', model: 'claude-haiku-4-5', weight: 20 },
  { agentId: 'legal-agent', vertical: 'legal', provider: 'openai', model: 'gpt-4o', weight: 15 },
  { agentId: 'sales-agent', vertical: 'sales', provider: 'azure', model: 'gpt-4o-mini', weight: 15 },
  { agentId: 'universal-agent', vertical: 'customer-service', provider: 'local', model: 'knowledge-responder', weight: 10 },
];
const WEIGHT_TOTAL = AGENTS.reduce((s, a) => s + a.weight, 0);
const LANGUAGES = ['en', 'en', 'en', 'es', 'fr', 'de', 'ja'];

let seed = 42;
function random(): number {
  // mulberry32: a reproducible stream, so every run ingests the same data.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** The i-th of EVENTS events, in time order across the 720 hours (as traffic arrives). */
function makeEvent(now: number, i: number) {
  let pick = random() * WEIGHT_TOTAL;
  const agent = AGENTS.find((a) => (pick -= a.weight) < 0) ?? AGENTS[0];
  const roll = random();
  const status = roll < 0.95 ? 'success' : roll < 0.98 ? 'error' : 'cancelled';
  const latencyMs = Math.round(250 * Math.exp(random() * 3)); // 250 ms .. 5 s, long tail
  const promptTokens = status === 'error' ? 0 : 200 + Math.floor(random() * 1800);
  const completionTokens = status === 'error' ? 0 : 20 + Math.floor(random() * 600);
  return {
    createdAt: now - HOURS * HOUR_MS + Math.floor(((i + random()) * HOURS * HOUR_MS) / EVENTS),
    requestId: randomBytes(8).toString('hex'),
    agentId: agent.agentId,
    vertical: agent.vertical,
    provider: agent.provider,
    model: agent.model,
    channel: (['socket', 'rest', 'sse'] as const)[Math.floor(random() * 3)],
    status: status as 'success' | 'error' | 'cancelled',
    errorCode: status === 'error' ? 'provider_error' : null,
    errorMessage: status === 'error' ? 'The AI provider returned an error (HTTP 500)' : null,
    promptTokens,
    completionTokens,
    costUsd: costUsd(agent.provider, agent.model, promptTokens, completionTokens),
    latencyMs,
    ttftMs: status === 'success' ? Math.round(latencyMs * (0.1 + random() * 0.3)) : null,
    language: LANGUAGES[Math.floor(random() * LANGUAGES.length)],
  };
}

// ------------------------------------------------------------------------------------------------

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)).padStart(8);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-analytics-'));
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const schema = databaseUrl ? `bench_${randomBytes(4).toString('hex')}` : undefined;
  const config = loadConfig(
    {},
    {
      port: 0,
      dataDir,
      databaseUrl,
      databaseSchema: schema,
      redisUrl: process.env.REDIS_URL || undefined,
      redisPrefix: `bench${randomBytes(3).toString('hex')}`,
      logLevel: 'error',
      seedSampleKnowledge: false,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
    },
  );
  const dialect = databaseUrl ? 'Postgres' : 'SQLite';
  log(`${dialect}, ${EVENTS.toLocaleString('en-US')} events, ${os.cpus().length} CPUs`);

  // 1. Ingest through the usage recorder, as the chat pipeline records.
  const now = Date.now();
  const ingestSource: DataSource = await openDataSource(config);
  const recorder = new UsageRecorderService(ingestSource, config);
  // Only record() + the batched writes are timed; making up the events is not.
  let ingestMs = 0;
  for (let done = 0; done < EVENTS; done += CHUNK) {
    const chunk = Array.from({ length: Math.min(CHUNK, EVENTS - done) }, (_, k) => makeEvent(now, done + k));
    const started = performance.now();
    for (const event of chunk) recorder.record(event);
    await recorder.flush();
    ingestMs += performance.now() - started;
    if (recorder.pending > 0) throw new Error('the recorder kept events back (write failed)');
    if ((done / CHUNK) % 40 === 0) log(`ingested ${(done + chunk.length).toLocaleString('en-US')}`);
  }
  const counted: { n: string | number }[] = await ingestSource.query('SELECT COUNT(*) AS n FROM usage_events');
  if (Number(counted[0].n) !== EVENTS) throw new Error(`expected ${EVENTS} events, found ${counted[0].n}`);

  // Some reply feedback (2% of replies voted), as the Helpful rate reads it.
  const votes: { id: string; agent_id: string; created_at: string | number }[] = await ingestSource.query(
    `SELECT id, agent_id, created_at FROM usage_events WHERE status = 'success' AND latency_ms % 50 = 0`,
  );
  for (let i = 0; i < votes.length; i += 500) {
    const batch = votes.slice(i, i + 500);
    await queuedWrite(ingestSource, () =>
      ingestSource
        .createQueryBuilder()
        .insert()
        .into(ReplyFeedback)
        .values(batch.map((v, k) => ({ replyId: v.id, vote: k % 4 === 0 ? ('down' as const) : ('up' as const), agentId: v.agent_id, replyCreatedAt: Number(v.created_at), createdAt: now, updatedAt: now })))
        .execute(),
    );
  }
  await ingestSource.destroy();
  log(`ingest done (${Math.round(EVENTS / (ingestMs / 1000)).toLocaleString('en-US')} events/s); ${votes.length} votes added`);

  // 2. The real app on that database; the rollup job backfills the month.
  const app: NestExpressApplication = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const rollup = app.get(UsageRollupService, { strict: false });
  const analytics = app.get(AnalyticsService, { strict: false });
  const backfillStarted = performance.now();
  let rolled = await rollup.run();
  while (rolled.hours > 0) rolled = await rollup.run();
  const backfillMs = performance.now() - backfillStarted;
  const rollupRows: { n: string | number }[] = await app.get(DataSource).query('SELECT COUNT(*) AS n FROM usage_hourly');
  log(`backfill done in ${(backfillMs / 1000).toFixed(1)} s (${rollupRows[0].n} rollup rows)`);

  const admin = request.agent(url);
  await admin.post('/api/auth/login-password').send(ADMIN).expect(200);

  // 3. Each endpoint, 720 hours: rollups vs raw, same figures.
  const endpoints: Array<{ name: string; path: string; run: (o: AnalyticsQueryOptions) => Promise<unknown> }> = [
    { name: 'system', path: '/api/analytics/system?hours=720', run: (o) => analytics.system(HOURS, o) },
    { name: 'agents', path: '/api/analytics/agents?hours=720', run: (o) => analytics.agents(HOURS, undefined, o) },
    { name: 'costs', path: '/api/analytics/costs?hours=720', run: (o) => analytics.costs(HOURS, o) },
    { name: 'performance', path: '/api/analytics/performance?hours=720', run: (o) => analytics.performance(HOURS, o) },
  ];
  const rows: string[] = [];
  let worstP95 = 0;
  let worstSpeedup = Infinity;
  for (const endpoint of endpoints) {
    const at = Date.now();
    const viaRollups = await endpoint.run({ now: at, cache: false });
    const viaRaw = await endpoint.run({ now: at, useRollups: false });
    const same = JSON.stringify(viaRollups) === JSON.stringify(viaRaw);
    if (!same) log(`WARNING: ${endpoint.name} differs between rollups and raw`);
    const cold: number[] = [];
    const warm: number[] = [];
    const http: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < 3; i += 1) await endpoint.run({}); // warm-up
    for (let i = 0; i < ROUNDS; i += 1) {
      cold.push(await time(() => endpoint.run({ cache: false })));
      warm.push(await time(() => endpoint.run({})));
      http.push(await time(() => admin.get(endpoint.path).expect(200)));
      if (i < RAW_ROUNDS) raw.push(await time(() => endpoint.run({ useRollups: false })));
    }
    const coldP95 = quantile(cold, 0.95);
    const rawP95 = quantile(raw, 0.95);
    worstP95 = Math.max(worstP95, coldP95, quantile(http, 0.95));
    worstSpeedup = Math.min(worstSpeedup, rawP95 / coldP95);
    rows.push(
      `${endpoint.name.padEnd(12)}${fmt(quantile(cold, 0.5))}${fmt(coldP95)}${fmt(quantile(warm, 0.5))}${fmt(quantile(warm, 0.95))}${fmt(quantile(http, 0.95))}${fmt(quantile(raw, 0.5))}${fmt(rawP95)}${`${(rawP95 / coldP95).toFixed(0)}x`.padStart(9)}   ${same ? 'yes' : 'NO'}`,
    );
    log(`${endpoint.name} measured`);
  }

  await app.close();
  if (schema && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const rate = EVENTS / (ingestMs / 1000);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const out = [
    '',
    `Analytics benchmark: ${dialect}, ${EVENTS.toLocaleString('en-US')} usage events over ${HOURS} hours, ${votes.length.toLocaleString('en-US')} feedback votes, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`,
    `720-hour window, ms. rollup cold = the rollup rows read again on every call (what the first request after a rollup change costs);`,
    `rollup warm = steady state (this server keeps rollup answers while the rollup generation is unchanged); HTTP = the endpoint with`,
    `an admin session (warm); raw = the same figures aggregated from every raw event. ${ROUNDS} calls each (raw: ${RAW_ROUNDS}), interleaved.`,
    '',
    `${'endpoint'.padEnd(12)}${'cold'.padStart(8)}${'cold'.padStart(8)}${'warm'.padStart(8)}${'warm'.padStart(8)}${'HTTP'.padStart(8)}${'raw'.padStart(8)}${'raw'.padStart(8)}${'raw p95/'.padStart(9)}   same`,
    `${''.padEnd(12)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p95'.padStart(8)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'cold p95'.padStart(9)}   figures`,
    ...rows,
    '',
    `goal p95 <= 50 ms (cold and HTTP): ${verdict(worstP95 <= 50)} (worst ${worstP95.toFixed(1)} ms); goal >= 20x faster than raw (cold): ${verdict(worstSpeedup >= 20)} (worst ${worstSpeedup.toFixed(0)}x)`,
    `ingest through UsageRecorderService: ${Math.round(rate).toLocaleString('en-US')} events/s (${EVENTS.toLocaleString('en-US')} in ${(ingestMs / 1000).toFixed(1)} s, batches of 500); goal >= 20,000: ${verdict(rate >= 20_000)}`,
    `rollup backfill of ${HOURS} hours: ${(backfillMs / 1000).toFixed(1)} s (${rollupRows[0].n} rows)`,
    `export (raw by nature, streamed) is not in the table: it reads every event of the window.`,
    '',
  ];
  process.stdout.write(out.join('\n'));
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
