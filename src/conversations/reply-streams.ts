/**
 * Resumable reply streams: every frame of a reply (its text pieces, then chat:done or chat:error)
 * is numbered (`seq` 1, 2, ...) and kept until a minute after the reply ends, so a visitor whose
 * connection dropped, or who reloaded the page, gets the frames they missed and then the live
 * ones, from this server or (with REDIS_URL) any other.
 *
 * - This server's running replies live in memory (`local`): the socket that asked and any
 *   resumer on this server follow them there, with no round trip.
 * - With REDIS_URL every frame is also appended to a Redis Stream (redis-reply-streams.ts), where
 *   a resumer on another server reads the backlog and then blocks for the rest; a cancel reaches
 *   the server running the reply over pub/sub.
 * - A reply whose server stopped (kill -9: its heartbeat expires within a few seconds) is taken
 *   over by another server (ChatService asks it again from the turn stored with the stream's start
 *   entry): its stream gets a `restart` frame, then the reply written again, under the same reply
 *   id. At most twice, then it ends with `reply_interrupted`.
 * - Frames carry their seq: a follower delivers each seq once, so a frame can be neither lost
 *   (the backlog is read after the follower is registered) nor repeated.
 * - A reply is owned by the visitor who asked (the SHA-256 key of their cookie): nobody else can
 *   follow, read or cancel it.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { INTERRUPTED_MESSAGE, RedisReplyStreams, type ControlMessage } from './redis-reply-streams';
import {
  isFinal,
  type FinalFrame,
  type FinalFrameInput,
  type FollowResult,
  type FrameListener,
  type ReplyFrame,
  type ReplyOwner,
  type ReplySnapshot,
  type TakeoverHandler,
  type TakeoverJob,
} from './reply-frames';

export { isFinal, textOf } from './reply-frames';
export type { FinalFrame, FollowResult, FrameListener, ReplyFrame, ReplyOwner, ReplySnapshot, TakeoverHandler, TakeoverJob } from './reply-frames';

/** How long a reply's frames stay readable after it ended (then the stored message is the source). */
export const REPLY_STREAM_TTL_MS = 60_000;

/** A follower of a reply of this server: moved to the Redis stream if another server takes the reply over. */
interface LocalFollower {
  listener: FrameListener;
  /** The last seq it was given. */
  last: number;
  /** Ends the follow (here, or on the Redis stream once moved). */
  stop: () => void;
}

interface LocalReply {
  id: string;
  owner: ReplyOwner;
  frames: ReplyFrame[];
  ended: boolean;
  /** 0 for a reply begun here, n for one this server took over (its n-th takeover). */
  attempt: number;
  /** Another server took it over (this one stalled past its heartbeat): nothing more is written from here. */
  yielded: boolean;
  listeners: Set<FrameListener>;
  followers: Map<FrameListener, LocalFollower>;
  /** Stops the reply: a visitor's stop ('cancelled'), or 'taken_over' (stop quietly: another server writes it). */
  cancel: (reason: 'cancelled' | 'taken_over') => void;
  expiry?: NodeJS.Timeout;
  /** A reply taken over: settles with its first frame after the restart (or its end). */
  opened?: Promise<void>;
}

/** What the chat pipeline writes a reply through. */
export interface ReplyProducer {
  readonly replyId: string;
  /** The final frame was written. */
  readonly ended: boolean;
  /** Appends a text frame; returns its seq. */
  delta(text: string): number;
  /** Appends the final frame (once); the stream expires REPLY_STREAM_TTL_MS later. */
  end(frame: FinalFrameInput): FinalFrame;
}

/**
 * For a follower of a reply this server gave up (another server took it over while this one
 * stalled): it already has this server's frames up to `last`, which may differ from the stream's,
 * so it skips everything up to the taker's restart frame (the first with a higher attempt than
 * `attempt`, whatever its seq), then gets each later frame once.
 */
export function afterRestart(last: number, attempt: number, listener: FrameListener): FrameListener {
  let restarted = false;
  let seen = last;
  return (frame) => {
    if (!restarted) {
      if (frame.kind !== 'restart' || frame.attempt <= attempt) return;
      restarted = true;
      seen = frame.seq;
      listener(frame);
      return;
    }
    if (frame.seq <= seen) return;
    seen = frame.seq;
    listener(frame);
  };
}

/** Delivers each seq once, in order, whatever mix of backlog and live frames arrives. */
export function onceEach(after: number, listener: FrameListener): FrameListener {
  let last = after;
  return (frame) => {
    if (frame.seq <= last) return;
    last = frame.seq;
    listener(frame);
  };
}

