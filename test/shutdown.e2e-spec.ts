/**
 * Graceful shutdown of a real server process: SIGTERM while 20 replies stream.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageEvent } from '../src/analytics/usage-event.entity';
import { loadConfig } from '../src/config/app-config';
import { dropPostgresSchema, openDataSource } from '../src/database/data-source';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, ClientSocket, connectClient, distributed, StreamResult, uniqueSchema } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function startServerProcess(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'log', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d.toString()));
  child.stderr!.on('data', (d) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60000);
    const onData = () => {
      const m = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', () => reject(new Error(`server exited early:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
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

  async function run(streamMarker: string, graceMs: number) {
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
        chatOverSocket(s, { requestId: `live-${i}`, vertical: 'hr', query: `Tell me about paid time off ${streamMarker}` }, 60000),
      );
      await Promise.all(firstDeltas);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const settled = await Promise.all(results);
      const code = await server.exited;
      const exitMs = Date.now() - signalledAt;

      const config = loadConfig({}, { dataDir, databaseUrl: distributed.databaseUrl, databaseSchema: schema });
      const ds = await openDataSource(config);
      try {
        const events = await ds.getRepository(UsageEvent).find();
        return { settled, code, exitMs, events, output: server.output() };
      } finally {
        await ds.destroy();
      }
    } finally {
      sockets.forEach((s) => s.close());
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  }

  it('lets 20 live streams finish with their replies, exits within 30 s and records every usage event', async () => {
    const { settled, exitMs, events, output } = await run('[mock:tokens=64;delay=30]', 25000);
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
});
