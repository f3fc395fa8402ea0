import { Body, CanActivate, Controller, ExecutionContext, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import { requestIdOf } from '../common/request-id';
import { InteractRequestSchema, ReplyDataSchema, type ParsedInteractRequest, type ReplyData } from '../shared/contracts/chat';
import { ChatStreamEventSchema } from '../shared/contracts/socket';
import { toChatRequest } from './chat-request';
import { ChatService } from './chat.service';

function wantsEventStream(req: Request): boolean {
  return (req.header('accept') ?? '').includes('text/event-stream');
}

/** Aborts when the caller goes away before the reply is complete. */
function abortOnClose(req: Request, res: Response): AbortController {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  req.on('aborted', () => controller.abort());
  return controller;
}

/** Before the body is read: a restarting server says so (503), a body that is not JSON is 415. */
@Injectable()
export class InteractAdmission implements CanActivate {
  constructor(private readonly chat: ChatService) {}

  canActivate(context: ExecutionContext): boolean {
    this.chat.assertAccepting();
    if (!context.switchToHttp().getRequest<Request>().is('application/json')) {
      throw new AppError('unsupported_media_type', 'Send the question as JSON (Content-Type: application/json).');
    }
    return true;
  }
}

/**
 * POST /interact: the whole reply as JSON, or — with `Accept: text/event-stream` — the same
 * frames as the socket (`chat:delta`, then `chat:done` or `chat:error`) as server-sent events.
 */
@Public()
@Controller()
export class InteractController {
  constructor(private readonly chat: ChatService) {}

  @Post('interact')
  @UseGuards(InteractAdmission)
  @Contract({
    summary: 'Ask a question',
    description:
      'The chat request of the product spec. Answers the whole reply as JSON, or, with `Accept: text/event-stream`, streams it as server-sent events (see ChatStreamEvent): `chat:delta` frames, then `chat:done` or `chat:error`. Errors found before the reply starts are the JSON error envelope in both cases.',
    body: InteractRequestSchema,
    data: ReplyDataSchema,
    content: { 'text/event-stream': { schema: ChatStreamEventSchema, description: 'With Accept: text/event-stream: the reply as server-sent events.' } },
    errors: [413, 415, 503],
  })
  async interact(@Body() body: ParsedInteractRequest, @Req() req: Request, @Res() res: Response): Promise<void> {
    const request = toChatRequest(body);
    this.chat.admit(request);
    const requestId = requestIdOf(req);
    const controller = abortOnClose(req, res);
    if (!wantsEventStream(req)) {
      const data = await this.chat.run(request, { requestId, channel: 'rest', signal: controller.signal, onFrame: () => undefined });
      const body: { success: true; data: ReplyData } = { success: true, data };
      res.status(200).json(body);
      return;
    }

    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const send = (event: string, payload: unknown) => {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`);
    };
    try {
      const data = await this.chat.run(request, {
        requestId,
        channel: 'sse',
        signal: controller.signal,
        onFrame: (text) => send('chat:delta', { requestId, text }),
      });
      send('chat:done', { requestId, data });
    } catch (error) {
      const payload =
        error instanceof AppError
          ? { code: error.code, message: error.message }
          : { code: 'internal_error', message: 'Something went wrong on our side' };
      send('chat:error', { requestId, ...payload });
    }
    res.end();
  }
}