@Injectable()
export class ReplyStreamService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReplyStreams');
  private readonly local = new Map<string, LocalReply>();
  private readonly redis: RedisReplyStreams | undefined;
  private readonly visitorGone = new Set<(visitorKey: string) => void>();
  private readonly scopeClosed = new Set<(visitorKey: string, vertical: string, scope: string, at: number) => void>();
  private takeover: TakeoverHandler | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.redisUrl) {
      this.redis = new RedisReplyStreams(config.redisUrl, config.redisPrefix, {
        runningTtlMs: config.chatTimeoutMs + REPLY_STREAM_TTL_MS + 60_000,
        maxReplyMs: config.chatTimeoutMs,
        endedTtlMs: REPLY_STREAM_TTL_MS,
        onControl: (message) => this.onControl(message),
        onFenced: (replyId) => this.yieldReply(replyId),
        takeover: {
          accepting: () => this.takeover?.accepting() ?? false,
          // Open once the reply's first frame after the restart is written (or it ended): the
          // takeover slot it held is free for the next one.
          take: (job) => (this.takeover?.take(job) ? (this.local.get(job.replyId)?.opened ?? true) : false),
        },
      });
    }
  }

  get distributed(): boolean {
    return this.redis !== undefined;
  }

  /** Replies running or readable on this server. */
  get size(): number {
    return this.local.size;
  }

  async onModuleInit(): Promise<void> {
    await this.redis?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const reply of this.local.values()) clearTimeout(reply.expiry);
    this.local.clear();
    await this.redis?.close();
  }

  /**
   * Registers a new reply of this server; `cancel` stops it (an explicit stop, never a lost
   * connection). `spec` (with REDIS_URL): what another server needs to ask it again if this one stops.
   */
  begin(replyId: string, owner: ReplyOwner, cancel: (reason: 'cancelled' | 'taken_over') => void, spec?: string): ReplyProducer {
    this.redis?.begin(replyId, owner, spec);
    return this.register(replyId, owner, 0, 0, cancel);
  }

  /**
   * Continues the stream of a reply taken over from a stopped server: its `restart` frame (seq
   * `lastSeq`, already in Redis), then the reply written again.
   */
  resume(job: TakeoverJob, cancel: (reason: 'cancelled' | 'taken_over') => void): ReplyProducer {
    const producer = this.register(job.replyId, { visitorKey: job.visitorKey }, job.restartSeq - 1, job.attempt, cancel);
    // Already in the Redis stream (written with the claim).
    producer.restart(job.attempt);
    const reply = this.local.get(job.replyId)!;
    reply.opened = new Promise<void>((resolve) => {
      const first: FrameListener = (frame) => {
        if (frame.kind === 'restart') return;
        reply.listeners.delete(first);
        resolve();
      };
      reply.listeners.add(first);
    });
    return producer;
  }

  /** Who regenerates the replies this server takes over (ChatService). */
  onTakeover(handler: TakeoverHandler): void {
    this.takeover = handler;
  }

  private register(
    replyId: string,
    owner: ReplyOwner,
    base: number,
    attempt: number,
    cancel: (reason: 'cancelled' | 'taken_over') => void,
  ): ReplyProducer & { restart(attempt: number): void } {
    const reply: LocalReply = { id: replyId, owner, frames: [], ended: false, attempt, yielded: false, listeners: new Set(), followers: new Map(), cancel };
    this.local.set(replyId, reply);
    const nextSeq = () => base + reply.frames.length + 1;
    const publish = (frame: ReplyFrame, mirror = true) => {
      reply.frames.push(frame);
      if (mirror) this.redis?.append(replyId, frame);
      for (const listener of reply.listeners) {
        try {
          listener(frame);
        } catch (error) {
          this.logger.warn(`A reply follower failed: ${(error as Error).message}`);
        }
      }
    };
    return {
      replyId,
      get ended() {
        return reply.ended;
      },
      restart: (n) => publish({ seq: nextSeq(), kind: 'restart', attempt: n }, false),
      delta: (text) => {
        if (reply.ended) return nextSeq() - 1;
        const seq = nextSeq();
        publish({ seq, kind: 'delta', text });
        return seq;
      },
      end: (input) => {
        if (reply.yielded) return { ...input, seq: nextSeq() } as FinalFrame;
        const last = reply.frames[reply.frames.length - 1];
        if (reply.ended && last && isFinal(last)) return last;
        const frame = { ...input, seq: nextSeq() } as FinalFrame;
        reply.ended = true;
        publish(frame);
        reply.listeners.clear();
        reply.followers.clear();
        reply.expiry = setTimeout(() => this.local.delete(replyId), REPLY_STREAM_TTL_MS);
        reply.expiry.unref();
        return frame;
      },
    };
  }

  /**
   * Sends `listener` the frames after `after`, then the live ones until the final frame, each
   * once. Found on this server, or (with Redis) wherever it runs.
   */
  async follow(replyId: string, visitorKey: string, after: number, listener: FrameListener): Promise<FollowResult> {
    const deliver = onceEach(after, listener);
    const reply = this.local.get(replyId);
    if (reply) {
      if (reply.owner.visitorKey !== visitorKey) return { ok: false, code: 'forbidden' };
      const follower: LocalFollower = { listener, last: after, stop: () => undefined };
      const tracked = onceEach(after, (frame) => {
        follower.last = frame.seq;
        listener(frame);
      });
      for (const frame of reply.frames) tracked(frame);
      if (reply.ended) return { ok: true, stop: () => undefined };
      reply.listeners.add(tracked);
      reply.followers.set(tracked, follower);
      follower.stop = () => {
        reply.listeners.delete(tracked);
        reply.followers.delete(tracked);
      };
      return { ok: true, stop: () => follower.stop() };
    }
    if (!this.redis) return { ok: false, code: 'not_found' };
    return this.redis.follow(replyId, visitorKey, deliver);
  }

  /** The frames so far (to answer GET /interact/replies/{id}). */
  async read(replyId: string, visitorKey: string): Promise<ReplySnapshot | 'not_found' | 'forbidden'> {
    const reply = this.local.get(replyId);
    if (reply) return reply.owner.visitorKey === visitorKey ? { frames: [...reply.frames], ended: reply.ended } : 'forbidden';
    if (!this.redis) return 'not_found';
    return this.redis.read(replyId, visitorKey);
  }

  /** Stops a running reply of this visitor, on whichever server runs it. */
  async cancel(replyId: string, visitorKey: string): Promise<void> {
    if (this.cancelLocal(replyId, visitorKey)) return;
    await this.redis?.publish({ t: 'cancel', r: replyId, v: visitorKey });
  }

  /**
   * Stops every running reply of a visitor whose conversations are being deleted, and tells
   * `onVisitorGone` listeners, on every server.
   */
  async cancelVisitor(visitorKey: string): Promise<void> {
    this.cancelVisitorLocal(visitorKey);
    await this.redis?.publish({ t: 'visitor', v: visitorKey });
  }

  /** Tells `onScopeClosed` listeners on the other servers that a visitor pressed "New chat". */
  async announceScopeClosed(visitorKey: string, vertical: string, scope: string, at: number): Promise<void> {
    await this.redis?.publish({ t: 'scope', v: visitorKey, vt: vertical, s: scope, at });
  }

  onVisitorGone(listener: (visitorKey: string) => void): void {
    this.visitorGone.add(listener);
  }

  onScopeClosed(listener: (visitorKey: string, vertical: string, scope: string, at: number) => void): void {
    this.scopeClosed.add(listener);
  }

  private onControl(message: ControlMessage): void {
    switch (message.t) {
      case 'cancel':
        this.cancelLocal(message.r, message.v);
        break;
      case 'visitor':
        this.cancelVisitorLocal(message.v);
        for (const listener of this.visitorGone) listener(message.v);
        break;
      case 'scope':
        for (const listener of this.scopeClosed) listener(message.v, message.vt, message.s, Number(message.at));
        break;
    }
  }

  private cancelLocal(replyId: string, visitorKey: string): boolean {
    const reply = this.local.get(replyId);
    if (!reply || reply.owner.visitorKey !== visitorKey) return false;
    if (!reply.ended) reply.cancel('cancelled');
    return true;
  }

  /**
   * Another server took over a reply this server is still writing (this one stalled past its
   * heartbeat; Redis refused its next frame): it stops quietly (no usage event, no message: the
   * taker writes them), and its followers here move to the Redis stream, where the taker's restart
   * frame tells them to discard this server's text.
   */
  private yieldReply(replyId: string): void {
    const reply = this.local.get(replyId);
    if (!reply || reply.ended || !this.redis) return;
    this.logger.warn(`Reply ${replyId} was taken over by another server (this one missed its heartbeat): its followers move to the taker`);
    this.local.delete(replyId);
    reply.ended = true;
    reply.yielded = true;
    const followers = [...reply.followers.values()];
    reply.listeners.clear();
    reply.followers.clear();
    reply.cancel('taken_over');
    for (const follower of followers) {
      let stopped = false;
      follower.stop = () => {
        stopped = true;
      };
      void this.redis.follow(replyId, reply.owner.visitorKey, afterRestart(follower.last, reply.attempt, follower.listener)).then((result) => {
        if (!result.ok) {
          if (!stopped) follower.listener({ seq: follower.last + 1, kind: 'error', code: 'reply_interrupted', message: INTERRUPTED_MESSAGE });
          return;
        }
        if (stopped) result.stop();
        else follower.stop = result.stop;
      });
    }
  }

  /** Stops the visitor's running replies here and drops every stream of theirs this server wrote. */
  private cancelVisitorLocal(visitorKey: string): void {
    for (const reply of [...this.local.values()]) {
      if (reply.owner.visitorKey !== visitorKey) continue;
      if (!reply.ended) reply.cancel('cancelled');
      this.drop(reply);
    }
  }

  /** Drops replies' streams (their conversation was deleted): here, and in Redis, wherever they ran. */
  async forget(replyIds: readonly string[], visitorKey: string): Promise<void> {
    for (const id of replyIds) {
      const reply = this.local.get(id);
      if (reply && reply.owner.visitorKey === visitorKey) {
        if (!reply.ended) reply.cancel('cancelled');
        this.drop(reply);
      }
    }
    await this.redis?.remove(replyIds);
  }

  /** A dropped reply still ends (its producer writes the final frame), but nobody can follow or read it. */
  private drop(reply: LocalReply): void {
    this.local.delete(reply.id);
    reply.listeners.clear();
    clearTimeout(reply.expiry);
    if (this.redis) void this.redis.remove([reply.id]);
  }
}
