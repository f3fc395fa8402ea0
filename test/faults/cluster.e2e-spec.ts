/**
 * Fault matrix: `npm run cluster` (deploy/cluster.ts) for real: two app processes on PostgreSQL
 * and Redis behind nginx (Debian's package) on free ports, the apps streaming from the mock LLM.
 *
 * - chats through nginx over WebSocket and over long-polling, where every request of a polling
 *   session must reach the server holding it (sticky on the visitor cookie; nginx's access log
 *   names the app that served each request);
 * - SIGKILL one app: sockets it held reconnect to the other and chat again, new visitors and
 *   POST /interact are answered, and the script marks it down in nginx;
 * - SIGTERM to the script stops apps and nginx, exit code 0;
 * - three servers starting at the same moment on a new schema all start (the migrations take
 *   turns under an advisory lock);
 * - without nginx the script says how to install it and exits non-zero.
 *
 * Uses REDIS_URL / DATABASE_URL when set (own schema and key prefix), otherwise Redis and
 * PostgreSQL instances of its own. Skipped only when nginx is not installed (.ci/run installs it).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { io } from 'socket.io-client';
import { findNginx, NGINX_MISSING } from '../../deploy/cluster';
import { MockLlmServer, startMockLlmServer } from '../support/mock-llm-server';
import { chatOverSocket, ClientSocket } from '../support/test-app';
import { ClusterProcess, liftChatLimits, runClusterScript, startCluster, tearDownCluster } from './support/cluster-process';
import { startServerProcess } from './support/server-process';
import { SharedServices, sharedServices } from './support/shared-services';
import { describeWith, NEEDS } from '../support/requirements';

const nginx = findNginx(process.env);
const describeWithNginx = (name: string, fn: () => void) => describeWith([NEEDS.nginx, NEEDS.sharedServices], name, fn);
const fromSource = process.env.FAULTS_FROM_DIST !== '1';
const ADMIN = { email: 'cluster-admin@example.com', password: 'a long enough cluster test password' };

/** A visitor cookie of our own making (the format the server accepts: 43 base64url characters). */
function visitorCookie(): string {
  return `sa_visitor=${randomBytes(32).toString('base64url')}`;
}

