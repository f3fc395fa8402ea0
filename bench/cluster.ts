/**
 * Cluster benchmark: `npm run cluster` (deploy/cluster.ts: apps on PostgreSQL and Redis behind
 * nginx) under 1,000 concurrent Socket.IO clients, with 1 and with 3 app servers, then one server
 * killed mid-load.
 *
 *   npx ts-node --transpile-only bench/cluster.ts      (needs nginx, PostgreSQL and Redis)
 *
 * Everything runs on 127.0.0.1: the mock LLM in a child process (bench/stream-server.ts, 32
 * deltas 20 ms apart), the cluster script and its apps (from dist/, built when missing), nginx,
 * and every client in this process. Each client is a browser-like visitor: its own visitor cookie
 * (so nginx's sticky hash spreads them), WebSocket, reconnecting as the chat page does
 * (SOCKET_RECONNECTION), asking one question after another without pause.
 *
 * Per server count, over a measured window after a warm-up: chats completed per second, time to
 * first token (chat:send -> first chat:delta) p50/p99, and the frames of every reply checked by
 * their seq: lost (a seq missing before the final frame), duplicated (a seq seen twice), and the
 * text (the deltas joined must be the reply chat:done carries). CPU seconds of each process
 * (apps, nginx, the mock, the clients) over the window show where the machine's cores went.
 *
 * Then, with 3 servers and the load still running, one app gets SIGKILL. Its clients' sockets
 * drop; they reconnect through nginx to the others (time from disconnect to connect) and resume
 * the reply they were reading (chat:resume after their last seq): replies that ended before the
 * kill are read back from the Redis stream; replies the dead server was still writing are taken
 * over by another server once its heartbeat is gone (a few seconds): `chat:restart`, then the
 * reply written again, which the client shows instead of the partial text (checked: the deltas
 * after the restart are the reply chat:done carries). The report counts replies taken over,
 * completed and lost (goal 0 lost). A reply that still ends `reply_interrupted` (taken over too
 * often) is asked again (as the chat page's visitor would), and that answer is counted too.
 *
 * Chat rate limits: every client comes from 127.0.0.1, so the per-IP limits (messages and
 * sockets per IP) would refuse them. The benchmark signs in as the admin it gives the cluster
 * (ADMIN_EMAIL / ADMIN_PASSWORD) and raises them through PUT /api/config/global (the values the
 * test suites use, test/support/lifted-limits.ts) before the load starts, and says so.
 *
 * Knobs: BENCH_CLUSTER_CLIENTS (1000), BENCH_CLUSTER_SECONDS (measured window, 30),
 * BENCH_CLUSTER_SERVERS (1,3), BENCH_CLUSTER_KILL (1; 0 skips the kill), DATABASE_URL /
 * REDIS_URL (default the local services; a schema and key prefix of its own, dropped after).
 * The whole run is bounded (BENCH_CLUSTER_DEADLINE_MS, 15 min): past it, everything is stopped
 * and the run fails. Progress goes to stderr, the report to stdout.
 */
