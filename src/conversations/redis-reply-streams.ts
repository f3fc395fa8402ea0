/**
 * The Redis side of the reply streams (REDIS_URL): one Redis Stream per reply,
 * `<prefix>:reply:<replyId>`, so a visitor can resume a reply on any server.
 *
 * - Entry ids are explicit: `0-1` is the start entry (owner's visitor key, the id of the server
 *   running it), frame `seq` is `0-<seq + 1>`. A resumer reads the whole stream
 *   (XRANGE: owner check and backlog), then waits for the rest with XREAD BLOCK from the last id
 *   it read, so nothing between the two reads is lost.
 * - One blocking connection per server serves every remote follower (XREAD over all their
 *   streams); adding one wakes it with CLIENT UNBLOCK.
 * - The key expires `endedTtlMs` after the final frame (and, as a safety net, `runningTtlMs`
 *   after the start).
 * - Takeover: every server keeps a heartbeat key (SET PX 4 s, renewed every second), is listed in
 *   `<prefix>:replies:servers` and lists its running replies in `<prefix>:replies:running:<server>`.
 *   The start entry also holds the turn (`q`: what ChatService needs to ask it again). When a
 *   reply's server is gone, exactly one other server claims it (SET NX on
 *   `<prefix>:reply:<id>:claim:<attempt>`) and continues its stream: a `restart` frame (`s` its
 *   id, `n` the attempt), then the reply asked again. Claims come first from servers with a
 *   follower of the reply (a silent follow checks its producer's heartbeat every 1.5 s), then from
 *   any server's sweep of the dead server's list. After two takeovers the next claimer ends the
 *   reply with `reply_interrupted`, as does a follower whose stream is gone.
 * - Commands are never buffered while Redis is away: the reply goes on for the visitor connected
 *   to this server, only its mirror stops (and is removed, so nobody resumes a stream with a hole
 *   in it; the stored message is read instead).
 * - Cancels and "this visitor deleted their conversations" reach the server running a reply over
 *   pub/sub (`<prefix>:replies:control`).
 */
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { closeRedis } from '../common/redis-close';
import type { ReplyData } from '../shared/contracts/chat';
import { isFinal, type FollowResult, type FrameListener, type ReplyFrame, type ReplyOwner, type ReplySnapshot, type TakeoverStarter } from './reply-frames';
import { isRedisConnectionError, RedisOutageLog } from '../common/redis-outage-log';

/** XREAD blocks at most this long per round (followers added meanwhile wake it at once). */
const BLOCK_MS = 1000;
/** A followed reply silent this long gets its producer's heartbeat checked (and again at this interval). */
const PRODUCER_CHECK_MS = 1500;
/** A followed reply silent this long gets its stream's existence checked. */
const IDLE_CHECK_MS = 10_000;
const HEARTBEAT_EVERY_MS = 1000;
/** A server that has not beaten for this long is gone: its replies are taken over. */
export const HEARTBEAT_TTL_MS = 4000;
/** Every server looks for replies of gone servers this often... */
const SWEEP_EVERY_MS = 2000;
/** ...and claims them once the server has been seen gone this long (followers' servers claim first). */
const SWEEP_GRACE_MS = 2000;
/** A claim not followed by its restart frame (the claimer stopped too) can be made again after this. */
const CLAIM_TTL_MS = 15_000;
/**
 * After this server (re)gains Redis it takes nothing over for this long: during an outage no
 * server could beat, and the others need a moment to reconnect and beat again.
 */
const RECONNECT_QUIET_MS = 5000;
/**
 * Takeovers one server opens at once: from the claim to the reply's first frame after the restart
 * (the part that reads the conversation and the knowledge and calls the provider). A server that
 * outlives another inherits all its running replies at the same moment (a few hundred under
 * load); opened all at once they would hold its event loop for seconds, while the dead server's
 * visitors are reconnecting to it. The others wait for a slot (the other survivors claim them
 * meanwhile); a reply that is open streams like any other. Too few slots hold the takeovers back
 * so long that the survivors stay busy with them longer: on 2 cores, 1,000 clients, the median
 * run's reconnect p99 was 23.3 s with 16 slots and 14.7 s with 64, which also kept 300 clients'
 * p99 near 3 s (docs/operations.md, "Cluster figures").
 */