function connect(url: string, transport: 'websocket' | 'polling', cookie: string, reconnection = false): Promise<ClientSocket> {
  return new Promise((resolve, reject) => {
    const socket: ClientSocket = io(url, {
      transports: [transport],
      forceNew: true,
      reconnection,
      reconnectionDelay: 500,
      reconnectionDelayMax: 3000,
      extraHeaders: { cookie },
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}


/** nginx's access log (written at exit, or every 2 s): request line, status and the app that served it. */
function accessLog(dir: string): { request: string; status: number; upstream: string }[] {
  const file = path.join(dir, 'nginx', 'access.log');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /"([^"]*)" (\d{3}) \d+ upstream=(\S+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ request: m[1], status: Number(m[2]), upstream: m[3] }));
}

/**
 * The app nginx routed a request to: the first of $upstream_addr. A request nginx retried on the
 * next app (the first refused or broke off) lists both ("127.0.0.1:A, 127.0.0.1:B"). Handshakes
 * may be retried; a request of a session (sid) never is: it could only find no session there
 * (400). That happened when a polling session closed and the app reset the connection of its
 * pending GET, until the config stopped such retries (deploy/nginx, location @socketio_session).
 */
const routedTo = (upstream: string): string => upstream.replace(/,$/, '');
const retried = (entry: { upstream: string }): boolean => entry.upstream.endsWith(',');

describe('npm run cluster without nginx', () => {
  it('says how to install nginx and exits non-zero', async () => {
    const { code, output } = await runClusterScript(['2', '--port', '0'], { NGINX_BIN: '/nonexistent/nginx' });
    expect(code).toBe(1);
    expect(output).toContain('nginx was not found');
    expect(output).toContain('apt-get install nginx');
  }, 30_000);
});

describeWithNginx('npm run cluster: two apps behind nginx', () => {
  let mock: MockLlmServer;
  let backing: SharedServices;
  let dir: string;
  let cluster: ClusterProcess | undefined;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 30, delayMs: 20 });
    backing = await sharedServices();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-cluster-'));
    cluster = await startCluster({
      apps: 2,
      dir,
      source: fromSource,
      env: {
        DATABASE_URL: backing.databaseUrl,
        DATABASE_SCHEMA: backing.schema,
        REDIS_URL: backing.redisUrl,
        REDIS_PREFIX: `cl${randomBytes(4).toString('hex')}`,
        OPENAI_API_KEY: 'sk-cluster',
        OPENAI_BASE_URL: mock.openaiBaseUrl,
        SHUTDOWN_GRACE_MS: '5000',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
    });
    // Every client here comes from 127.0.0.1: the per-IP chat limits are raised.
    await liftChatLimits(cluster.state.url, ADMIN.email, ADMIN.password);
  }, 240_000);

  afterAll(async () => {
    await tearDownCluster({ cluster, dir, others: [mock, backing] });
  }, 60_000);

  it('answers chats through nginx over WebSocket and over long-polling, each polling session staying on one app; kill -9 of one app leaves the service answering; SIGTERM stops everything', async () => {
    const { url, apps } = cluster!.state;
    expect(apps).toHaveLength(2);

    // 1. WebSocket through nginx: the upgrade is passed on, the reply streams in frames.
    const ws = await connect(url, 'websocket', visitorCookie());
    const viaWs = await chatOverSocket(ws, { vertical: 'hr', query: 'How many vacation days do I get?' }, 30_000);
    ws.close();
    expect(viaWs.error).toBeUndefined();
    expect(viaWs.deltas.length).toBeGreaterThan(1);
    expect(viaWs.done?.response).toBe(viaWs.deltas.join(''));

    // 2. Long-polling, 8 visitors: each reply takes many requests against its session.
    const pollers = await Promise.all(Array.from({ length: 8 }, () => connect(url, 'polling', visitorCookie())));
    const polled = await Promise.all(pollers.map((s) => chatOverSocket(s, { vertical: 'customer-service', query: 'How long does shipping take?' }, 30_000)));
    const pollingSids = new Set(pollers.map((s) => s.io.engine.id));
    pollers.forEach((s) => s.close());
    for (const r of polled) {
      expect(r.error).toBeUndefined();
      expect(r.done?.response).toBe(r.deltas.join(''));
    }

    // 3. kill -9 of app1 while 16 sockets (reconnecting, as the chat page does) are connected.
    const cookies = Array.from({ length: 16 }, () => visitorCookie());
    const held = await Promise.all(cookies.map((c) => connect(url, 'websocket', c, true)));
    const dropped: Promise<number>[] = [];
    let killedAt = 0;
    held.forEach((s) =>
      s.once('disconnect', () => dropped.push(new Promise((resolve) => s.once('connect', () => resolve(Date.now() - killedAt))))),
    );
    killedAt = Date.now();
    process.kill(apps[0].pid, 'SIGKILL');
    // The sockets app1 held see their connection end (nginx closes the client side).
    await new Promise((r) => setTimeout(r, 1500));
    const reconnectMs = await Promise.all(dropped);
    const afterKill = await Promise.all(held.map((s) => chatOverSocket(s, { vertical: 'sales', query: 'How do I handle a price objection?' }, 30_000)));
    held.forEach((s) => s.close());
    const newcomers = await Promise.all(Array.from({ length: 8 }, () => connect(url, 'websocket', visitorCookie())));
    const newChats = await Promise.all(newcomers.map((s) => chatOverSocket(s, { vertical: 'hr', query: 'How does parental leave work?' }, 30_000)));
    newcomers.forEach((s) => s.close());
    const interact = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await fetch(`${url}/interact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: visitorCookie() },
          body: JSON.stringify({ vertical: 'customer-service', query: 'How do I reset my password?' }),
        });
        return res.status;
      }),
    );
    console.log(
      `cluster (2 apps behind nginx): kill -9 of app1 dropped ${reconnectMs.length}/16 sockets; they reconnected after ` +
        `${reconnectMs.length ? `${Math.min(...reconnectMs)}-${Math.max(...reconnectMs)} ms` : 'n/a'}; afterwards ` +
        `${afterKill.filter((r) => r.done).length}/16 of them, ${newChats.filter((r) => r.done).length}/8 new sockets and ` +
        `${interact.filter((s) => s === 200).length}/8 POST /interact answered`,
    );
    // With 16 random visitor cookies on two apps, both held some (the chance that one held none is 2^-15).
    expect(reconnectMs.length).toBeGreaterThan(0);
    expect(reconnectMs.length).toBeLessThan(16);
    expect(Math.max(...reconnectMs)).toBeLessThan(5000);
    for (const r of [...afterKill, ...newChats]) {
      expect(r.error).toBeUndefined();
      expect(r.done?.response).toBe(r.deltas.join(''));
    }
    expect(interact).toEqual(Array(8).fill(200));
    await new Promise((r) => setTimeout(r, 1500));
    expect(cluster!.output()).toMatch(/app1 \(pid \d+\) exited \(SIGKILL\); 1 of 2 apps left/);
    // Marked down by the exit, or by the failed /health check when that comes first (before the exit is seen).
    expect(cluster!.output()).toMatch(/app1 (is gone|is draining or not answering \/health): marked down in nginx/);

    // 4. SIGTERM: the script drains the app left, stops nginx and exits 0.
    const code = await cluster!.stop('SIGTERM');
    expect(code).toBe(0);
    const isGone = (pid: number) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    expect(isGone(apps[1].pid)).toBe(true);
    expect(isGone(cluster!.state.nginxPid)).toBe(true);

    // Stickiness, from nginx's access log (flushed at exit): every request of each polling
    // session went to one app, and the sessions used both apps.
    const log = accessLog(dir);
    const upstreamsBySid = new Map<string, Set<string>>();
    for (const entry of log) {
      const sid = /[?&]sid=([^& ]+)/.exec(entry.request)?.[1];
      if (!sid || !pollingSids.has(sid)) continue;
      if (!upstreamsBySid.has(sid)) upstreamsBySid.set(sid, new Set());
      upstreamsBySid.get(sid)!.add(routedTo(entry.upstream));
    }
    const retries = log.filter((e) => retried(e) && e.request.includes('/socket.io/'));
    const requestsPerSession = log.filter((e) => [...pollingSids].some((sid) => e.request.includes(sid))).length / pollingSids.size;
    console.log(
      `cluster: ${pollingSids.size} polling sessions, ${requestsPerSession.toFixed(1)} requests each, apps per session: ` +
        `${[...upstreamsBySid.values()].map((s) => s.size).join(', ')}; apps used: ${new Set([...upstreamsBySid.values()].flatMap((s) => [...s])).size}; ` +
        `requests retried on the other app after the first broke off: ${retries.length} (${retries.map((e) => e.status).join(', ') || 'none'})`,
    );
    expect(upstreamsBySid.size).toBe(pollingSids.size);
    for (const upstreams of upstreamsBySid.values()) expect(upstreams.size).toBe(1);
    expect(new Set([...upstreamsBySid.values()].flatMap((s) => [...s])).size).toBe(2);
    // No request of a session was retried on another app, and none reached an app without its session.
    expect(retries.filter((e) => /[?&]sid=/.test(e.request))).toEqual([]);
    expect(log.filter((e) => e.status === 400 && e.request.includes('/socket.io/'))).toEqual([]);
  }, 180_000);
});

describeWith([NEEDS.sharedServices], 'servers starting at once on a new schema', () => {
  it('all start (the migrations take turns)', async () => {
    const backing = await sharedServices();
    const schema = backing.schema ?? `t_${randomBytes(6).toString('hex')}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-together-'));
    const env = {
      DATABASE_URL: backing.databaseUrl,
      DATABASE_SCHEMA: schema,
      REDIS_URL: backing.redisUrl,
      REDIS_PREFIX: `tg${randomBytes(4).toString('hex')}`,
      DATA_DIR: dataDir,
    };
    const started = await Promise.allSettled([1, 2, 3].map(() => startServerProcess(env, 120_000)));
    try {
      const failures = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String(s.reason).slice(0, 500));
      console.log(`three servers started at once on a new schema: ${3 - failures.length}/3 started`);
      expect(failures).toEqual([]);
    } finally {
      for (const s of started) if (s.status === 'fulfilled') s.value.kill();
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.exited : undefined)));
      await backing.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
