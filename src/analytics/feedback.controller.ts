import { Body, Controller, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Public } from '../auth/public.decorator';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { visitorKeyOf, visitorSecretFrom } from '../conversations/visitor-identity';
import { FeedbackRequestSchema, FeedbackResultSchema, type FeedbackRequest, type FeedbackResult } from '../shared/contracts/analytics';
import { FeedbackService } from './feedback.service';

/**
 * POST /api/feedback: a visitor's thumbs up / down on an agent reply (public, rate-limited per
 * IP), accepted only with the visitor cookie of the reply's conversation.
 */
@Public()
@Controller('api/feedback')
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @Contract({ summary: "Rate a reply (thumbs up or down; null withdraws the vote)",
    description: 'Only the visitor the reply was given to may rate it: send the visitor cookie (`sa_visitor`) of its conversation. Without the cookie: 403; a reply of another visitor is not found (404), like an unknown id.',
    body: FeedbackRequestSchema, data: FeedbackResultSchema, status: 200, errors: [403, 404, 429] })
  async vote(@Body() body: FeedbackRequest, @Req() req: Request): Promise<{ success: true; data: FeedbackResult }> {
    const secret = visitorSecretFrom(req.headers.cookie);
    return { success: true, data: await this.feedback.vote(body, clientAddressOf(req).ip, secret && visitorKeyOf(secret)) };
  }
}