export const TAKEOVER_SLOTS = 64;
/** A taken-over reply with no frame this long after its claim gives its slot back anyway (a slow provider). */
const TAKEOVER_OPEN_MS = 3000;
/** Takeovers per reply; the next claimer ends it with reply_interrupted. */
export const MAX_TAKEOVERS = 2;
const START_WAIT_MS = 3000;
const WARN_EVERY_MS = 30_000;

export const INTERRUPTED_MESSAGE = 'The reply was interrupted: the server writing it stopped. Please ask again.';

/** What servers tell each other about replies and the visitors who own them. */
export type ControlMessage =
  | { t: 'cancel'; r: string; v: string }
  | { t: 'visitor'; v: string }
  | { t: 'scope'; v: string; vt: string; s: string; at: number };

interface Options {
  runningTtlMs: number;
  /** The longest a reply can run (CHAT_TIMEOUT_MS): an older one was not running when its server stopped. */
  maxReplyMs?: number;
  /** RECONNECT_QUIET_MS unless set (tests). */
  quietMs?: number;
  endedTtlMs: number;
  onControl(message: ControlMessage): void;
  takeover?: TakeoverStarter;
  /** TAKEOVER_SLOTS unless set (tests). */
  takeoverSlots?: number;
  /** Redis refused a frame of a reply of this server: another server took it over. */
  onFenced?(replyId: string): void;
}

/** What a takeover attempt found or did. */
export type TakeoverOutcome = 'taken' | 'interrupted' | 'claimed' | 'alive' | 'ended' | 'gone' | 'mine' | 'busy' | 'failed';

interface Tail {
  lastId: string;
  lastSeq: number;
  /** The server writing the reply now (the start's, or the last restart's). */
  serverId: string;
  heardAt: number;
  producerCheckedAt: number;
  streamCheckedAt: number;
  followers: Set<FrameListener>;
}

type Entry = [id: string, fields: string[]];

function fieldsOf(frame: ReplyFrame, serverId: string): string[] {
  switch (frame.kind) {
    case 'delta':
      return ['k', 'd', 't', frame.text];
    case 'restart':
      return ['k', 'restart', 's', serverId, 'n', String(frame.attempt)];
    case 'done':
      return ['k', 'done', 'j', JSON.stringify(frame.data)];
    case 'error':
      return ['k', 'error', 'c', frame.code, 'm', frame.message];
  }
}

function fieldMap(fields: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i], fields[i + 1]);
  return map;
}

function seqOf(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1)) - 1;
}

function frameOf([id, fields]: Entry): ReplyFrame | undefined {
  const f = fieldMap(fields);
  const seq = seqOf(id);
  switch (f.get('k')) {
    case 'd':
      return { seq, kind: 'delta', text: f.get('t') ?? '' };
    case 'restart':
      return { seq, kind: 'restart', attempt: Number(f.get('n') ?? 1) };
    case 'done':
      return { seq, kind: 'done', data: JSON.parse(f.get('j') ?? '{}') as ReplyData };
    case 'error':
      return { seq, kind: 'error', code: f.get('c') ?? 'internal_error', message: f.get('m') ?? '' };
    default:
      return undefined;
  }
}

