import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { requestIdOf } from '../common/request-id';
import type { ReplyData } from '../shared/contracts/chat';
import { validateChatRequest } from './chat-request.validator';
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

/**
 * POST /interact: the whole reply as JSON, or — with `Accept: text/event-stream` — the same
 * frames as the socket (`chat:delta`, then `chat:done` or `chat:error`) as server-sent events.
 */
@Public()
@Controller()
export class InteractController {
  constructor(private readonly chat: ChatService) {}

  @Post('interact')
  async interact(@Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    this.chat.assertAccepting();
    if (!req.is('application/json')) {
      throw new AppError('unsupported_media_type', 'Send the question as JSON (Content-Type: application/json).');
    }
    const request = validateChatRequest(body);
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
