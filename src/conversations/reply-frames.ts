/**
 * A reply stream's frames and the shapes both stores share (reply-streams.ts in memory,
 * redis-reply-streams.ts across servers); apart so that neither store imports the other's module for them.
 */
import type { ReplyData } from '../shared/contracts/chat';

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
export type FinalFrameInput = FinalFrame extends infer F ? (F extends FinalFrame ? Omit<F, 'seq'> : never) : never;

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
 * A reply whose server stopped (its heartbeat expired) that this server claimed and wrote the
 * restart frame of: it is asked again from `spec` (what ChatService stored at its start).
 */
export interface TakeoverJob {
  replyId: string;
  visitorKey: string;
  spec: string;
  /** The seq of its restart frame (already in the Redis stream). */
  restartSeq: number;
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

/**
 * The Redis side's view of the handler: `take` may also return a promise that settles once the
 * reply is open again (its first frame after the restart written, or its end). Until then the
 * takeover holds one of the server's takeover slots.
 */
export interface TakeoverStarter {
  accepting(): boolean;
  take(job: TakeoverJob): boolean | Promise<unknown>;
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