export class RedisReplyStreams {
  private readonly logger = new Logger('ReplyStreams');
  private readonly serverId = randomUUID();
  private readonly cmd: Redis;
  private readonly blocker: Redis;
  private readonly sub: Redis;
  private readonly control: string;
  private readonly tails = new Map<string, Tail>();
  /** Replies of this server whose mirror failed: no more frames are written for them. */
  private readonly broken = new Set<string>();
  private blockerId: number | undefined;
  private looping = false;
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** Servers seen without a heartbeat, and since when. */
  private readonly deadSince = new Map<string, number>();
  /** Replies a takeover attempt of this server is looking at now (or waiting for a slot). */
  private readonly taking = new Set<string>();
  /** Takeovers holding a slot (claiming, or taken and not open yet), and the ones waiting for one. */
  private slotsHeld = 0;
  private readonly slotWaiters: (() => void)[] = [];
  /** No takeovers before this (just after this server (re)gained Redis). */
  private quietUntil = 0;
  private lastWarning = 0;
  private readonly outage: RedisOutageLog;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly options: Options,
  ) {
    const common = { disconnectTimeout: 500 };
    this.cmd = new Redis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.blocker = new Redis(url, { ...common, maxRetriesPerRequest: null });
    this.sub = new Redis(url, { ...common, maxRetriesPerRequest: null });
    this.control = `${prefix}:replies:control`;
    // Connection errors go to the process's one outage log (a line when Redis goes and comes back).
    this.outage = RedisOutageLog.for(url);
    for (const client of [this.cmd, this.blocker, this.sub]) this.outage.watch(client, 'reply streams');
    this.cmd.on('ready', () => {
      this.quietUntil = Date.now() + (this.options.quietMs ?? RECONNECT_QUIET_MS);
      this.deadSince.clear();
      this.beat();
    });
    this.blocker.on('ready', () => {
      this.blocker.client('ID').then(
        (id) => (this.blockerId = Number(id)),
        () => (this.blockerId = undefined),
      );
    });
    this.sub.on('message', (channel: string, message: string) => {
      if (channel === this.control) this.onControl(message);
    });
  }

  private key(replyId: string): string {
    return `${this.prefix}:reply:${replyId}`;
  }

  private serverKey(serverId: string): string {
    return `${this.prefix}:replies:server:${serverId}`;
  }

  private runningKey(serverId: string): string {
    return `${this.prefix}:replies:running:${serverId}`;
  }

  private get serversKey(): string {
    return `${this.prefix}:replies:servers`;
  }

  private claimKey(replyId: string, attempt: number): string {
    return `${this.prefix}:reply:${replyId}:claim:${attempt}`;
  }

  async start(): Promise<void> {
    const ready = Promise.all([this.whenReady(this.cmd), this.sub.subscribe(this.control).then(() => undefined)]);
    await Promise.race([ready.catch((e: Error) => this.warn(`Reply streams start without Redis: ${e.message}`)), sleep(START_WAIT_MS)]);
    this.beat();
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_EVERY_MS);
    this.heartbeat.unref();
    if (this.options.takeover) {
      // Spread over the servers: each sweeps at its own phase.
      this.sweeper = setInterval(() => void this.sweep(), SWEEP_EVERY_MS + Math.floor(Math.random() * 500));
      this.sweeper.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.sweeper);
    for (const wake of this.slotWaiters.splice(0)) wake();
    for (const tail of this.tails.values()) tail.followers.clear();
    this.tails.clear();
    // A clean stop ended its replies (shutdown waits for them or ends them): nothing to take over.
    await this.cmd
      .multi()
      .del(this.serverKey(this.serverId))
      .srem(this.serversKey, this.serverId)
      .del(this.runningKey(this.serverId))
      .exec()
      .catch(() => undefined);
    await Promise.all([this.cmd, this.blocker, this.sub].map(closeRedis));
  }

  /** The stream's start entry (the owner, this server, the turn `spec`), and the reply in this server's running list. */
  begin(replyId: string, owner: ReplyOwner, spec?: string): void {
    const key = this.key(replyId);
    const running = this.runningKey(this.serverId);
    this.send(replyId, () =>
      this.cmd
        .multi()
        .xadd(key, '0-1', 'k', 'start', 'o', owner.visitorKey, 's', this.serverId, 't', String(Date.now()), ...(spec === undefined ? [] : ['q', spec]))
        .pexpire(key, this.options.runningTtlMs)
        .sadd(running, replyId)
        .pexpire(running, this.options.runningTtlMs)
        .exec(),
    );
  }

  append(replyId: string, frame: ReplyFrame): void {
    const key = this.key(replyId);
    const id = `0-${frame.seq + 1}`;
    if (isFinal(frame)) {
      this.send(replyId, () =>
        this.cmd
          .multi()
          .xadd(key, id, ...fieldsOf(frame, this.serverId))
          .pexpire(key, this.options.endedTtlMs)
          .srem(this.runningKey(this.serverId), replyId)
          .exec(),
      );
      // A reply whose mirror broke ended too: off this server's running list (nothing to take over).
      if (this.broken.has(replyId)) this.cmd.srem(this.runningKey(this.serverId), replyId).catch(() => undefined);
      // Nothing more is written for this reply.
      setTimeout(() => this.broken.delete(replyId), this.options.endedTtlMs).unref();
    } else {
      this.send(replyId, () => this.cmd.xadd(key, id, ...fieldsOf(frame, this.serverId)));
    }
  }

  async read(replyId: string, visitorKey: string): Promise<ReplySnapshot | 'not_found' | 'forbidden'> {
    let entries: Entry[];
    try {
      entries = (await this.cmd.xrange(this.key(replyId), '-', '+')) as Entry[];
    } catch (error) {
      this.warn(`Could not read a reply stream: ${(error as Error).message}`);
      return 'not_found';
    }
    const start = entries[0] && fieldMap(entries[0][1]);
    if (!start || start.get('k') !== 'start') return 'not_found';
    if (start.get('o') !== visitorKey) return 'forbidden';
    const frames = entries.slice(1).map(frameOf).filter((f): f is ReplyFrame => f !== undefined);
    const last = frames[frames.length - 1];
    return { frames, ended: last !== undefined && isFinal(last) };
  }

  async follow(replyId: string, visitorKey: string, deliver: FrameListener): Promise<FollowResult> {
    const key = this.key(replyId);
    let entries: Entry[];
    try {
      entries = (await this.cmd.xrange(key, '-', '+')) as Entry[];
    } catch (error) {
      this.warn(`Could not read a reply stream: ${(error as Error).message}`);
      return { ok: false, code: 'not_found' };
    }
    const start = entries[0] && fieldMap(entries[0][1]);
    if (!start || start.get('k') !== 'start') return { ok: false, code: 'not_found' };
    if (start.get('o') !== visitorKey) return { ok: false, code: 'forbidden' };
    let lastSeq = 0;
    let serverId = start.get('s') ?? '';
    for (const entry of entries.slice(1)) {
      const frame = frameOf(entry);
      if (!frame) continue;
      lastSeq = frame.seq;
      if (frame.kind === 'restart') serverId = fieldMap(entry[1]).get('s') ?? serverId;
      deliver(frame);
      if (isFinal(frame)) return { ok: true, stop: () => undefined };
    }
    const lastId = entries[entries.length - 1][0];
    let tail = this.tails.get(key);
    if (!tail) {
      const now = Date.now();
      tail = { lastId, lastSeq, serverId, heardAt: now, producerCheckedAt: now, streamCheckedAt: now, followers: new Set() };
      this.tails.set(key, tail);
    }
    tail.followers.add(deliver);
    this.wake();
    const joined = tail;
    return {
      ok: true,
      stop: () => {
        joined.followers.delete(deliver);
        if (joined.followers.size === 0 && this.tails.get(key) === joined) this.tails.delete(key);
      },
    };
  }

  /** Deletes replies' streams (and writes nothing more to them). */
  async remove(replyIds: readonly string[]): Promise<void> {
    if (replyIds.length === 0) return;
    for (const id of replyIds) {
      this.broken.add(id);
      setTimeout(() => this.broken.delete(id), this.options.runningTtlMs).unref();
    }
    await this.cmd.del(...replyIds.map((id) => this.key(id))).catch((error: Error) => this.warn(`Could not delete reply streams: ${error.message}`));
  }

  /** Tells every server (this one included: it hears its own messages too). */
  async publish(message: ControlMessage): Promise<void> {
    try {
      await this.cmd.publish(this.control, JSON.stringify(message));
    } catch (error) {
      this.warn(`Could not tell the other servers: ${(error as Error).message}`);
    }
  }

  private onControl(message: string): void {
    let parsed: Partial<ControlMessage>;
    try {
      parsed = JSON.parse(message) as Partial<ControlMessage>;
    } catch {
      return;
    }
    if (typeof parsed.v !== 'string' || typeof parsed.t !== 'string') return;
    this.options.onControl(parsed as ControlMessage);
  }

  /** Runs a write of a reply's mirror; the first failure ends the mirror (and removes it). */
  private send(replyId: string, write: () => Promise<unknown>): void {
    if (this.broken.has(replyId) || this.closed) return;
    write().catch((error: Error) => {
      if (this.broken.has(replyId)) return;
      this.broken.add(replyId);
      setTimeout(() => this.broken.delete(replyId), this.options.runningTtlMs).unref();
      if (/equal or smaller/i.test(error.message)) {
        // Another server took the reply over (this one missed its heartbeat): its stream is theirs now.
        this.options.onFenced?.(replyId);
        return;
      }
      if (isRedisConnectionError(error)) this.outage.commandFailed('reply streams', error);
      else this.warn(`A reply stream could not be written to Redis; it can only be followed on this server: ${error.message}`);
      this.cmd.del(this.key(replyId)).catch(() => undefined);
    });
  }

  private beat(): void {
    if (this.closed) return;
    this.cmd
      .multi()
      .set(this.serverKey(this.serverId), '1', 'PX', HEARTBEAT_TTL_MS)
      .sadd(this.serversKey, this.serverId)
      .exec()
      .catch(() => undefined);
  }

  /** Starts the tail loop, or wakes it so it includes a new follower. */
  private wake(): void {
    if (!this.looping) {
      void this.loop();
      return;
    }
    if (this.blockerId !== undefined) this.cmd.client('UNBLOCK', this.blockerId).catch(() => undefined);
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      while (this.tails.size > 0 && !this.closed) {
        const keys = [...this.tails.keys()];
        const ids = keys.map((k) => this.tails.get(k)!.lastId);
        let result: [string, Entry[]][] | null;
        try {
          result = (await this.blocker.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...ids)) as [string, Entry[]][] | null;
        } catch (error) {
          if (this.closed) break;
          this.warn(`Following reply streams failed: ${(error as Error).message}`);
          await sleep(500);
          continue;
        }
        for (const [key, entries] of result ?? []) this.dispatch(key, entries);
        await this.checkIdle();
      }
    } finally {
      this.looping = false;
    }
    if (this.tails.size > 0 && !this.closed) void this.loop();
  }

  private dispatch(key: string, entries: Entry[]): void {
    const tail = this.tails.get(key);
    if (!tail) return;
    for (const entry of entries) {
      tail.lastId = entry[0];
      tail.heardAt = Date.now();
      const frame = frameOf(entry);
      if (!frame) continue;
      tail.lastSeq = frame.seq;
      if (frame.kind === 'restart') tail.serverId = fieldMap(entry[1]).get('s') ?? tail.serverId;
      for (const deliver of tail.followers) deliver(frame);
      if (isFinal(frame)) {
        this.tails.delete(key);
        return;
      }
    }
  }

  /**
   * Follows silent for a while: a reply whose server is gone is taken over (here, if this server
   * wins the claim); one whose stream is gone ends with reply_interrupted.
   */
  private async checkIdle(): Promise<void> {
    const now = Date.now();
    const silent = [...this.tails].filter(([, tail]) => now - tail.heardAt >= PRODUCER_CHECK_MS && now - tail.producerCheckedAt >= PRODUCER_CHECK_MS);
    if (silent.length === 0) return;
    for (const [, tail] of silent) tail.producerCheckedAt = now;
    let alive: Map<string, boolean>;
    try {
      alive = await this.aliveServers([...new Set(silent.map(([, tail]) => tail.serverId))]);
    } catch {
      return;
    }
    for (const [key, tail] of silent) {
      if (this.tails.get(key) !== tail) continue;
      const replyId = key.slice(this.key('').length);
      if (!alive.get(tail.serverId)) {
        void this.takeOver(replyId).then((outcome) => {
          if (outcome === 'gone') this.interruptFollow(key, tail);
        });
        continue;
      }
      if (now - tail.streamCheckedAt < IDLE_CHECK_MS) continue;
      tail.streamCheckedAt = now;
      const exists = await this.cmd.exists(key).catch(() => 1);
      if (!exists) this.interruptFollow(key, tail);
    }
  }

  /** Ends a follow whose stream is gone with reply_interrupted. */
  private interruptFollow(key: string, tail: Tail): void {
    if (this.tails.get(key) !== tail) return;
    this.tails.delete(key);
    const frame: ReplyFrame = { seq: tail.lastSeq + 1, kind: 'error', code: 'reply_interrupted', message: INTERRUPTED_MESSAGE };
    for (const deliver of tail.followers) deliver(frame);
  }

  /** Which of these servers still beat (one round trip). */
  private async aliveServers(serverIds: string[]): Promise<Map<string, boolean>> {
    const alive = new Map<string, boolean>();
    if (serverIds.length === 0) return alive;
    const pipeline = this.cmd.pipeline();
    for (const id of serverIds) pipeline.exists(this.serverKey(id));
    const results = (await pipeline.exec()) ?? [];
    serverIds.forEach((id, i) => {
      const [error, value] = results[i] ?? [new Error('no answer'), 0];
      if (error) throw error;
      alive.set(id, id !== '' && Number(value) > 0);
    });
    return alive;
  }

  /**
   * Takes a reply over if its server is gone and this server wins the claim: the handler asks it
   * again and continues its stream (or, past MAX_TAKEOVERS or without a stored turn, the stream
   * ends with reply_interrupted).
   */
  async takeOver(replyId: string): Promise<TakeoverOutcome> {
    const handler = this.options.takeover;
    if (this.closed || !handler || this.taking.has(replyId)) return 'busy';
    if (!handler.accepting() || Date.now() < this.quietUntil) return 'busy';
    this.taking.add(replyId);
    const release = await this.takeoverSlot();
    let opening: Promise<unknown> | undefined;
    try {
      if (this.closed || !handler.accepting()) return 'busy';
      const key = this.key(replyId);
      const entries = (await this.cmd.xrange(key, '-', '+')) as Entry[];
      const start = entries[0] && fieldMap(entries[0][1]);
      if (!start || start.get('k') !== 'start') return 'gone';
      // Older than any reply can run: it was not running when its server stopped (its end was never mirrored).
      const startedAt = Number(start.get('t') ?? Date.now());
      if (this.options.maxReplyMs !== undefined && Date.now() - startedAt > this.options.maxReplyMs + HEARTBEAT_TTL_MS) return 'gone';
      let producer = start.get('s') ?? '';
      let attempt = 0;
      let lastSeq = 0;
      for (const [id, fields] of entries.slice(1)) {
        const f = fieldMap(fields);
        lastSeq = seqOf(id);
        const kind = f.get('k');
        if (kind === 'done' || kind === 'error') return 'ended';
        if (kind === 'restart') {
          producer = f.get('s') ?? '';
          attempt = Number(f.get('n') ?? attempt + 1);
        }
      }
      if (producer === this.serverId) return 'mine';
      if ((await this.aliveServers([producer])).get(producer)) return 'alive';
      const next = attempt + 1;
      const won = await this.cmd.set(this.claimKey(replyId, next), this.serverId, 'PX', CLAIM_TTL_MS, 'NX');
      if (won !== 'OK') return 'claimed';
      this.cmd.srem(this.runningKey(producer), replyId).catch(() => undefined);
      const spec = start.get('q');
      const visitorKey = start.get('o') ?? '';
      if (next <= MAX_TAKEOVERS && spec !== undefined && handler.accepting()) {
        // The restart frame goes in first: if the old producer wrote its next frame meanwhile (it
        // was only slow), Redis refuses this one and the reply stays with it.
        const running = this.runningKey(this.serverId);
        const written = await this.cmd
          .multi()
          .xadd(key, `0-${lastSeq + 2}`, 'k', 'restart', 's', this.serverId, 'n', String(next))
          .sadd(running, replyId)
          .pexpire(running, this.options.runningTtlMs)
          .exec();
        const refused = written?.[0]?.[0];
        if (refused) {
          this.cmd.srem(running, replyId).catch(() => undefined);
          if (/equal or smaller/i.test(refused.message)) return 'alive';
          throw refused;
        }
        const started = handler.take({ replyId, visitorKey, spec, restartSeq: lastSeq + 1, attempt: next });
        if (started === false) {
          await this.interrupt(key, lastSeq + 1);
          return 'interrupted';
        }
        if (started !== true) opening = started;
        this.logger.log(`Reply ${replyId} taken over from a stopped server (attempt ${next})`);
        return 'taken';
      }
      await this.interrupt(key, lastSeq);
      return 'interrupted';
    } catch (error) {
      this.warn(`A reply takeover failed: ${(error as Error).message}`);
      return 'failed';
    } finally {
      this.taking.delete(replyId);
      if (opening) void Promise.race([opening.catch(() => undefined), sleep(TAKEOVER_OPEN_MS)]).then(release);
      else release();
    }
  }

  /** Waits for one of the server's takeover slots; the function returned gives it back (once). */
  private async takeoverSlot(): Promise<() => void> {
    const slots = this.options.takeoverSlots ?? TAKEOVER_SLOTS;
    while (this.slotsHeld >= slots && !this.closed) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    this.slotsHeld += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.slotsHeld -= 1;
      this.slotWaiters.shift()?.();
    };
  }

  /** Ends a reply's stream with reply_interrupted after frame `lastSeq`. */
  private async interrupt(key: string, lastSeq: number): Promise<void> {
    await this.cmd
      .multi()
      .xadd(key, `0-${lastSeq + 2}`, 'k', 'error', 'c', 'reply_interrupted', 'm', INTERRUPTED_MESSAGE)
      .pexpire(key, this.options.endedTtlMs)
      .exec();
  }

  /**
   * Looks for servers without a heartbeat and takes over their running replies (each once this
   * server wins its claim); a gone server with nothing left running is struck off the list.
   */
  private async sweep(): Promise<void> {
    if (this.closed || this.sweeping || !this.options.takeover?.accepting() || Date.now() < this.quietUntil) return;
    this.sweeping = true;
    try {
      const others = (await this.cmd.smembers(this.serversKey)).filter((id) => id !== this.serverId);
      if (others.length === 0) return;
      const alive = await this.aliveServers(others);
      const now = Date.now();
      for (const id of others) {
        if (alive.get(id)) {
          this.deadSince.delete(id);
          continue;
        }
        const since = this.deadSince.get(id) ?? now;
        this.deadSince.set(id, since);
        if (now - since < SWEEP_GRACE_MS) continue;
        const replies = await this.cmd.smembers(this.runningKey(id));
        if (replies.length === 0) {
          await this.cmd.multi().srem(this.serversKey, id).del(this.runningKey(id)).exec();
          this.deadSince.delete(id);
          continue;
        }
        // In a random order: the servers sweeping at once mostly claim different replies.
        for (const replyId of shuffled(replies)) {
          if (this.closed) return;
          const outcome = await this.takeOver(replyId);
          if (outcome === 'gone' || outcome === 'ended' || outcome === 'interrupted' || outcome === 'alive' || outcome === 'mine') {
            await this.cmd.srem(this.runningKey(id), replyId).catch(() => undefined);
          }
        }
      }
    } catch (error) {
      this.warn(`Looking for replies of stopped servers failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  private whenReady(client: Redis): Promise<void> {
    if (client.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('end', () => reject(new Error('connection ended')));
    });
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
