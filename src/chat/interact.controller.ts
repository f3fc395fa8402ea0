import { Body, CanActivate, Controller, ExecutionContext, Injectable, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { Contract } from '../common/contract';
import { requestIdOf } from '../common/request-id';
import { onClientGone, sendEvent, sendFrame, startEventStream } from '../conversations/reply-sse';
import { ReplyStreamService } from '../conversations/reply-streams';
import { VisitorIdentity } from '../conversations/visitor-identity';
import { InteractRequestSchema, ReplyDataSchema, type ParsedInteractRequest, type ReplyData } from '../shared/contracts/chat';
import { ChatStreamEventSchema } from '../shared/contracts/socket';
import { clientAddressOf } from '../common/client-address';
import { ChatLimitsService } from '../limits/chat-limits.service';
import { ApiKeyRequest, RequireApiKey } from '../api-keys/require-api-key';
import { WIDGET_HEADER } from '../shared/contracts/widgets';
import { WidgetsService } from '../widget/widgets.service';
import { toChatRequest } from './chat-request';
import { ChatService } from './chat.service';

function wantsEventStream(req: Request): boolean {
  return (req.header('accept') ?? '').includes('text/event-stream');
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
 * frames as the socket (`chat:delta`, then `chat:done` or `chat:error`) as server-sent events,
 * after a `chat:start` naming the reply. The exchange is saved in the caller's conversation (the
 * visitor cookie, set on the first call); a caller that goes away does not stop the reply: it can
 * be read or resumed at /interact/replies/{replyId}, and stopped there.
 */
@Public()
@Controller()
export class InteractController {
  constructor(
    private readonly chat: ChatService,
    private readonly streams: ReplyStreamService,
    private readonly visitors: VisitorIdentity,
    private readonly limits: ChatLimitsService,
    private readonly widgets: WidgetsService,
  ) {}

  @Post('interact')
  @UseGuards(InteractAdmission)
  @RequireApiKey('chat', { anonymous: 'unless-required' })
  @Contract({
    summary: 'Ask a question',
    description:
      'The chat request. Answers the whole reply as JSON, or, with `Accept: text/event-stream`, streams it as server-sent events (see ChatStreamEvent): `chat:start` (the replyId), `chat:delta` frames, then `chat:done` or `chat:error`. Errors found before the reply starts are the JSON error envelope in both cases. The exchange is saved in the conversation of the visitor cookie (`sa_visitor`, set by the first call): send it back to continue the conversation (the prompt then gets the stored history; `conversationHistory` is only read from callers without the cookie) and to read, resume or stop a reply at /interact/replies/{replyId}. A caller that goes away does not stop the reply. Through an embedded widget, send its id in `X-Widget-Id` and the visitor token in `X-Visitor-Token` instead of the cookie: a browser call from an origin the widget does not allow is 403, an unknown or deleted widget 404, a vertical it does not offer 403.',
    body: InteractRequestSchema,
    data: ReplyDataSchema,
    content: { 'text/event-stream': { schema: ChatStreamEventSchema, description: 'With Accept: text/event-stream: the reply as server-sent events.' } },
    errors: [401, 403, 404, 413, 415, 429, 503],
  })
  async interact(@Body() body: ParsedInteractRequest, @Req() req: ApiKeyRequest, @Res() res: Response): Promise<void> {
    const request = toChatRequest(body);
    this.chat.admit(request);
    // Through a widget (X-Widget-Id): it must exist, allow the caller's origin, offer the vertical and be within its own limit.
    const widgetHeader = req.header(WIDGET_HEADER);
    let widgetId: string | undefined;
    if (widgetHeader !== undefined) {
      const widget = await this.widgets.require(widgetHeader);
      this.widgets.assertCaller(widget, req.headers, clientAddressOf(req));
      await this.widgets.admitMessage(widget, request.vertical);
      widgetId = widget.id;
    }
    const requestId = requestIdOf(req);
    const visitor = this.visitors.ensure(req, res);
    const sse = wantsEventStream(req);
    // The chat rate limits (per IP, visitor and API key; concurrent replies per visitor): a 429
    // with Retry-After, as JSON, before any event stream starts.
    const slot = await this.limits.admitMessage({ channel: sse ? 'sse' : 'rest', ip: clientAddressOf(req).ip, visitorKey: visitor.key, apiKeyId: req.apiKey?.id });
    if (!sse) {
      const data = await this.chat.run(request, { requestId, channel: 'rest', visitor, slot, widgetId });
      const body: { success: true; data: ReplyData } = { success: true, data };
      res.status(200).json(body);
      return;
    }

    const started = this.chat.start(request, { requestId, channel: 'sse', visitor, slot, widgetId });
    // The frames carry the outcome (chat:done or chat:error).
    started.result.catch(() => undefined);
    startEventStream(res);
    sendEvent(res, 'chat:start', { requestId, replyId: started.replyId });
    const follow = await this.streams.follow(started.replyId, visitor.key, 0, (frame) => {
      if (sendFrame(res, requestId, frame)) res.end();
    });
    // Going away ends only this follow: the reply goes on.
    if (follow.ok && !res.writableEnded) onClientGone(req, res, follow.stop);
  }
}
