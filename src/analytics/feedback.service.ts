/**
 * Reply feedback: a thumbs up or down on an agent reply from the chat page, recorded against the
 * reply's usage event. One vote per reply (the reply id is the key); voting again changes it and
 * a null vote withdraws it. Public, so it is rate-limited per IP address. Only the visitor the
 * reply was given to may rate it: the request must carry the visitor cookie of the reply's
 * conversation (a reply id alone proves nothing: it travels in transcripts, exports and logs), so
 * nobody else can replace a visitor's vote or open a knowledge gap with a thumbs-down. A request
 * without the cookie is refused (403); another visitor's reply is unknown to the caller (404, as
 * an unknown id). The vote is also stored on the reply's conversation message
 * (ConversationsService.recordVote).
 */
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { RATE_LIMITER, RateLimiter } from '../common/rate-limit/rate-limiter';
import { ConversationsService } from '../conversations/conversations.service';
import { portableSql } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import type { FeedbackRequest, FeedbackResult } from '../shared/contracts/analytics';
import { AnalyticsClock } from './analytics-clock';
import { AnalyticsLiveService } from './analytics-live.service';
import { UsageRecorderService } from './usage-recorder.service';

/** Votes (and changes of vote) one IP address may send per minute. */
export const FEEDBACK_RULE = { limit: 60, windowMs: 60_000 };
interface ReplyRow {
  id: string;
  agent_id: string;
  created_at: string | number;
  status: string;
}

@Injectable()
export class FeedbackService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly recorder: UsageRecorderService,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly live: AnalyticsLiveService,
    private readonly clock: AnalyticsClock,
    private readonly conversations: ConversationsService,
  ) {}

  /** `visitorKey`: the visitor the request's cookie names (undefined without one). */
  async vote(request: FeedbackRequest, ip: string | undefined, visitorKey: string | undefined): Promise<FeedbackResult> {
    const slot = await this.limiter.hit(`feedback:${ip ?? 'unknown'}`, FEEDBACK_RULE, Date.now());
    if (!slot.allowed) {
      const seconds = Math.max(1, Math.ceil(slot.retryAfterMs / 1000));
      throw new AppError('rate_limited', `Too many votes. Please try again in ${seconds} seconds.`, { retryAfterSeconds: seconds });
    }
    if (!visitorKey) throw new AppError('forbidden', 'Only the visitor who got this reply can rate it. Rate it from the chat page where it was given.');
    const [reply, owner] = await Promise.all([this.findReply(request.replyId), this.conversations.replyOwner(request.replyId)]);
    if (!reply || reply.status !== 'success' || owner !== visitorKey) throw new AppError('not_found', 'That reply was not found.');
    const sql = (text: string) => portableSql(this.dataSource, text);
    const now = this.clock.now();
    await queuedWrite(this.dataSource, () =>
      request.vote === null
        ? this.dataSource.query(sql('DELETE FROM reply_feedback WHERE reply_id = $1'), [reply.id])
        : this.dataSource.query(
            sql(`INSERT INTO reply_feedback (reply_id, vote, agent_id, reply_created_at, created_at, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $5)
                 ON CONFLICT (reply_id) DO UPDATE SET vote = excluded.vote, updated_at = excluded.updated_at`),
            [reply.id, request.vote, reply.agent_id, Number(reply.created_at), now],
          ),
    );
    this.live.noteVote();
    // The vote is also kept on the reply's message (the chat page after a reload, the console's
    // feedback filter, knowledge gaps).
    await this.conversations.recordVote(reply.id, request.vote);
    return { replyId: reply.id, vote: request.vote };
  }

  /**
   * The reply's usage event. Every server stores it before the visitor gets the reply (and so its
   * id), so one read answers; only an event this server still holds after a failed write (a
   * database outage) is written first. An unknown id is a 404 at once.
   */
  private async findReply(id: string): Promise<ReplyRow | undefined> {
    const find = async () => {
      const rows: ReplyRow[] = await this.dataSource.query(
        portableSql(this.dataSource, 'SELECT id, agent_id, created_at, status FROM usage_events WHERE id = $1'),
        [id],
      );
      return rows[0];
    };
    const reply = await find();
    if (reply || !this.recorder.holds(id)) return reply;
    await this.recorder.flush();
    return find();
  }
}
