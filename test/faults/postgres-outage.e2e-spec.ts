/**
 * Fault matrix: PostgreSQL stopped and started while visitors chat and an admin saves knowledge.
 * A cluster of its own on a free port (test/support/service-instances), stopped the way a crash
 * stops it (immediate). While it is down, chats over the socket and /interact get 503
 * `database_unavailable` (never a 500), /health says 503; after it is back, chats are answered
 * again within seconds, and nothing is half-written: every knowledge item has its chunks, and
 * every chat that was answered has its usage event.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { PostgresInstance } from '../support/service-instances';
import { describeLoad, startChatLoad } from './support/chat-load';
import { ServerProcess, startServerProcess } from './support/server-process';
import { describeWith, NEEDS } from '../support/requirements';

const OUTAGE_MS = 10_000;
const ADMIN = 'pg-admin@example.com';
const PASSWORD = 'pg admin password 123';

async function interact(url: string): Promise<{ status: number; code?: string }> {
  try {
    const res = await fetch(`${url}/interact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vertical: 'hr', query: 'How many vacation days do I get?' }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, code: body.error?.code };
  } catch {
    return { status: 0 };
  }
}

/**
 * /interact with `Accept: text/event-stream`: the status, or 503 and the code of a `chat:error`
 * frame when the stream had started before it failed. Status 0: no answer within 15 s.
 */
