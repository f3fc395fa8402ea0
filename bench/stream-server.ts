/**
 * Child processes of the streaming benchmark (bench/stream.ts). Each runs one server so that its
 * CPU time (process.cpuUsage(), all threads of the process: JS, GC, libuv pool, sqlite3) is
 * measured without the clients, the mock LLM or the other server:
 *
 *   mock   the mock LLM server (test/support/mock-llm-server.ts), 64 deltas 20 ms apart
 *   app    the real app (test/support/test-app.ts startTestApp) pointed at the mock with an OpenAI key
 *   relay  a bare `ws` server: per client message, one streaming SDK call to the mock, and each
 *          delta sent as one ws message
 *
 * The parent drives them over the IPC channel: `{id, cmd, args}` -> `{id, result}` / `{id, error}`.
 *
 * The app child adds bench-only instrumentation at run time without touching src/: it wraps
 * FrameCoalescer.prototype.push (time from the first delta pushed to the first frame emitted, and a
 * toggle that sets the coalescing interval to 0 so every delta is its own frame, and the time
 * between two frames of one stream: how many came sooner than one interval) and
 * KnowledgeService.prototype.retrieve (time spent in retrieval).
 */
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

type Handler = (args: any) => unknown;
const handlers: Record<string, Handler> = {
  cpu: () => ({ ...process.cpuUsage(), at: performance.now() }),
  /** Heap after two full collections (children run with --expose-gc), and the process' RSS. */
  heap: () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const m = process.memoryUsage();
    return { heapUsed: m.heapUsed, rss: m.rss, external: m.external, gc: gc !== undefined };
  },
  exit: () => {
    setTimeout(() => process.exit(0), 10);
    return true;
  },
};