import { ChildProcess, execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { io, Socket } from 'socket.io-client';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { ClientToServerEvents, ServerToClientEvents } from '../src/shared/contracts/socket';
import { SOCKET_RECONNECTION } from '../src/shared/contracts/socket-reconnection';
import { findNginx, NGINX_MISSING } from '../deploy/cluster';
import { stopLeftoverNginx } from '../deploy/nginx-process';
import { dropPostgresSchema } from '../src/database/data-source';
import { ClusterProcess, liftChatLimits, startCluster } from '../test/faults/support/cluster-process';

// ------------------------------------------------------------------------------------------------
// Settings

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

const CLIENTS = intFromEnv('BENCH_CLUSTER_CLIENTS', 1000, 10, 5000);
const WINDOW_S = intFromEnv('BENCH_CLUSTER_SECONDS', 30, 5, 300);
const WARMUP_MS = 10_000;
const SERVER_COUNTS = (process.env.BENCH_CLUSTER_SERVERS ?? '1,3').split(',').map((n) => Number(n.trim())).filter((n) => Number.isInteger(n) && n >= 1 && n <= 8);
const KILL = process.env.BENCH_CLUSTER_KILL !== '0';
const DEADLINE_MS = intFromEnv('BENCH_CLUSTER_DEADLINE_MS', 15 * 60_000, 60_000, 3_600_000);
const TOKENS = 32;
const DELAY_MS = 20;
/** After the kill: how long the load goes on before it is wound down. */
const AFTER_KILL_MS = 8000;
/** A reply with no final frame this long after it was asked counts as lost. */
const REPLY_TIMEOUT_MS = 60_000;
const CONNECT_BATCH = 50;
const ADMIN = { email: 'bench-admin@example.com', password: 'a long enough bench password' };
const QUESTIONS: [string, string][] = [
  ['customer-service', 'How long does a refund take to reach my card?'],
  ['customer-service', 'I forgot my password, how do I get back into my account?'],
  ['hr', 'How many vacation days do I get?'],
  ['sales', 'How do I handle a price objection?'],
];

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type ChatSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

// ------------------------------------------------------------------------------------------------
// The mock LLM (a child process, so its CPU is its own)

class MockChild {
  private nextId = 1;
  private readonly pending = new Map<number, (m: { result?: unknown; error?: string }) => void>();
  readonly proc: ChildProcess;

  constructor() {
    this.proc = fork(path.join(__dirname, 'stream-server.ts'), ['mock'], {
      execArgv: ['-r', require.resolve('ts-node/register/transpile-only')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      this.pending.get(m.id)?.(m);
      this.pending.delete(m.id);
    });
  }

  call<T>(cmd: string, args?: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mock: ${cmd} timed out`)), 30_000);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        if (m.error !== undefined) reject(new Error(m.error));
        else resolve(m.result as T);
      });
      this.proc.send({ id, cmd, args });
    });
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}

// ------------------------------------------------------------------------------------------------
// CPU of processes (Linux /proc), to show where the two cores went

const TICK_S = 0.01; // USER_HZ is 100 on Linux

function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_S;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

interface CpuGroups {
  [group: string]: number[];
}

/** Processes by name (the shared PostgreSQL and Redis: their CPU includes anything else using them). */
function pidsNamed(names: readonly string[]): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (names.includes(fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/** CPU seconds the whole machine spent busy (every process, other users' too), from /proc/stat. */
function machineBusySeconds(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return (fields.reduce((a, b) => a + b, 0) - idle) * TICK_S;
  } catch {
    return NaN;
  }
}

function cpuSnapshot(groups: CpuGroups): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [group, pids] of Object.entries(groups)) out[group] = pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
  const self = process.cpuUsage();
  out.clients = (self.user + self.system) / 1e6;
  out.machine = machineBusySeconds();
  return out;
}

// ------------------------------------------------------------------------------------------------
// Clients

interface Reply {
  requestId: string;
  replyId?: string;
  askedAt: number;
  ttftMs?: number;
  endedAt?: number;
  /** Seqs of the deltas received, in order of arrival. */
  seqs: number[];
  texts: string[];
  finalSeq?: number;
  /** chat:restart frames (another server took the reply over): the text after the last one is the reply. */
  restarts: number;
  /** Index in `texts` where the text after the last restart begins. */
  textFrom: number;
  done?: ReplyData;
  error?: { code: string; message: string };
  /** The socket dropped while this reply was open (it was resumed, or asked again). */
  dropped: boolean;
  resumed: boolean;
  /** Asked again after the kill ended it (interrupted, or never acknowledged). */
  reasked: boolean;
}

interface Totals {
  replies: Reply[];
  reconnectMs: number[];
  /** Per reconnection: from the drop to the first attempt, the attempts made, and the successful attempt's own time (attempt -> connect). */
  firstAttemptMs: number[];
  attempts: number[];
  handshakeMs: number[];
  drops: number;
  connectErrors: number;
  /** connect_error messages, counted. */
  connectErrorReasons: Record<string, number>;
}

class BenchClient {
  readonly socket: ChatSocket;
  private current: Reply | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private disconnectedAt: number | undefined;
  private attempt = { n: 0, at: 0 };
  private wake: (() => void) | undefined;
  private seq = 0;

  constructor(
    url: string,
    private readonly n: number,
    private readonly totals: Totals,
  ) {
    this.socket = io(url, {
      transports: ['websocket'],
      forceNew: true,
      ...SOCKET_RECONNECTION,
      timeout: 20_000,
      extraHeaders: { cookie: `sa_visitor=${randomBytes(32).toString('base64url')}` },
    });
    this.socket.on('chat:delta', (p) => {
      const r = this.current;
      if (!r || p.requestId !== r.requestId) return;
      if (r.ttftMs === undefined && p.text.length > 0) r.ttftMs = performance.now() - r.askedAt;
      if (typeof p.seq === 'number') r.seqs.push(p.seq);
      r.texts.push(p.text);
    });
    this.socket.on('chat:restart', (p) => {
      const r = this.current;
      if (!r || p.requestId !== r.requestId) return;
      if (typeof p.seq === 'number') r.seqs.push(p.seq);
      r.restarts += 1;
      r.textFrom = r.texts.length;
    });
    this.socket.on('chat:done', (p) => {
      const r = this.current;
      if (!r || p.requestId !== r.requestId) return;
      r.done = p.data;
      r.finalSeq = p.seq;
      this.end();
    });
    this.socket.on('chat:error', (p) => {
      const r = this.current;
      if (!r || p.requestId !== r.requestId) return;
      r.error = { code: p.code, message: p.message };
      r.finalSeq = p.seq;
      this.end();
    });
    this.socket.on('disconnect', () => {
      if (!this.running) return;
      this.disconnectedAt = performance.now();
      this.totals.drops += 1;
      if (this.current) this.current.dropped = true;
    });
    this.socket.io.on('reconnect_attempt', (n) => {
      if (this.disconnectedAt === undefined) return;
      if (n === 1) this.totals.firstAttemptMs.push(performance.now() - this.disconnectedAt);
      this.attempt = { n, at: performance.now() };
    });
    this.socket.on('connect', () => {
      if (this.disconnectedAt === undefined) return;
      this.totals.reconnectMs.push(performance.now() - this.disconnectedAt);
      if (this.attempt.n > 0) {
        this.totals.attempts.push(this.attempt.n);
        this.totals.handshakeMs.push(performance.now() - this.attempt.at);
      }
      this.attempt = { n: 0, at: 0 };
      this.disconnectedAt = undefined;
      const r = this.current;
      if (!r) return;
      if (r.replyId === undefined) {
        // The question never reached a server that acknowledged it: ask again.
        this.end({ code: 'unacknowledged', message: 'no ack before the connection dropped' });
        return;
      }
      // Pick the reply up after the last frame this client has, on whichever server it reached.
      r.resumed = true;
      const after = r.seqs.length > 0 ? Math.max(...r.seqs) : 0;
      this.socket.emit('chat:resume', { requestId: r.requestId, replyId: r.replyId, after }, (ack) => {
        if (!ack.accepted && this.current === r) this.end({ code: `resume_${ack.error.code}`, message: ack.error.message });
      });
    });
    this.socket.on('connect_error', (error) => {
      this.totals.connectErrors += 1;
      if (this.disconnectedAt === undefined) return;
      const reason = `${error.message}${(error as { description?: unknown }).description ? ` (${String((error as { description?: unknown }).description)})` : ''}`.slice(0, 80);
      this.totals.connectErrorReasons[reason] = (this.totals.connectErrorReasons[reason] ?? 0) + 1;
    });
  }

  connected(): Promise<void> {
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('connect timed out')), 60_000);
      this.socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Starts asking after `delayMs` (the clients' starts are spread, or they would move in waves). */
  start(delayMs = 0): void {
    this.running = true;
    this.loop = sleep(delayMs).then(() => this.run());
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  close(): void {
    this.running = false;
    this.socket.close();
  }

  private end(error?: { code: string; message: string }): void {
    const r = this.current;
    if (!r) return;
    if (error) r.error = error;
    r.endedAt = performance.now();
    this.totals.replies.push(r);
    this.current = undefined;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let reask = false;
    while (this.running || reask) {
      const [vertical, query] = QUESTIONS[(this.n + this.seq) % QUESTIONS.length];
      const r: Reply = { requestId: `b${this.n}-${this.seq++}`, askedAt: performance.now(), seqs: [], texts: [], restarts: 0, textFrom: 0, dropped: false, resumed: false, reasked: reask };
      this.current = r;
      const ended = new Promise<void>((resolve) => (this.wake = resolve));
      const timer = setTimeout(() => this.end({ code: 'timeout', message: `no final frame within ${REPLY_TIMEOUT_MS} ms` }), REPLY_TIMEOUT_MS);
      this.socket.emit('chat:send', { requestId: r.requestId, vertical: vertical as 'hr', query }, (ack) => {
        if (ack.accepted) r.replyId = ack.replyId;
        else if (this.current === r) this.end({ code: ack.error.code, message: ack.error.message });
      });
      await ended;
      clearTimeout(timer);
      // A reply the kill ended (its server was writing it) is asked again, once, as a visitor would.
      reask = !r.reasked && r.dropped && (r.error?.code === 'reply_interrupted' || r.error?.code === 'unacknowledged' || r.error?.code?.startsWith('resume_') === true);
    }
  }
}

/** Frames of a reply checked by seq: deltas 1..final-1, each once, and their text is the reply. */
function checkFrames(r: Reply): { lost: number; duplicated: number; textMismatch: boolean } {
  if (r.finalSeq === undefined) return { lost: 0, duplicated: 0, textMismatch: false };
  const seen = new Set<number>();
  let duplicated = 0;
  for (const s of r.seqs) {
    if (seen.has(s)) duplicated += 1;
    seen.add(s);
  }
  let lost = 0;
  // An interrupted reply's error frame is made by the follower: its seq follows the last frame
  // the follower saw, so the same rule holds.
  for (let s = 1; s < r.finalSeq; s += 1) if (!seen.has(s)) lost += 1;
  // After a takeover the text is what came after the restart frame (the partial text is discarded).
  const textMismatch = r.done !== undefined && r.texts.slice(r.textFrom).join('') !== r.done.response;
  return { lost, duplicated, textMismatch };
}

/** `count` fresh sockets, `everyMs` apart, each timed from creation to 'connect' (closed at once). */
async function probeHandshakes(url: string, count: number, everyMs: number): Promise<number[]> {
  const times = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep(i * everyMs);
      const started = performance.now();
      const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: 20_000 });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return performance.now() - started;
      } catch {
        return NaN;
      } finally {
        socket.close();
      }
    }),
  );
  return times.filter((t) => Number.isFinite(t));
}

/**
 * The listening sockets' accept queues of these ports (`ss`: Recv-Q of a LISTEN socket), sampled
 * every `everyMs` for `forMs`: the largest total, and when the queues were last seen non-empty
 * (NaN without `ss`).
 */
async function sampleAcceptQueues(ports: readonly number[], forMs: number, everyMs: number): Promise<{ max: number; emptyAfterMs: number }> {
  const started = performance.now();
  let max = 0;
  let lastWaiting = 0;
  while (performance.now() - started < forMs) {
    const listed = await new Promise<string | undefined>((resolve) => execFile('ss', ['-ltnH'], (error, stdout) => resolve(error ? undefined : stdout)));
    if (listed === undefined) return { max: NaN, emptyAfterMs: NaN };
    let waiting = 0;
    for (const line of listed.split('\n')) {
      const [, recvQ, , local] = line.trim().split(/\s+/);
      if (local && ports.includes(Number(local.slice(local.lastIndexOf(':') + 1)))) waiting += Number(recvQ) || 0;
    }
    max = Math.max(max, waiting);
    if (waiting > 0) lastWaiting = performance.now() - started;
    await sleep(everyMs);
  }
  return { max, emptyAfterMs: lastWaiting };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ------------------------------------------------------------------------------------------------
// One cluster

interface Row {
  servers: number;
  chatsPerSecond: number;
  ttftP50: number;
  ttftP99: number;
  completed: number;
  failed: Record<string, number>;
  framesChecked: number;
  lost: number;
  duplicated: number;
  textMismatch: number;
  durationP50: number;
  cpu: Record<string, number>;
  windowS: number;
}

interface KillReport {
  killed: string;
  socketsDropped: number;
  reconnectP50: number;
  reconnectP99: number;
  reconnectMax: number;
  firstAttemptP50: number;
  attemptsP50: number;
  attemptsMax: number;
  handshakeP50: number;
  handshakeMax: number;
  connectErrorReasons: Record<string, number>;
  /** Handshake times (ms) of fresh probe sockets: straight to a survivor before and after the kill, and through nginx after it. */
  probes: { before: number[]; after: number[]; viaNginx: number[] };
  /** The survivors' accept queues after the kill: connections the kernel completed that the app had not accepted yet (most at once), and when the last was accepted. */
  acceptQueueMax: number;
  acceptQueueEmptyAfterMs: number;
  inFlightAtKill: number;
  resumedCompleted: number;
  takenOver: number;
  takenOverCompleted: number;
  takenOverTextMismatch: number;
  takeoverDoneAfterMs: number[];
  unacknowledged: number;
  interrupted: number;
  interruptedAfterMs: number[];
  reaskedCompleted: number;
  reaskedTotal: number;
  lost: number;
  otherFailures: Record<string, number>;
  framesLost: number;
  framesDuplicated: number;
  completedDuringAndAfter: number;
}

async function runCluster(servers: number, mockUrl: string, databaseUrl: string, redisUrl: string, kill: boolean): Promise<{ row: Row; kill?: KillReport }> {
  const schema = `bench_cluster_${randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-bench-cluster-'));
  let cluster: ClusterProcess | undefined;
  const clients: BenchClient[] = [];
  try {
    log(`${servers} server(s): starting the cluster`);
    cluster = await startCluster({
      apps: servers,
      dir,
      env: {
        DATABASE_URL: databaseUrl,
        DATABASE_SCHEMA: schema,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: `bc${randomBytes(4).toString('hex')}`,
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: mockUrl,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        SHUTDOWN_GRACE_MS: '5000',
      },
    });
    const lifted = await liftChatLimits(cluster.state.url, ADMIN.email, ADMIN.password);
    log(`chat rate limits raised for the run (all clients come from 127.0.0.1): ${JSON.stringify(lifted)}`);

    const totals: Totals = { replies: [], reconnectMs: [], firstAttemptMs: [], attempts: [], handshakeMs: [], drops: 0, connectErrors: 0, connectErrorReasons: {} };
    log(`${servers} server(s): connecting ${CLIENTS} clients`);
    for (let i = 0; i < CLIENTS; i += CONNECT_BATCH) {
      const batch = Array.from({ length: Math.min(CONNECT_BATCH, CLIENTS - i) }, (_, j) => new BenchClient(cluster!.state.url, i + j, totals));
      clients.push(...batch);
      await Promise.all(batch.map((c) => c.connected()));
    }
    log(`${servers} server(s): ${CLIENTS} clients connected; load for ${WARMUP_MS / 1000} s warm-up + ${WINDOW_S} s`);

    const appPids = cluster.state.apps.map((a) => a.pid);
    const groups: CpuGroups = {
      apps: appPids,
      nginx: [cluster.state.nginxPid, ...childrenOf(cluster.state.nginxPid)],
      mock: [mockPid],
      postgres: pidsNamed(['postgres']),
      redis: pidsNamed(['redis-server']),
    };
    // Spread over the warm-up: 1,000 clients starting together would finish together, and the
    // window would count whole waves of replies.
    clients.forEach((c) => c.start(Math.random() * WARMUP_MS));
    await sleep(WARMUP_MS);
    const windowStart = performance.now();
    const cpuBefore = cpuSnapshot(groups);
    await sleep(WINDOW_S * 1000);
    const windowEnd = performance.now();
    const cpuAfter = cpuSnapshot(groups);
    const completedInWindow = totals.replies.filter((r) => r.done && r.endedAt! >= windowStart && r.endedAt! <= windowEnd);

    let killReport: KillReport | undefined;
    if (kill && cluster.state.apps.length > 1) {
      const victim = cluster.state.apps[1];
      const dropsBefore = totals.drops;
      const repliesBefore = totals.replies.length;
      // The baseline that bounds a reconnection: a fresh socket's handshake straight to a
      // surviving app (no nginx), before the kill and during the reconnection storm after it.
      const survivor = cluster.state.apps[0];
      const probesBefore = await probeHandshakes(survivor.url, 8, 100);
      const outputAtKill = cluster.output().length;
      const killedAt = performance.now();
      log(`${servers} servers: SIGKILL to ${victim.name} (pid ${victim.pid}) under load`);
      process.kill(victim.pid, 'SIGKILL');
      log(`killed at monotonic ${process.hrtime.bigint() / 1000n} us (survivors: ${cluster.state.apps.filter((a) => a !== victim).map((a) => a.pid).join(', ')})`);
      const acceptQueue = sampleAcceptQueues(cluster.state.apps.filter((a) => a !== victim).map((a) => a.port), AFTER_KILL_MS, 200);
      const probesAfter = probeHandshakes(survivor.url, Math.floor(AFTER_KILL_MS / 500), 500);
      const probesViaNginx = probeHandshakes(cluster.state.url, Math.floor(AFTER_KILL_MS / 500), 500);
      await sleep(AFTER_KILL_MS);
      const probes = { before: probesBefore, after: await probesAfter, viaNginx: await probesViaNginx };
      const queue = await acceptQueue;
      // What nginx and the cluster script said since the kill (upstreams failed or marked down), counted.
      const said = new Map<string, number>();
      for (const line of cluster.output().slice(outputAtKill).split('\n')) {
        if (!/^\[(nginx|cluster)\]/.test(line)) continue;
        const gist = line.replace(/^\[nginx\] \S+ \S+ /, '[nginx] ').replace(/\d+#\d+: \*\d+ /, '').replace(/, client: .*/, '').replace(/\d+(\.\d+)*/g, 'N').slice(0, 160);
        said.set(gist, (said.get(gist) ?? 0) + 1);
      }
      for (const [gist, n] of [...said].sort((a, b) => b[1] - a[1]).slice(0, 12)) log(`  after the kill, ${n} x ${gist}`);
      log(`${servers} servers: winding the load down (the dead server's open replies are taken over once its heartbeat expires)`);
      await Promise.race([Promise.all(clients.map((c) => c.stop())), sleep(REPLY_TIMEOUT_MS + 15_000)]);
      const after = totals.replies.slice(repliesBefore);
      const dropped = after.filter((r) => r.dropped && !r.reasked);
      const reasked = after.filter((r) => r.reasked);
      const failures: Record<string, number> = {};
      for (const r of after) if (!r.done && !r.dropped && !r.reasked) failures[r.error?.code ?? 'none'] = (failures[r.error?.code ?? 'none'] ?? 0) + 1;
      const checks = after.map(checkFrames);
      killReport = {
        killed: victim.name,
        socketsDropped: totals.drops - dropsBefore,
        reconnectP50: percentile(totals.reconnectMs, 50),
        reconnectMax: totals.reconnectMs.length ? Math.max(...totals.reconnectMs) : NaN,
        reconnectP99: percentile(totals.reconnectMs, 99),
        firstAttemptP50: percentile(totals.firstAttemptMs, 50),
        attemptsP50: percentile(totals.attempts, 50),
        attemptsMax: totals.attempts.length ? Math.max(...totals.attempts) : NaN,
        handshakeP50: percentile(totals.handshakeMs, 50),
        handshakeMax: totals.handshakeMs.length ? Math.max(...totals.handshakeMs) : NaN,
        connectErrorReasons: totals.connectErrorReasons,
        probes,
        acceptQueueMax: queue.max,
        acceptQueueEmptyAfterMs: queue.emptyAfterMs,
        inFlightAtKill: dropped.length,
        resumedCompleted: dropped.filter((r) => r.done && r.restarts === 0).length,
        takenOver: dropped.filter((r) => r.restarts > 0).length,
        takenOverCompleted: dropped.filter((r) => r.restarts > 0 && r.done).length,
        takenOverTextMismatch: dropped.filter((r) => r.restarts > 0 && checkFrames(r).textMismatch).length,
        takeoverDoneAfterMs: dropped.filter((r) => r.restarts > 0 && r.done).map((r) => r.endedAt! - killedAt),
        interrupted: dropped.filter((r) => r.error?.code === 'reply_interrupted').length,
        interruptedAfterMs: dropped.filter((r) => r.error?.code === 'reply_interrupted').map((r) => r.endedAt! - killedAt),
        reaskedCompleted: reasked.filter((r) => r.done).length,
        reaskedTotal: reasked.length,
        // Never acknowledged before the drop: the client has no reply id to resume (asked again below).
        unacknowledged: dropped.filter((r) => r.error?.code === 'unacknowledged').length,
        // Lost: a reply the client could resume that did not end complete (interrupted, no final frame, or resume refused).
        lost: dropped.filter((r) => !r.done && r.error?.code !== 'unacknowledged').length,
        otherFailures: failures,
        framesLost: checks.reduce((s, c) => s + c.lost, 0),
        framesDuplicated: checks.reduce((s, c) => s + c.duplicated, 0),
        completedDuringAndAfter: after.filter((r) => r.done).length,
      };
      for (const r of dropped.filter((x) => !x.done && x.error?.code !== 'unacknowledged').slice(0, 5)) log(`  lost: ${r.requestId} ${r.replyId ?? '(no ack)'} ${r.error?.code}`);
    } else {
      await Promise.race([Promise.all(clients.map((c) => c.stop())), sleep(REPLY_TIMEOUT_MS + 5000)]);
    }

    // Replies asked in the window, however long they took (they ended by the time the load stopped).
    const inWindow = totals.replies.filter((r) => r.askedAt >= windowStart && r.askedAt <= windowEnd && !r.dropped && !r.reasked);
    const failed: Record<string, number> = {};
    for (const r of inWindow) if (!r.done) failed[r.error?.code ?? 'none'] = (failed[r.error?.code ?? 'none'] ?? 0) + 1;
    const checks = inWindow.map(checkFrames);
    const windowS = (windowEnd - windowStart) / 1000;
    const cpu: Record<string, number> = {};
    for (const k of Object.keys(cpuAfter)) cpu[k] = cpuAfter[k] - (cpuBefore[k] ?? 0);
    const row: Row = {
      servers,
      chatsPerSecond: completedInWindow.length / windowS,
      ttftP50: percentile(inWindow.filter((r) => r.done && r.ttftMs !== undefined).map((r) => r.ttftMs!), 50),
      ttftP99: percentile(inWindow.filter((r) => r.done && r.ttftMs !== undefined).map((r) => r.ttftMs!), 99),
      completed: completedInWindow.length,
      durationP50: percentile(inWindow.filter((r) => r.done).map((r) => r.endedAt! - r.askedAt), 50),
      failed,
      framesChecked: inWindow.reduce((s, r) => s + (r.finalSeq ?? 0), 0),
      lost: checks.reduce((s, c) => s + c.lost, 0),
      duplicated: checks.reduce((s, c) => s + c.duplicated, 0),
      textMismatch: checks.filter((c) => c.textMismatch).length,
      cpu,
      windowS,
    };
    return { row, kill: killReport };
  } finally {
    clients.forEach((c) => c.close());
    if (cluster) {
      log(`${servers} server(s): stopping the cluster`);
      const code = await Promise.race([cluster.stop('SIGTERM'), sleep(40_000).then(() => 'timeout' as const)]);
      if (code === 'timeout') {
        await cluster.stop('SIGKILL');
        for (const pid of cluster.state.apps.map((a) => a.pid)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
        // nginx with its workers (a SIGKILL of its master alone would leave them serving the port).
        await stopLeftoverNginx(path.join(dir, 'nginx'));
      }
    }
    await dropPostgresSchema(databaseUrl, schema).catch((e: Error) => log(`could not drop schema ${schema}: ${e.message}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const pad = (s: string, n: number): string => s.padEnd(n);

function report(rows: Row[], kill: KillReport | undefined): void {
  const cores = os.cpus().length;
  const out: string[] = [];
  out.push('');
  out.push(`Cluster benchmark: ${CLIENTS} Socket.IO clients through nginx, each asking back to back; the mock streams ${TOKENS} deltas ${DELAY_MS} ms apart; ${WINDOW_S} s measured after ${WARMUP_MS / 1000} s of warm-up; ${cores} cores, ${os.totalmem() > 0 ? `${Math.round(os.totalmem() / 2 ** 30)} GB` : ''}`);
  const head = ['', ...rows.map((r) => `${r.servers} server${r.servers > 1 ? 's' : ''}`)];
  const base = rows[0];
  const showRatio = rows.length > 1;
  if (showRatio) head.push(`ratio ${rows[rows.length - 1].servers}/${base.servers}`);
  const line = (label: string, values: string[], ratio?: string) => out.push([pad(label, 38), ...values.map((v) => pad(v, 14)), ratio ?? ''].join(''));
  line('', head.slice(1, 1 + rows.length), showRatio ? head[head.length - 1] : undefined);
  const last = rows[rows.length - 1];
  line('chats per second', rows.map((r) => fmt(r.chatsPerSecond, 1)), showRatio ? `${fmt(last.chatsPerSecond / base.chatsPerSecond, 2)}x` : undefined);
  line('time to first token p50 (ms)', rows.map((r) => fmt(r.ttftP50)), showRatio ? `${fmt(last.ttftP50 / base.ttftP50, 2)}x` : undefined);
  line('time to first token p99 (ms)', rows.map((r) => fmt(r.ttftP99)), showRatio ? `${fmt(last.ttftP99 / base.ttftP99, 2)}x` : undefined);
  line('chats completed in the window', rows.map((r) => String(r.completed)));
  line('reply duration p50 (ms)', rows.map((r) => fmt(r.durationP50)));
  line('chats failed', rows.map((r) => (Object.keys(r.failed).length ? Object.entries(r.failed).map(([k, v]) => `${k} ${v}`).join(', ') : '0')));
  line('frames checked (by seq)', rows.map((r) => String(r.framesChecked)));
  line('frames lost / duplicated (goal 0)', rows.map((r) => `${r.lost} / ${r.duplicated}`));
  line('replies whose text differs', rows.map((r) => String(r.textMismatch)));
  for (const group of ['apps', 'nginx', 'mock', 'clients', 'postgres', 'redis']) {
    line(`CPU ${group} (% of ${cores} cores)`, rows.map((r) => `${fmt((100 * (r.cpu[group] ?? 0)) / (r.windowS * cores))} %`));
  }
  line('CPU of the above (% of the machine)', rows.map((r) => `${fmt((100 * Object.entries(r.cpu).filter(([k]) => k !== 'machine').reduce((s, [, v]) => s + v, 0)) / (r.windowS * cores))} %`));
  line('machine busy, every process (%)', rows.map((r) => `${fmt((100 * r.cpu.machine) / (r.windowS * cores))} %`));
  // The benchmark's processes (the cluster's kernel work is not in them) against the whole machine: a
  // gap of more than 15 points means other work shared the cores, and the figures are unreliable.
  const ownShare = (r: Row) => Object.entries(r.cpu).filter(([k]) => k !== 'machine').reduce((s, [, v]) => s + v, 0) / (r.windowS * cores);
  if (rows.some((r) => r.cpu.machine / (r.windowS * cores) - ownShare(r) > 0.15)) {
    out.push('(machine busy well above the benchmark\'s own share: other work ran on the machine meanwhile, and the figures are unreliable)');
  }
  if (kill) {
    out.push('');
    out.push(`One server killed mid-load (SIGKILL to ${kill.killed} of 3, the load going on ${AFTER_KILL_MS / 1000} s more):`);
    out.push(`  sockets dropped: ${kill.socketsDropped} (of ${CLIENTS}); reconnected through nginx after p50 ${fmt(kill.reconnectP50)} ms, p99 ${fmt(kill.reconnectP99)} ms, max ${fmt(kill.reconnectMax)} ms`);
    out.push(`  where that time went: first attempt p50 ${fmt(kill.firstAttemptP50)} ms after the drop (the client's delay); attempts p50 ${fmt(kill.attemptsP50)}, max ${fmt(kill.attemptsMax)}; ` +
      `the successful attempt's handshake p50 ${fmt(kill.handshakeP50)} ms, max ${fmt(kill.handshakeMax)} ms; failed attempts: ${Object.keys(kill.connectErrorReasons).length ? JSON.stringify(kill.connectErrorReasons) : 'none'}`);
    const probe = (values: number[]) => `p50 ${fmt(percentile(values, 50))} ms, max ${fmt(values.length ? Math.max(...values) : NaN)} ms`;
    out.push(`  the survivors' accept queues (connections the kernel completed, waiting for the app to accept them; ACCEPT_HANDLES=${process.env.ACCEPT_HANDLES ?? 'default'}): ` +
      `at most ${fmt(kill.acceptQueueMax)} waiting at once, the last seen waiting ${fmt(kill.acceptQueueEmptyAfterMs)} ms after the kill`);
    out.push(`  a fresh socket's handshake, straight to a surviving app: before the kill ${probe(kill.probes.before)}; in the ${AFTER_KILL_MS / 1000} s after it ${probe(kill.probes.after)}; through nginx after it ${probe(kill.probes.viaNginx)}`);
    out.push(`  replies open on the dropped sockets: ${kill.inFlightAtKill}; resumed on another server and completed as written: ${kill.resumedCompleted}`);
    out.push(`  taken over (chat:restart, asked again by another server): ${kill.takenOver}; completed: ${kill.takenOverCompleted}` +
      (kill.takeoverDoneAfterMs.length ? ` (chat:done ${fmt(percentile(kill.takeoverDoneAfterMs, 50) / 1000, 1)} s p50, ${fmt(Math.max(...kill.takeoverDoneAfterMs) / 1000, 1)} s max after the kill)` : '') +
      `; text after the restart differing from chat:done: ${kill.takenOverTextMismatch}`);
    out.push(`  ended reply_interrupted: ${kill.interrupted}` +
      (kill.interruptedAfterMs.length ? ` (${fmt(Math.min(...kill.interruptedAfterMs) / 1000, 1)}-${fmt(Math.max(...kill.interruptedAfterMs) / 1000, 1)} s after the kill)` : '') +
      `; lost (a reply with an id that did not end complete: interrupted, no final frame, or resume refused; goal 0): ${kill.lost}`);
    out.push(`  chat:send not acknowledged before the drop (the client has no reply id to resume; asked again): ${kill.unacknowledged}`);
    out.push(`  asked again after the interruption: ${kill.reaskedTotal}, answered: ${kill.reaskedCompleted}`);
    out.push(`  replies completed from the kill to the end: ${kill.completedDuringAndAfter}; frames lost / duplicated in them: ${kill.framesLost} / ${kill.framesDuplicated}; other failures: ${Object.keys(kill.otherFailures).length ? JSON.stringify(kill.otherFailures) : 'none'}`);
  }
  out.push('');
  process.stdout.write(`${out.join('\n')}\n`);
}

// ------------------------------------------------------------------------------------------------

let mockPid = 0;

async function main(): Promise<void> {
  if (!findNginx(process.env)) {
    console.error(`bench/cluster: nginx was not found. ${NGINX_MISSING}`);
    process.exit(1);
  }
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const mock = new MockChild();
  mockPid = mock.proc.pid!;
  const deadline = setTimeout(() => {
    console.error(`bench/cluster: not finished within ${DEADLINE_MS / 1000} s: stopping`);
    mock.kill();
    process.exit(1);
  }, DEADLINE_MS);
  try {
    const { openaiBaseUrl } = await mock.call<{ openaiBaseUrl: string }>('start', { tokens: TOKENS, delayMs: DELAY_MS });
    const rows: Row[] = [];
    let killReport: KillReport | undefined;
    for (const servers of SERVER_COUNTS) {
      const isLast = servers === SERVER_COUNTS[SERVER_COUNTS.length - 1];
      const result = await runCluster(servers, openaiBaseUrl, databaseUrl, redisUrl, KILL && isLast && servers > 1);
      rows.push(result.row);
      killReport = result.kill ?? killReport;
    }
    report(rows, killReport);
  } finally {
    clearTimeout(deadline);
    mock.kill();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
