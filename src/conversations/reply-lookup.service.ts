/**
 * Replies by id for clients that lost their connection (POST /interact callers, the chat page
 * over HTTP): a reply's status, its frames resumed after a seq, and stopping it. A reply is read
 * live from its stream while the stream lasts (a minute after it ended), from the stored message
 * after that. Only the visitor who asked can reach it; for anyone else it does not exist.
 */
import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { ReplyStatus } from '../shared/contracts/conversations';
import { VisitorConversationReadsService } from './visitor-conversation-reads.service';
import { isFinal, type ReplyFrame } from './reply-frames';
import { ReplyStreamService, textOf } from './reply-streams';

export const REPLY_NOT_FOUND = 'That reply was not found.';

/** Where a resumed reply's frames go (the SSE response of RepliesController). */
export interface ReplyFrameSink {
  /** Called once, before the first frame: opens the event stream. */
  open(): void;
  /** Sends one frame; true when nothing more can be sent (the client is gone). */
  send(frame: ReplyFrame): boolean;
  /** The reply ended (or the client went): closes the event stream. */
  end(): void;
  /** The stream stays open for live frames: `stop` ends the follow when the client goes. */
  whenGone(stop: () => void): void;
}

function notFound(): AppError {
  return new AppError('not_found', REPLY_NOT_FOUND);
}

@Injectable()
export class ReplyLookupService {
  constructor(
    private readonly streams: ReplyStreamService,
    private readonly conversations: VisitorConversationReadsService,
  ) {}

  /** The reply's text so far and its status; not_found for a reply of another visitor or none. */
  async status(replyId: string, visitorKey: string): Promise<ReplyStatus> {
    const live = await this.streams.read(replyId, visitorKey);
    if (typeof live === 'object') {
      const last = live.frames[live.frames.length - 1];
      // A reply taken over from a stopped server is written again after its restart frame.
      const text = textOf(live.frames);
      const status: ReplyStatus = { replyId, status: 'streaming', text, seq: last?.seq ?? 0, data: null, error: null };
      if (last?.kind === 'done') return { ...status, status: 'complete', text: last.data.response, data: last.data };
      if (last?.kind === 'error') return { ...status, status: last.code === 'cancelled' ? 'stopped' : 'error', error: { code: last.code, message: last.message } };
      return status;
    }
    if (live === 'forbidden') throw notFound();
    const stored = await this.conversations.storedReply(replyId, visitorKey);
    if (!stored) throw notFound();
    return stored;
  }

  /**
   * Sends the reply's frames after `after` to `sink`, then the live ones until the final frame.
   * A reply whose stream expired comes as its stored final frame alone (chat:done holds the whole
   * text); not_found (before anything is sent) when there is none or it is another visitor's.
   */
  async resume(replyId: string, visitorKey: string, after: number, sink: ReplyFrameSink): Promise<void> {
    let started = false;
    let ended = false;
    const open = () => {
      if (started) return;
      started = true;
      sink.open();
    };
    const result = await this.streams.follow(replyId, visitorKey, after, (frame) => {
      open();
      if (sink.send(frame) || isFinal(frame)) {
        ended = true;
        sink.end();
      }
    });
    if (result.ok) {
      if (ended) return;
      open();
      sink.whenGone(result.stop);
      return;
    }
    if (result.code === 'forbidden') throw notFound();
    const stored = await this.conversations.storedReply(replyId, visitorKey);
    if (!stored || stored.status === 'streaming') throw notFound();
    open();
    const seq = after + 1;
    if (stored.data) sink.send({ seq, kind: 'done', data: stored.data });
    else sink.send({ seq, kind: 'error', code: stored.error?.code ?? 'reply_interrupted', message: stored.error?.message ?? 'The reply was interrupted. Please ask again.' });
    sink.end();
  }

  /** Stops a reply that is streaming; not_found when it is not (any more) or is another visitor's. */
  async cancel(replyId: string, visitorKey: string): Promise<void> {
    const live = await this.streams.read(replyId, visitorKey);
    if (typeof live !== 'object') throw notFound();
    await this.streams.cancel(replyId, visitorKey);
  }
}
