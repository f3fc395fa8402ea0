import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import { requestIdOf } from '../common/request-id';
import { ReplyIdSchema, ReplyStatusSchema, ReplyStreamQuerySchema, type ReplyStatus } from '../shared/contracts/conversations';
import { ChatStreamEventSchema } from '../shared/contracts/socket';
import { ConversationsService } from './conversations.service';
import { onClientGone, sendFrame, startEventStream } from './reply-sse';
import { isFinal, ReplyStreamService, textOf } from './reply-streams';
import { VisitorIdentity } from './visitor-identity';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

const NOT_FOUND = 'That reply was not found.';

function replyIdOf(raw: string): string {
  const parsed = ReplyIdSchema.safeParse(raw);
  if (!parsed.success) throw new AppError('not_found', NOT_FOUND);
  return parsed.data;
}

/**
 * Replies by id, for POST /interact callers and any client that lost its connection: read one,
 * resume its event stream, stop it. Only the visitor who asked (their cookie, set by the first
 * /interact call) can; for anyone else the reply does not exist.
 */
@Public()
@Controller('interact/replies')
export class RepliesController {
  constructor(
    private readonly streams: ReplyStreamService,
    private readonly conversations: ConversationsService,
    private readonly visitors: VisitorIdentity,
  ) {}

  @Get(':replyId')
  @Contract({ summary: 'A reply by id: its text so far and its status (streaming, complete, error, stopped)', data: ReplyStatusSchema, errors: [404] })
  async get(@Param('replyId') raw: string, @Req() req: Request): Promise<Envelope<ReplyStatus>> {
    const replyId = replyIdOf(raw);
    const visitor = this.visitors.fromHeaders(req.headers);
    if (!visitor) throw new AppError('not_found', NOT_FOUND);
    const live = await this.streams.read(replyId, visitor.key);
    if (typeof live === 'object') {
      const last = live.frames[live.frames.length - 1];
      // A reply taken over from a stopped server is written again after its restart frame.
      const text = textOf(live.frames);
      const status: ReplyStatus = { replyId, status: 'streaming', text, seq: last?.seq ?? 0, data: null, error: null };
      if (last?.kind === 'done') return { success: true, data: { ...status, status: 'complete', text: last.data.response, data: last.data } };
      if (last?.kind === 'error') return { success: true, data: { ...status, status: last.code === 'cancelled' ? 'stopped' : 'error', error: { code: last.code, message: last.message } } };
      return { success: true, data: status };
    }
    if (live === 'forbidden') throw new AppError('not_found', NOT_FOUND);
    const stored = await this.conversations.storedReply(replyId, visitor.key);
    if (!stored) throw new AppError('not_found', NOT_FOUND);
    return { success: true, data: stored };
  }

  @Get(':replyId/stream')
  @Contract({
    summary: 'Resume a reply as server-sent events after the frame named by Last-Event-ID (or ?after)',
    description:
      'The frames after that number, then the live ones, then chat:done or chat:error (each with its `id:`). A reply that ended more than a minute ago comes as its final frame alone (chat:done carries the whole text).',
    query: ReplyStreamQuerySchema,
    content: { 'text/event-stream': { schema: ChatStreamEventSchema, description: 'The rest of the reply as server-sent events.' } },
    errors: [404],
  })
  async stream(@Param('replyId') raw: string, @Query() query: z.output<typeof ReplyStreamQuerySchema>, @Req() req: Request, @Res() res: Response): Promise<void> {
    const replyId = replyIdOf(raw);
    const visitor = this.visitors.fromHeaders(req.headers);
    if (!visitor) throw new AppError('not_found', NOT_FOUND);
    const lastEventId = req.header('last-event-id');
    const after = lastEventId && /^\d{1,9}$/.test(lastEventId) ? Number(lastEventId) : (query.after ?? 0);
    const requestId = requestIdOf(req);
    let started = false;
    let ended = false;
    const result = await this.streams.follow(replyId, visitor.key, after, (frame) => {
      if (!started) {
        started = true;
        startEventStream(res);
      }
      if (sendFrame(res, requestId, frame) || isFinal(frame)) {
        ended = true;
        res.end();
      }
    });
    if (result.ok) {
      if (ended) return;
      if (!started) {
        started = true;
        startEventStream(res);
      }
      onClientGone(req, res, result.stop);
      return;
    }
    if (result.code === 'forbidden') throw new AppError('not_found', NOT_FOUND);
    // The stream expired: the stored reply's final frame (chat:done holds the whole text).
    const stored = await this.conversations.storedReply(replyId, visitor.key);
    if (!stored || stored.status === 'streaming') throw new AppError('not_found', NOT_FOUND);
    startEventStream(res);
    const seq = after + 1;
    if (stored.data) sendFrame(res, requestId, { seq, kind: 'done', data: stored.data });
    else sendFrame(res, requestId, { seq, kind: 'error', code: stored.error?.code ?? 'reply_interrupted', message: stored.error?.message ?? 'The reply was interrupted. Please ask again.' });
    res.end();
  }

  @Post(':replyId/cancel')
  @Contract({ summary: 'Stop a reply that is streaming (it ends with chat:error, code cancelled)', data: ReplyStatusSchema.pick({ replyId: true }).meta({ id: 'ReplyCancelled' }), status: 200, errors: [404] })
  async cancel(@Param('replyId') raw: string, @Req() req: Request): Promise<Envelope<{ replyId: string }>> {
    const replyId = replyIdOf(raw);
    const visitor = this.visitors.fromHeaders(req.headers);
    const live = visitor ? await this.streams.read(replyId, visitor.key) : 'not_found';
    if (!visitor || typeof live !== 'object') throw new AppError('not_found', NOT_FOUND);
    await this.streams.cancel(replyId, visitor.key);
    return { success: true, data: { replyId } };
  }
}
