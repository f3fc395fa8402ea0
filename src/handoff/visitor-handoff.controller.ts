import { Body, Controller, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { RATE_LIMITER, type RateLimiter, type RateLimitRule } from '../common/rate-limit/rate-limiter';
import { VisitorIdentity } from '../conversations/visitor-identity';
import { HandoffRequestResultSchema, HandoffRequestSchema, type HandoffRequest } from '../shared/contracts/handoff';
import { HandoffClock } from './handoff-clock';
import { HandoffService } from './handoff.service';

/** Requests for a person per visitor, and per address (many visitors behind one address: an office). */
const PER_VISITOR: RateLimitRule = { limit: 10, windowMs: 60_000 };
const PER_ADDRESS: RateLimitRule = { limit: 30, windowMs: 60_000 };

/**
 * The visitor asks for a person ("Talk to a person" on the chat page and in the widget). Public:
 * the visitor cookie (or a widget's visitor token) says whose conversation. Rate limited per
 * visitor and per address (429 with Retry-After).
 */
@Public()
@Controller('api/visitor/conversations')
export class VisitorHandoffController {
  constructor(
    private readonly handoff: HandoffService,
    private readonly visitors: VisitorIdentity,
    private readonly clock: HandoffClock,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  @Post('handoff')
  @Contract({
    summary: 'Ask for a person in a vertical (and legal jurisdiction); optionally leave an email address and a message',
    description:
      "The visitor's open conversation of the vertical is handed to a person (a new one is started when there is none): the assistant stays quiet until a member resolves it. The answer gives the place in the queue and the expected wait, or, outside the vertical's business hours, the next opening time in the visitor's language and time zone. Asking again while waiting changes nothing (it may add the message or email).",
    body: HandoffRequestSchema,
    data: HandoffRequestResultSchema,
    status: 200,
    errors: [429],
  })
  async request(@Body() body: HandoffRequest, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const visitor = this.visitors.fromHeaders(req.headers) ?? this.visitors.ensure(req, res);
    const now = this.clock.now();
    for (const [key, rule] of [
      [`handoff:visitor:${visitor.key}`, PER_VISITOR],
      [`handoff:ip:${clientAddressOf(req).ip ?? 'unknown'}`, PER_ADDRESS],
    ] as const) {
      const result = await this.limiter.hit(key, rule, now);
      if (!result.allowed) {
        const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
        res.setHeader('Retry-After', String(retryAfter));
        throw new AppError('rate_limited', 'Too many requests for a person. Please wait a moment.', { retryAfterSeconds: retryAfter });
      }
    }
    res.status(200);
    return { success: true, data: await this.handoff.requestByVisitor(visitor, body) };
  }
}
