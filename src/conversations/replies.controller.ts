import { Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import { requestIdOf } from '../common/request-id';
import { ReplyIdSchema, ReplyStatusSchema, ReplyStreamQuerySchema, type ReplyStatus } from '../shared/contracts/conversations';
import { ChatStreamEventSchema } from '../shared/contracts/socket';
import { REPLY_NOT_FOUND, ReplyLookupService } from './reply-lookup.service';
import { onClientGone, sendFrame, startEventStream } from './reply-sse';
import { VisitorIdentity } from './visitor-identity';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

const NOT_FOUND = REPLY_NOT_FOUND;

function replyIdOf(raw: string): string {
  const parsed = ReplyIdSchema.safeParse(raw);
  if (!parsed.success) throw new AppError('not_found', NOT_FOUND);
  return parsed.data;
}

/**
 * Replies by id, for POST /interact callers and any client that lost its connection: read one,
 * resume its event stream, stop it (ReplyLookupService). Only the visitor who asked (their
 * cookie, set by the first /interact call) can; for anyone else the reply does not exist.
 */
@Public()
@Controller('interact/replies')
export class RepliesController {
  constructor(
    private readonly replies: ReplyLookupService,
    private readonly visitors: VisitorIdentity,
  ) {}

  @Get(':replyId')
  @Contract({ summary: 'A reply by id: its text so far and its status (streaming, complete, error, stopped)', data: ReplyStatusSchema, errors: [404] })
  async get(@Param('replyId') raw: string, @Req() req: Request): Promise<Envelope<ReplyStatus>> {
    const replyId = replyIdOf(raw);
    const visitor = this.visitors.fromHeaders(req.headers);
    if (!visitor) throw new AppError('not_found', NOT_FOUND);
    return { success: true, data: await this.replies.status(replyId, visitor.key) };
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
    await this.replies.resume(replyId, visitor.key, after, {
      open: () => startEventStream(res),
      send: (frame) => sendFrame(res, requestId, frame),
      end: () => res.end(),
      whenGone: (stop) => onClientGone(req, res, stop),
    });
  }

  @Post(':replyId/cancel')
  @Contract({ summary: 'Stop a reply that is streaming (it ends with chat:error, code cancelled)', data: ReplyStatusSchema.pick({ replyId: true }).meta({ id: 'ReplyCancelled' }), status: 200, errors: [404] })
  async cancel(@Param('replyId') raw: string, @Req() req: Request): Promise<Envelope<{ replyId: string }>> {
    const replyId = replyIdOf(raw);
    const visitor = this.visitors.fromHeaders(req.headers);
    if (!visitor) throw new AppError('not_found', NOT_FOUND);
    await this.replies.cancel(replyId, visitor.key);
    return { success: true, data: { replyId } };
  }
}