async function streamed(url: string): Promise<{ status: number; code?: string }> {
  try {
    const res = await fetch(`${url}/interact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ vertical: 'customer-service', query: 'How long does a refund take?' }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return { status: res.status, code: (JSON.parse(text) as { error?: { code: string } }).error?.code };
    }
    const error = /event: chat:error\n(?:id: \d+\n)?data: (.*)/.exec(text);
    if (error) return { status: 503, code: (JSON.parse(error[1]) as { code?: string }).code };
    return { status: /event: chat:done/.test(text) ? 200 : 0 };
  } catch {
    return { status: 0 };
  }
}

describeWith([NEEDS.postgresServer], 'Postgres stopped and started during chats', () => {
  let pg: PostgresInstance;
  let server: ServerProcess | undefined;
  let dataDir: string;

  beforeAll(async () => {
    pg = await PostgresInstance.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-pg-fault-'));
  });

  afterAll(async () => {
    server?.kill();
    await server?.exited;
    await pg.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 database_unavailable while it is down, recovers within seconds, and leaves nothing half-written', async () => {
    server = await startServerProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: pg.url,
      DATABASE_SCHEMA: '',
      REDIS_URL: '',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      LOCAL_RESPONDER_DELAY_MS: '2',
      ADMIN_EMAIL: ADMIN,
      ADMIN_PASSWORD: PASSWORD,
    });
    const url = server.url;
    const signIn = await fetch(`${url}/api/auth/login-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN, password: PASSWORD }) });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const load = await startChatLoad(url, { sockets: 2, rest: 1, pauseMs: 50 });
    await new Promise((r) => setTimeout(r, 2000));

    // An admin saves a large item (hundreds of chunks) as the database goes away.
    const content = Array.from({ length: 1500 }, (_, i) => `Paragraph ${i} about the refund policy, shipping times and returns for order ${i}.`).join('\n\n');
    const save = fetch(`${url}/api/knowledge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ title: 'Big policy document', content, category: 'Policies', vertical: 'customer-service', tags: [], attachments: [] }),
    }).then(async (res) => ({ status: res.status, code: ((await res.json()) as { error?: { code: string } }).error?.code }));
    await new Promise((r) => setTimeout(r, 30));
    await pg.stop('immediate');
    const stoppedAt = Date.now();

    const during: Array<{ status: number; code?: string }> = [];
    const healthDuring: number[] = [];
    while (Date.now() - stoppedAt < OUTAGE_MS) {
      during.push(await interact(url));
      healthDuring.push((await fetch(`${url}/health`).catch(() => undefined))?.status ?? 0);
      await new Promise((r) => setTimeout(r, 250));
    }
    const saved = await save;
    await pg.start();
    const startedAt = Date.now();
    let recoveredMs: number | undefined;
    while (Date.now() - startedAt < 30_000) {
      if ((await interact(url)).status === 200) {
        recoveredMs = Date.now() - startedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 3000));
    const result = await load.stop();

    // Nothing half-written: an item is stored with all its chunks or not at all; every answered
    // chat has its usage event (written before the reply, or journaled and written after).
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    let itemsWithoutChunks: number;
    let bigItem: { chunks: number } | undefined;
    let missingUsage: string[] = [];
    try {
      itemsWithoutChunks = Number(
        (await db.query('SELECT COUNT(*) AS n FROM knowledge_items i WHERE NOT EXISTS (SELECT 1 FROM knowledge_chunks c WHERE c.item_id = i.id)')).rows[0].n,
      );
      const big = await db.query("SELECT (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.item_id = i.id) AS chunks FROM knowledge_items i WHERE i.title = 'Big policy document'");
      bigItem = big.rows[0] ? { chunks: Number(big.rows[0].chunks) } : undefined;
      for (let i = 0; i < 50; i += 1) {
        const stored = new Set((await db.query('SELECT id FROM usage_events WHERE id = ANY($1)', [result.replyIds])).rows.map((r: { id: string }) => r.id));
        missingUsage = result.replyIds.filter((id) => !stored.has(id));
        if (missingUsage.length === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await db.end();
    }

    const codes = (list: Array<{ status: number; code?: string }>) => [...new Set(list.map((d) => `${d.status} ${d.code ?? ''}`.trim()))].join(', ');
    console.log(
      [
        `Postgres down ${OUTAGE_MS / 1000} s: /interact during the outage: ${during.length} calls, answered with ${codes(during)}; /health: ${[...new Set(healthDuring)].join(', ')}`,
        `chat load: ${describeLoad(result)}`,
        `knowledge save as it went down: ${saved.status} ${saved.code ?? ''}; stored: ${bigItem ? `yes, ${bigItem.chunks} chunks` : 'no'}; items without chunks: ${itemsWithoutChunks}`,
        `recovered ${recoveredMs === undefined ? 'NOT within 30 s' : `${(recoveredMs / 1000).toFixed(1)} s`} after Postgres was back; answered chats without a usage event: ${missingUsage.length}`,
      ].join('\n'),
    );
    const failureCodes = Object.keys(result.failures);
    expect(failureCodes.every((code) => /database_unavailable/.test(code))).toBe(true);
    expect(during.length).toBeGreaterThan(5);
    expect(during.every((d) => d.status === 503 && d.code === 'database_unavailable')).toBe(true);
    expect(healthDuring.every((s) => s === 503)).toBe(true);
    expect(recoveredMs).toBeDefined();
    expect(recoveredMs!).toBeLessThan(10_000);
    expect(itemsWithoutChunks).toBe(0);
    expect(missingUsage).toEqual([]);
    if (saved.status === 201 || saved.status === 200) expect(bigItem?.chunks).toBeGreaterThan(0);
  }, 120_000);

  it('fails chats within the statement bound while the database is silent, streamed ones too, and recovers', async () => {
    server?.kill();
    await server?.exited;
    server = await startServerProcess({
      DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'silent-')),
      DATABASE_URL: pg.url,
      DATABASE_SCHEMA: 'silent',
      REDIS_URL: '',
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      DATABASE_QUERY_TIMEOUT_MS: '2000',
      LOCAL_RESPONDER_DELAY_MS: '2',
    });
    const url = server.url;
    // Open connections first: the silent database must be met on connections the pool holds,
    // where only the statement bound ends the wait (a new connection ends at the connect timeout).
    const warm = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? streamed(url) : interact(url))));
    expect(warm.every((w) => w.status === 200)).toBe(true);

    await pg.freeze();
    const frozenAt = Date.now();
    let during: Array<{ status: number; code?: string; ms: number; kind: string }>;
    let health: number;
    try {
      during = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const started = Date.now();
          const result = i % 2 ? { ...(await streamed(url)), kind: 'sse' } : { ...(await interact(url)), kind: 'json' };
          return { ...result, ms: Date.now() - started };
        }),
      );
      health = (await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) }).catch(() => undefined))?.status ?? 0;
    } finally {
      await pg.thaw();
    }
    const silentFor = Date.now() - frozenAt;
    const thawedAt = Date.now();
    let recoveredMs: number | undefined;
    while (Date.now() - thawedAt < 20_000) {
      if ((await interact(url)).status === 200 && (await streamed(url)).status === 200) {
        recoveredMs = Date.now() - thawedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(
      `Postgres silent ${(silentFor / 1000).toFixed(1)} s (statement bound 2 s): ` +
        during.map((d) => `${d.kind} ${d.status} ${d.code ?? ''} in ${(d.ms / 1000).toFixed(1)} s`).join('; ') +
        `; /health ${health}; answered again ${recoveredMs === undefined ? 'NOT within 20 s' : `${(recoveredMs / 1000).toFixed(1)} s`} after`,
    );
    for (const d of during) {
      expect({ kind: d.kind, status: d.status, code: d.code }).toEqual({ kind: d.kind, status: 503, code: 'database_unavailable' });
      // One bound, plus a retry or a connect timeout on the way: never the whole silence.
      expect(d.ms).toBeLessThan(7_000);
    }
    expect(health).toBe(503);
    expect(recoveredMs).toBeDefined();
  }, 120_000);
});
