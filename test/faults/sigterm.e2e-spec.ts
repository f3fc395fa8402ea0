/**
 * Fault matrix: graceful shutdown of a real server process, SIGTERM while 20 replies stream.
 * /health must answer 503 from the first moment (a load balancer stops routing to it) while the
 * running replies finish.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageEvent } from '../../src/analytics/usage-event.entity';
import { loadConfig } from '../../src/config/app-config';
import { dropPostgresSchema, openDataSource } from '../../src/database/data-source';
import { MockLlmServer, startMockLlmServer } from '../support/mock-llm-server';
import { chatOverSocket, ClientSocket, connectClient, distributed, StreamResult, uniqueSchema } from '../support/test-app';
import { startServerProcess } from './support/server-process';

/** GET /health every 100 ms from `from` until the server stops answering: [ms after the signal, status]. */
async function pollHealth(url: string, signalledAt: () => number, stop: Promise<unknown>): Promise<Array<[number, number]>> {
  const seen: Array<[number, number]> = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  while (!stopped) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      seen.push([Date.now() - signalledAt(), res.status]);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}

describe('graceful shutdown on SIGTERM', () => {
  let mock: MockLlmServer;
  let dataDir: string;
  let schema: string | undefined;

  beforeEach(async () => {
    mock = await startMockLlmServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-shutdown-'));
    schema = distributed.databaseUrl ? uniqueSchema() : undefined;
  });

  afterEach(async () => {
    await mock.close();
    if (schema && distributed.databaseUrl) await dropPostgresSchema(distributed.databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(streamMarker: string, graceMs: number, question: (i: number) => string = () => 'Tell me about paid time off') {
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      OPENAI_API_KEY: 'sk-shutdown',
      OPENAI_BASE_URL: mock.openaiBaseUrl,
      SHUTDOWN_GRACE_MS: String(graceMs),
      AGENT_TIMEOUT_MS: '60000',
    };
    if (schema) env.DATABASE_SCHEMA = schema;
    const server = await startServerProcess(env);
    const sockets: ClientSocket[] = await Promise.all(Array.from({ length: 20 }, () => connectClient(server.url)));
    try {
      const firstDeltas = sockets.map((s) => new Promise<void>((resolve) => s.once('chat:delta', () => resolve())));
      const results: Promise<StreamResult>[] = sockets.map((s, i) =>
        chatOverSocket(s, { requestId: `live-${i}`, vertical: 'hr', query: `${question(i)} ${streamMarker}` }, 60000),
      );
      await Promise.all(firstDeltas);
      const before = await fetch(`${server.url}/health`);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      // The first probe leaves 50 ms after the signal; then every 100 ms until the server is gone.
      await new Promise((r) => setTimeout(r, 50));
      const health = pollHealth(server.url, () => signalledAt, server.exited);
      const settled = await Promise.all(results);
      const code = await server.exited;
      const exitMs = Date.now() - signalledAt;
      const probes = await health;

      const config = loadConfig({}, { dataDir, databaseUrl: distributed.databaseUrl, databaseSchema: schema });
      const ds = await openDataSource(config);
      try {
        const events = await ds.getRepository(UsageEvent).find();
        const gapQuestions: { reply_id: string; question: string }[] = await ds.query('SELECT reply_id, question FROM knowledge_gap_questions');
        return { settled, code, exitMs, events, gapQuestions, output: server.output(), healthBefore: before.status, probes };
      } finally {
        await ds.destroy();
      }
    } finally {
      sockets.forEach((s) => s.close());
      server.kill();
    }
  }

  it('lets 20 live streams finish with their replies, answers /health 503 from the first probe, exits within 30 s and records every usage event', async () => {
    const { settled, exitMs, events, output, healthBefore, probes } = await run('[mock:tokens=64;delay=30]', 25000);
    console.log(
      `SIGTERM with 20 live streams: ${settled.filter((r) => r.done).length}/20 completed, exit after ${exitMs} ms; ` +
        `/health ${healthBefore} before, then ${probes.length} probes from +${probes[0]?.[0]} ms: ${[...new Set(probes.map((p) => p[1]))].join(', ')}`,
    );
    expect(healthBefore).toBe(200);
    // The replies take ~2 s to finish, so there are many probes, and every one says 503.
    expect(probes.length).toBeGreaterThan(3);
    expect(probes[0][0]).toBeLessThan(1000);
    expect(probes.every(([, status]) => status === 503)).toBe(true);
    for (const r of settled) {
      expect(r.error).toBeUndefined();
      expect(r.done?.response).toBe(r.deltas.join(''));
    }
    expect(exitMs).toBeLessThan(30000);
    expect(events).toHaveLength(20);
    expect(events.every((e) => e.status === 'success')).toBe(true);
    expect(output).toMatch(/waiting for 20 running chats/);
  }, 60000);

  it('ends streams that outlast the grace period with "server restarting" and still records them', async () => {
    const { settled, exitMs, events } = await run('[mock:tokens=2000;delay=20]', 800);
    for (const r of settled) {
      expect(r.done).toBeUndefined();
      expect(r.error?.code).toBe('server_restarting');
      expect(r.error?.message).toMatch(/restarting/i);
    }
    expect(exitMs).toBeLessThan(30000);
    expect(events).toHaveLength(20);
    expect(events.every((e) => e.errorCode === 'server_restarting')).toBe(true);
  }, 60000);

  it('keeps the knowledge gap of each of 20 not-found replies streaming at the signal (the database closes after them)', async () => {
    const { settled, events, gapQuestions, output } = await run('[mock:tokens=64;delay=30]', 25000, (i) => `Do you sell replacement quokka saddles in size ${i}?`);
    const completed = settled.filter((r) => r.done);
    console.log(`SIGTERM with 20 not-found replies streaming: ${completed.length}/20 completed, ${events.length} usage events, ${gapQuestions.length} knowledge-gap records`);
    expect(completed).toHaveLength(20);
    expect(completed.every((r) => r.done?.answered === false)).toBe(true);
    expect(events).toHaveLength(20);
    expect(gapQuestions.map((q) => q.reply_id).sort()).toEqual(completed.map((r) => r.done!.replyId).sort());
    expect(output).not.toMatch(/knowledge gap was not recorded|Database handle is closed/);
  }, 120_000);
});