process.on('message', (message: { id: number; cmd: string; args?: unknown }) => {
  void (async () => {
    try {
      const handler = handlers[message.cmd];
      if (!handler) throw new Error(`unknown command ${message.cmd}`);
      const result = await handler(message.args);
      process.send?.({ id: message.id, result: result ?? null });
    } catch (error) {
      process.send?.({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  })();
});
// The parent went away (finished or crashed): never outlive it.
process.on('disconnect', () => process.exit(0));

const role = process.argv[2];

// ------------------------------------------------------------------------------------------------
// mock

if (role === 'mock') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startMockLlmServer } = require('../test/support/mock-llm-server') as typeof import('../test/support/mock-llm-server');
  let mock: Awaited<ReturnType<typeof startMockLlmServer>> | undefined;
  handlers.start = async (args: { tokens: number; delayMs: number }) => {
    mock = await startMockLlmServer({ tokens: args.tokens, delayMs: args.delayMs });
    return { openaiBaseUrl: mock.openaiBaseUrl };
  };
  handlers.configure = (partial: Record<string, unknown>) => {
    mock!.configure(partial);
    return true;
  };
  /** Requests and reply pieces written since the last call; forgets the records. */
  handlers.stats = () => {
    const records = mock!.requests.splice(0, mock!.requests.length);
    return {
      requests: records.length,
      tokensSent: records.reduce((sum, r) => sum + r.tokensSent, 0),
      statuses: records.reduce<Record<string, number>>((acc, r) => {
        const key = String(r.status ?? 'none');
        acc[key] = (acc[key] ?? 0) + 1;
        return acc;
      }, {}),
    };
  };
  /** The body of the newest chat request whose last user message contains `text`. */
  handlers.bodyFor = (text: string) => {
    const record = [...mock!.requests].reverse().find((r) => {
      const last = [...(r.messages ?? [])].reverse().find((m) => m.role === 'user');
      return typeof last?.content === 'string' && last.content.includes(text);
    });
    return record?.body ?? null;
  };
}

// ------------------------------------------------------------------------------------------------
// app

if (role === 'app') {
  // Loaded before the app so that the patched prototypes are the ones its services use.
  const { FrameCoalescer } = require('../src/chat/frame-coalescer') as typeof import('../src/chat/frame-coalescer');
  const { KnowledgeService } = require('../src/knowledge/knowledge.service') as typeof import('../src/knowledge/knowledge.service');
  const { ConversationsService } = require('../src/conversations/conversations.service') as typeof import('../src/conversations/conversations.service');
  const { ChatGateway } = require('../src/chat/chat.gateway') as typeof import('../src/chat/chat.gateway');
  const { ChatService } = require('../src/chat/chat.service') as typeof import('../src/chat/chat.service');
  const { ReplyStreamService } = require('../src/conversations/reply-streams') as typeof import('../src/conversations/reply-streams');
  const { ConversationWriter } = require('../src/conversations/conversation-writer') as typeof import('../src/conversations/conversation-writer');
  const { startTestApp } = require('../test/support/test-app') as typeof import('../test/support/test-app');
  const { HistoryMirror } = require('../src/conversations/history-mirror') as typeof import('../src/conversations/history-mirror');
  const { PostingsSearchIndex } = require('../src/knowledge/postings-search-index') as typeof import('../src/knowledge/postings-search-index');

  const state = {
    coalesce: true,
    /** Off: the history and the search's versions are read with statements, as another server would (for the on/off comparison). */
    memoryReads: true,
    /** Off: the conversation writes (a turn's start and end) are skipped, for the on/off comparison. */
    conversationWrites: true,
    /** ms from the first delta pushed into a coalescer to its first frame, per stream. */
    firstFrameDelays: [] as number[],
    /** Streams whose coalescer could not be instrumented (internals changed). */
    uninstrumented: 0,
    retrieveMs: [] as number[],
    /** Frames emitted by coalescers, and those sent sooner than one interval after the stream's previous frame. */
    frames: 0,
    early: 0,
    /** The shortest time between two frames of one stream (ms). */
    minGapMs: Infinity,
    /** Conversation write transactions, and those begun while replies waited for their first frame (with how many waited). */
    writeBatches: 0,
    writesAmongFirstFrames: 0,
    waitingAtWrites: 0,
  };

  type CoalescerInternals = { emit?: unknown; intervalMs?: unknown; __bench?: boolean; push(text: string): void };
  const proto = FrameCoalescer.prototype as unknown as CoalescerInternals;
  const originalPush = proto.push;
  proto.push = function (this: CoalescerInternals, text: string) {
    if (!this.__bench && text.length > 0) {
      this.__bench = true;
      if (!state.coalesce && typeof this.intervalMs === 'number') this.intervalMs = 0;
      const emit = this.emit;
      if (typeof emit === 'function') {
        const firstPushAt = performance.now();
        const interval = typeof this.intervalMs === 'number' ? this.intervalMs : 0;
        let first = true;
        let lastAt = 0;
        this.emit = (frame: string) => {
          const now = performance.now();
          if (first) {
            first = false;
            state.firstFrameDelays.push(now - firstPushAt);
          } else if (interval > 0) {
            const gap = now - lastAt;
            state.minGapMs = Math.min(state.minGapMs, gap);
            // Timers fire on the millisecond: allow a rounding of a tenth of one.
            if (gap < interval - 0.1) state.early++;
          }
          if (interval > 0) state.frames++;
          lastAt = now;
          (emit as (t: string) => void)(frame);
        };
      } else {
        state.uninstrumented++;
      }
    }
    return originalPush.call(this, text);
  };

  // Bench-only toggle: with memory reads off, openTurn reads the history from the database and a
  // warm search checks the index's versions with a statement (the app before they were kept in memory).
  const mirrorGet = HistoryMirror.prototype.get;
  HistoryMirror.prototype.get = function (this: InstanceType<typeof HistoryMirror>, scope: string) {
    return state.memoryReads ? mirrorGet.call(this, scope) : undefined;
  };
  const indexProto = PostingsSearchIndex.prototype as unknown as { fresh(): boolean };
  const fresh = indexProto.fresh;
  indexProto.fresh = function (this: unknown) {
    return state.memoryReads && fresh.call(this);
  };

  // Bench-only toggle: with conversation writes off, a turn's start and end are not queued at all
  // (the rest of the pipeline, the history read included, runs as usual).
  const conversations = ConversationsService.prototype;
  const originalSaveStart = conversations.saveStart;
  const originalSaveEnd = conversations.saveEnd;
  conversations.saveStart = function (this: InstanceType<typeof ConversationsService>, ...args: Parameters<typeof originalSaveStart>) {
    if (state.conversationWrites) originalSaveStart.apply(this, args);
  };
  conversations.saveEnd = function (this: InstanceType<typeof ConversationsService>, ...args: Parameters<typeof originalSaveEnd>) {
    if (state.conversationWrites) return originalSaveEnd.apply(this, args);
    // The turn is forgotten as a written one would be (else the turns map grows with every
    // skipped write and slows the next phases' openTurn, with writes on or off).
    (this as unknown as { forgetTurn(turn: unknown): void }).forgetTurn(args[0]);
    return Promise.resolve();
  };

  const originalRetrieve = KnowledgeService.prototype.retrieve;
  KnowledgeService.prototype.retrieve = async function (this: InstanceType<typeof KnowledgeService>, ...args: Parameters<typeof originalRetrieve>) {
    const started = performance.now();
    try {
      return await originalRetrieve.apply(this, args);
    } finally {
      state.retrieveMs.push(performance.now() - started);
    }
  };

  // Where a reply's time to first frame goes inside the app, per stream (ms): chat:send received ->
  // its ack (validation, limits), -> the pipeline starts, -> the conversation, agent and knowledge
  // are read (the reply step starts), -> the first frame is written to the reply's stream.
  type Trace = { received: number; acked?: number; executing?: number; replying?: number; firstFrame?: number };
  const traces = new Map<string, Trace>();
  const byReply = new Map<string, Trace>();
  const phases = { ack: [] as number[], toPipeline: [] as number[], reads: [] as number[], toFirstFrame: [] as number[], total: [] as number[] };
  const gateway = ChatGateway.prototype as unknown as { onSend(socket: unknown, payload: { requestId?: string }): Promise<unknown> };
  const originalOnSend = gateway.onSend;
  const tracedOnSend = async function (this: unknown, socket: unknown, payload: { requestId?: string }) {
    const trace: Trace = { received: performance.now() };
    if (typeof payload?.requestId === 'string') traces.set(payload.requestId, trace);
    try {
      return await originalOnSend.call(this, socket, payload);
    } finally {
      trace.acked = performance.now();
    }
  };
  // Nest finds the handler by the metadata on the method (@SubscribeMessage): the wrapper carries it too.
  const reflect = Reflect as unknown as { getMetadataKeys(t: object): unknown[]; getMetadata(k: unknown, t: object): unknown; defineMetadata(k: unknown, v: unknown, t: object): void };
  for (const key of reflect.getMetadataKeys(originalOnSend)) reflect.defineMetadata(key, reflect.getMetadata(key, originalOnSend), tracedOnSend);
  gateway.onSend = tracedOnSend;
  type Exec = (run: { options: { requestId: string }; producer: { replyId: string } }) => Promise<unknown>;
  type Reply = (job: { producer: { replyId: string } }) => Promise<unknown>;
  const chatProto = ChatService.prototype as unknown as { execute: Exec; reply: Reply };
  const originalExecute = chatProto.execute;
  chatProto.execute = function (this: unknown, run) {
    const trace = traces.get(run.options.requestId);
    traces.delete(run.options.requestId);
    if (trace) {
      trace.executing = performance.now();
      byReply.set(run.producer.replyId, trace);
    }
    return originalExecute.call(this, run);
  };
  const originalReply = chatProto.reply;
  chatProto.reply = function (this: unknown, job) {
    const trace = byReply.get(job.producer.replyId);
    if (trace && trace.replying === undefined) trace.replying = performance.now();
    return originalReply.call(this, job);
  };
  type Producer = { replyId: string; delta(text: string): number };
  const streamsProto = ReplyStreamService.prototype as unknown as { begin(...args: unknown[]): Producer };
  const originalBegin = streamsProto.begin;
  streamsProto.begin = function (this: unknown, ...args: unknown[]) {
    const producer = originalBegin.apply(this, args);
    const delta = producer.delta.bind(producer);
    let first = true;
    producer.delta = (text: string) => {
      if (first) {
        first = false;
        const t = byReply.get(producer.replyId);
        byReply.delete(producer.replyId);
        if (t && t.executing !== undefined && t.replying !== undefined) {
          t.firstFrame = performance.now();
          phases.ack.push((t.acked ?? t.firstFrame) - t.received);
          phases.toPipeline.push(t.executing - t.received);
          phases.reads.push(t.replying - t.executing);
          phases.toFirstFrame.push(t.firstFrame - t.replying);
          phases.total.push(t.firstFrame - t.received);
        }
      }
      return delta(text);
    };
    return producer;
  };

  // Conversation write transactions begun while replies were still waiting for their first frame
  // (received by the gateway, no frame yet): the writes that compete with first tokens.
  const writerProto = ConversationWriter.prototype as unknown as { write(batch: unknown[]): Promise<void> };
  const originalWrite = writerProto.write;
  writerProto.write = function (this: unknown, batch: unknown[]) {
    if (batch.length > 0) {
      const waiting = traces.size + byReply.size;
      state.writeBatches++;
      if (waiting > 0) {
        state.writesAmongFirstFrames++;
        state.waitingAtWrites += waiting;
      }
    }
    return originalWrite.call(this, batch);
  };

  // GC pauses of the app process (printed per phase with BENCH_DEBUG=1: kind 1 scavenge, 4 mark-compact, 8 incremental marking).
  const gcPauses: { kind: number; ms: number }[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push({ kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0, ms: e.duration });
  }).observe({ entryTypes: ['gc'] });
  // Event-loop delay of the app process (10 ms resolution), reset with every `samples` call.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();

  let app: Awaited<ReturnType<typeof startTestApp>> | undefined;
  handlers.start = async (args: { openaiBaseUrl: string }) => {
    app = await startTestApp({
      openaiApiKey: 'sk-bench',
      openaiBaseUrl: args.openaiBaseUrl,
      logLevel: 'error',
      // The production default (test-app uses 20 ms to keep tests fast).
      usageFlushMs: 250,
    });
    const provider = await app.dataSource.query('SELECT 1 AS ok');
    return { url: app.url, database: app.dataSource.options.type, ok: provider.length === 1 };
  };
  handlers.coalesce = (on: boolean) => {
    state.coalesce = on;
    return true;
  };
  handlers.memoryReads = (on: boolean) => {
    state.memoryReads = on;
    return true;
  };
  handlers.conversationWrites = (on: boolean) => {
    state.conversationWrites = on;
    return true;
  };
  handlers.conversationMessages = async () => {
    const rows: { n: number }[] = await app!.dataSource.query('SELECT COUNT(*) AS n FROM conversation_messages');
    return Number(rows[0]?.n ?? 0);
  };
  /** Instrumentation samples since the last call; forgets them. */
  handlers.samples = () => {
    if (process.env.BENCH_DEBUG === '1') {
      const longest = [...gcPauses].sort((x, y) => y.ms - x.ms).slice(0, 3);
      process.stderr.write(
        `[bench]     app process: GC ${gcPauses.length} pauses, ${gcPauses.reduce((a, g) => a + g.ms, 0).toFixed(0)} ms in all, longest ${longest.map((g) => `${g.ms.toFixed(1)} (kind ${g.kind})`).join(', ') || '-'}; ` +
          `event-loop delay max ${loopDelay.count > 0 ? Math.max(0, loopDelay.max / 1e6 - 10).toFixed(1) : 'n/a'} ms; heap ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB\n`,
      );
    }
    gcPauses.length = 0;
    const out = {
      firstFrameDelays: state.firstFrameDelays,
      retrieveMs: state.retrieveMs,
      uninstrumented: state.uninstrumented,
      // The monitor records whole timer intervals: subtract its 10 ms resolution to get the delay.
      loopDelayP50Ms: loopDelay.count > 0 ? Math.max(0, loopDelay.percentile(50) / 1e6 - 10) : NaN,
      loopDelayP99Ms: loopDelay.count > 0 ? Math.max(0, loopDelay.percentile(99) / 1e6 - 10) : NaN,
      coalescedFrames: state.frames,
      earlyFrames: state.early,
      minFrameGapMs: Number.isFinite(state.minGapMs) ? state.minGapMs : NaN,
      phases: { ...phases },
      writeBatches: state.writeBatches,
      writesAmongFirstFrames: state.writesAmongFirstFrames,
      waitingAtWrites: state.waitingAtWrites,
    };
    state.writeBatches = 0;
    state.writesAmongFirstFrames = 0;
    state.waitingAtWrites = 0;
    for (const key of Object.keys(phases) as (keyof typeof phases)[]) phases[key] = [];
    traces.clear();
    byReply.clear();
    state.frames = 0;
    state.early = 0;
    state.minGapMs = Infinity;
    loopDelay.reset();
    state.firstFrameDelays = [];
    state.retrieveMs = [];
    state.uninstrumented = 0;
    return out;
  };
  handlers.usageEvents = async () => {
    const rows: { status: string; n: number }[] = await app!.dataSource.query('SELECT status, COUNT(*) AS n FROM usage_events GROUP BY status');
    return rows.map((r) => ({ status: r.status, n: Number(r.n) }));
  };
  handlers.close = async () => {
    await app?.close();
    return true;
  };

  // Optional CPU profile of the app process (BENCH_PROFILE=1 in the parent).
  let session: Session | undefined;
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session!.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
  handlers.profileStart = async () => {
    session = new Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
    return true;
  };
  handlers.profileStop = async () => {
    const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
    session!.disconnect();
    session = undefined;
    const file = path.join(os.tmpdir(), `bench-stream-app-${Date.now()}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    return { file, ...summariseProfile(profile) };
  };
}

// ------------------------------------------------------------------------------------------------
// relay

if (role === 'relay') {
  const { WebSocketServer } = require('ws') as typeof import('ws');
  const OpenAI = (require('openai') as typeof import('openai')).default;
  let wss: InstanceType<typeof WebSocketServer> | undefined;
  handlers.start = async (args: { openaiBaseUrl: string }) => {
    const client = new OpenAI({ apiKey: 'sk-bench', baseURL: args.openaiBaseUrl, maxRetries: 0, logLevel: 'off' });
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss!.once('listening', () => resolve()));
    wss.on('connection', (ws) => {
      ws.on('message', (raw) => {
        const { id, query } = JSON.parse(String(raw)) as { id: string; query: string };
        void (async () => {
          try {
            const stream = await client.chat.completions.create({
              model: 'gpt-4o-mini',
              stream: true,
              stream_options: { include_usage: true },
              messages: [
                { role: 'system', content: 'You are a helpful support assistant.' },
                { role: 'user', content: query },
              ],
            });
            for await (const chunk of stream) {
              const text = chunk.choices?.[0]?.delta?.content;
              if (text) ws.send(JSON.stringify({ id, text }));
            }
            ws.send(JSON.stringify({ id, done: true }));
          } catch (error) {
            ws.send(JSON.stringify({ id, error: String(error) }));
          }
        })();
      });
    });
    const { port } = wss.address() as { port: number };
    return { url: `ws://127.0.0.1:${port}` };
  };
  handlers.close = async () => {
    await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
    return true;
  };
}

// ------------------------------------------------------------------------------------------------
// CPU profile summary

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Self time by function and by area (src file, or npm package, or node internals). */
function summariseProfile(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // Leave out the profiler's own start-up (the inspector call that started it) and its subtree.
  const excluded = new Set<number>();
  const exclude = (id: number): void => {
    excluded.add(id);
    for (const child of byId.get(id)?.children ?? []) exclude(child);
  };
  for (const n of profile.nodes) if (n.callFrame.url === 'node:inspector' && !excluded.has(n.id)) exclude(n.id);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    if (!excluded.has(id)) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const root = process.cwd();
  const area = (url: string): string => {
    if (!url) return '(native / VM)';
    const file = url.replace(/^file:\/\//, '');
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    if (pkg) return `npm:${pkg[1]}`;
    if (file.startsWith('node:internal/deps/undici')) return 'node: undici (fetch)';
    if (file.startsWith('node:internal/webstreams')) return 'node: web streams';
    if (file.startsWith('node:')) return 'node: other internals';
    if (file.startsWith(root)) return path.relative(root, file);
    return file;
  };
  const fnTotals = new Map<string, number>();
  const areaTotals = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName || '(anonymous)';
    const where = area(node.callFrame.url);
    const isIdle = name === '(idle)' || name === '(program)';
    if (name === '(idle)') continue;
    total += us;
    const fnKey = isIdle || where === '(native / VM)' ? name : `${name} (${where}:${node.callFrame.lineNumber + 1})`;
    fnTotals.set(fnKey, (fnTotals.get(fnKey) ?? 0) + us);
    const areaKey = name === '(garbage collector)' ? '(garbage collector)' : name === '(program)' ? '(program)' : where;
    areaTotals.set(areaKey, (areaTotals.get(areaKey) ?? 0) + us);
  }
  // Inclusive time of the app's own (src/) functions, each counted once per call path.
  const inclusive = new Map<string, number>();
  const walk = (id: number, active: Set<string>): number => {
    const node = byId.get(id);
    if (!node) return 0;
    let us = node.callFrame.functionName === '(idle)' ? 0 : (selfUs.get(id) ?? 0);
    const where = area(node.callFrame.url);
    const key = where.startsWith('src/') || where.startsWith('test/') ? `${node.callFrame.functionName || '(anonymous)'} (${where}:${node.callFrame.lineNumber + 1})` : undefined;
    const entered = key !== undefined && !active.has(key);
    if (entered) active.add(key!);
    for (const child of node.children ?? []) us += walk(child, active);
    if (entered) {
      active.delete(key!);
      inclusive.set(key!, (inclusive.get(key!) ?? 0) + us);
    }
    return us;
  };
  const rootNode = profile.nodes[0];
  if (rootNode) walk(rootNode.id, new Set());
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total > 0 ? us / total : 0 }));
  return { busyMs: total / 1000, topFunctions: top(fnTotals, 20), topAreas: top(areaTotals, 15), topSrcInclusive: top(inclusive, 15) };
}

if (!['mock', 'app', 'relay'].includes(role ?? '')) {
  console.error(`stream-server: unknown role ${role}`);
  process.exit(2);
}
