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
 *   after the start). A server that runs replies keeps a heartbeat key alive: a follower that has
 *   heard nothing for a while and finds that server gone (or the stream expired) ends the reply
 *   with `reply_interrupted` instead of waiting forever.
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
import { isFinal, type FollowResult, type FrameListener, type ReplyFrame, type ReplyOwner, type ReplySnapshot } from './reply-streams';
import { isRedisConnectionError, RedisOutageLog } from '../common/redis-outage-log';

/** XREAD blocks at most this long per round (followers added meanwhile wake it at once). */
const BLOCK_MS = 5000;
/** A followed reply silent this long gets its server's heartbeat checked. */
const IDLE_CHECK_MS = 10_000;
const HEARTBEAT_EVERY_MS = 3000;
const HEARTBEAT_TTL_MS = 10_000;
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
  endedTtlMs: number;
  onControl(message: ControlMessage): void;
}

interface Tail {
  lastId: string;
  lastSeq: number;
  serverId: string;
  heardAt: number;
  followers: Set<FrameListener>;
}

type Entry = [id: string, fields: string[]];

function fieldsOf(frame: ReplyFrame): string[] {
  switch (frame.kind) {
    case 'delta':
      return ['k', 'd', 't', frame.text];
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

  async start(): Promise<void> {
    const ready = Promise.all([this.whenReady(this.cmd), this.sub.subscribe(this.control).then(() => undefined)]);
    await Promise.race([ready.catch((e: Error) => this.warn(`Reply streams start without Redis: ${e.message}`)), sleep(START_WAIT_MS)]);
    this.beat();
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_EVERY_MS);
    this.heartbeat.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const tail of this.tails.values()) tail.followers.clear();
    this.tails.clear();
    await this.cmd.del(this.serverKey(this.serverId)).catch(() => undefined);
    await Promise.all([this.cmd, this.blocker, this.sub].map(closeRedis));
  }

  begin(replyId: string, owner: ReplyOwner): void {
    const key = this.key(replyId);
    this.send(replyId, () =>
      this.cmd
        .multi()
        .xadd(key, '0-1', 'k', 'start', 'o', owner.visitorKey, 's', this.serverId)
        .pexpire(key, this.options.runningTtlMs)
        .exec(),
    );
  }

  append(replyId: string, frame: ReplyFrame): void {
    const key = this.key(replyId);
    const id = `0-${frame.seq + 1}`;
    if (isFinal(frame)) {
      this.send(replyId, () => this.cmd.multi().xadd(key, id, ...fieldsOf(frame)).pexpire(key, this.options.endedTtlMs).exec());
      // Nothing more is written for this reply.
      setTimeout(() => this.broken.delete(replyId), this.options.endedTtlMs).unref();
    } else {
      this.send(replyId, () => this.cmd.xadd(key, id, ...fieldsOf(frame)));
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
    for (const entry of entries.slice(1)) {
      const frame = frameOf(entry);
      if (!frame) continue;
      lastSeq = frame.seq;
      deliver(frame);
      if (isFinal(frame)) return { ok: true, stop: () => undefined };
    }
    const lastId = entries[entries.length - 1][0];
    let tail = this.tails.get(key);
    if (!tail) {
      tail = { lastId, lastSeq, serverId: start.get('s') ?? '', heardAt: Date.now(), followers: new Set() };
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
      if (isRedisConnectionError(error)) this.outage.commandFailed('reply streams', error);
      else this.warn(`A reply stream could not be written to Redis; it can only be followed on this server: ${error.message}`);
      this.cmd.del(this.key(replyId)).catch(() => undefined);
    });
  }

  private beat(): void {
    if (this.closed) return;
    this.cmd.set(this.serverKey(this.serverId), '1', 'PX', HEARTBEAT_TTL_MS).catch(() => undefined);
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
      for (const deliver of tail.followers) deliver(frame);
      if (isFinal(frame)) {
        this.tails.delete(key);
        return;
      }
    }
  }

  /** Ends the follows of replies whose server went away (or whose stream expired). */
  private async checkIdle(): Promise<void> {
    const now = Date.now();
    for (const [key, tail] of this.tails) {
      if (now - tail.heardAt < IDLE_CHECK_MS) continue;
      tail.heardAt = now;
      try {
        const [streamExists, serverAlive] = await Promise.all([this.cmd.exists(key), this.cmd.exists(this.serverKey(tail.serverId))]);
        if (streamExists && serverAlive) continue;
      } catch {
        continue;
      }
      if (this.tails.get(key) !== tail) continue;
      this.tails.delete(key);
      const frame: ReplyFrame = { seq: tail.lastSeq + 1, kind: 'error', code: 'reply_interrupted', message: INTERRUPTED_MESSAGE };
      for (const deliver of tail.followers) deliver(frame);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
