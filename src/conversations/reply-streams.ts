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
import type { ReplyData } from '../shared/contracts/chat';
import { RedisReplyStreams, type ControlMessage } from './redis-reply-streams';

/** How long a reply's frames stay readable after it ended (then the stored message is the source). */
export const REPLY_STREAM_TTL_MS = 60_000;

export type ReplyFrame =
  | { seq: number; kind: 'delta'; text: string }
  /**
   * The server writing the reply stopped and another one took it over (attempt 1, 2): the text
   * before this frame is discarded, the reply is written again from the start by the frames after it.
   */
  | { seq: number; kind: 'restart'; attempt: number }
  | { seq: number; kind: 'done'; data: ReplyData }
  | { seq: number; kind: 'error'; code: string; message: string };

export type FinalFrame = Extract<ReplyFrame, { kind: 'done' | 'error' }>;
type FinalFrameInput = FinalFrame extends infer F ? (F extends FinalFrame ? Omit<F, 'seq'> : never) : never;

export function isFinal(frame: ReplyFrame): frame is FinalFrame {
  return frame.kind === 'done' || frame.kind === 'error';
}

/** The reply's text in `frames`: the deltas after the last restart. */
export function textOf(frames: readonly ReplyFrame[]): string {
  let text = '';
  for (const frame of frames) {
    if (frame.kind === 'restart') text = '';
    else if (frame.kind === 'delta') text += frame.text;
  }
  return text;
}

/**
 * A reply whose server stopped (its heartbeat expired) that this server claimed: it is asked again
 * from `spec` (what ChatService stored at its start) and continues its stream after `lastSeq`.
 */
export interface TakeoverJob {
  replyId: string;
  visitorKey: string;
  spec: string;
  lastSeq: number;
  /** 1 for the first takeover, 2 for the second. */
  attempt: number;
}

/** Who regenerates replies taken over from a stopped server (ChatService). */
export interface TakeoverHandler {
  /** False while this server drains: it claims nothing. */
  accepting(): boolean;
  /** Starts the reply again; false when it cannot (it then ends with reply_interrupted). */
  take(job: TakeoverJob): boolean;
}

export interface ReplyOwner {
  visitorKey: string;
}

export type FrameListener = (frame: ReplyFrame) => void;

/** A follow that found the reply (stop() ends it), or why not. */
export type FollowResult = { ok: true; stop: () => void } | { ok: false; code: 'not_found' | 'forbidden' };

/** A reply's frames so far. */
export interface ReplySnapshot {
  frames: ReplyFrame[];
  ended: boolean;
}

interface LocalReply {
  id: string;
  owner: ReplyOwner;
  frames: ReplyFrame[];
  ended: boolean;
  listeners: Set<FrameListener>;
  cancel: () => void;
  expiry?: NodeJS.Timeout;
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
        takeover: {
          accepting: () => this.takeover?.accepting() ?? false,
          take: (job) => this.takeover?.take(job) ?? false,
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
  begin(replyId: string, owner: ReplyOwner, cancel: () => void, spec?: string): ReplyProducer {
    this.redis?.begin(replyId, owner, spec);
    return this.register(replyId, owner, 0, cancel);
  }

  /**
   * Continues the stream of a reply taken over from a stopped server: a `restart` frame after
   * `lastSeq`, then the reply written again.
   */
  resume(job: TakeoverJob, cancel: () => void): ReplyProducer {
    this.redis?.adopt(job.replyId);
    const producer = this.register(job.replyId, { visitorKey: job.visitorKey }, job.lastSeq, cancel);
    producer.restart(job.attempt);
    return producer;
  }

  /** Who regenerates the replies this server takes over (ChatService). */
  onTakeover(handler: TakeoverHandler): void {
    this.takeover = handler;
  }

  private register(replyId: string, owner: ReplyOwner, base: number, cancel: () => void): ReplyProducer & { restart(attempt: number): void } {
    const reply: LocalReply = { id: replyId, owner, frames: [], ended: false, listeners: new Set(), cancel };
    this.local.set(replyId, reply);
    const nextSeq = () => base + reply.frames.length + 1;
    const publish = (frame: ReplyFrame) => {
      reply.frames.push(frame);
      this.redis?.append(replyId, frame);
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
      restart: (attempt) => publish({ seq: nextSeq(), kind: 'restart', attempt }),
      delta: (text) => {
        if (reply.ended) return nextSeq() - 1;
        const seq = nextSeq();
        publish({ seq, kind: 'delta', text });
        return seq;
      },
      end: (input) => {
        const last = reply.frames[reply.frames.length - 1];
        if (reply.ended && last && isFinal(last)) return last;
        const frame = { ...input, seq: nextSeq() } as FinalFrame;
        reply.ended = true;
        publish(frame);
        reply.listeners.clear();
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
      for (const frame of reply.frames) deliver(frame);
      if (reply.ended) return { ok: true, stop: () => undefined };
      reply.listeners.add(deliver);
      return { ok: true, stop: () => reply.listeners.delete(deliver) };
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
    if (!reply.ended) reply.cancel();
    return true;
  }

  /** Stops the visitor's running replies here and drops every stream of theirs this server wrote. */
  private cancelVisitorLocal(visitorKey: string): void {
    for (const reply of [...this.local.values()]) {
      if (reply.owner.visitorKey !== visitorKey) continue;
      if (!reply.ended) reply.cancel();
      this.drop(reply);
    }
  }

  /** Drops replies' streams (their conversation was deleted): here, and in Redis, wherever they ran. */
  async forget(replyIds: readonly string[], visitorKey: string): Promise<void> {
    for (const id of replyIds) {
      const reply = this.local.get(id);
      if (reply && reply.owner.visitorKey === visitorKey) {
        if (!reply.ended) reply.cancel();
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
