import { Body, Controller, Post, Req, UseInterceptors } from '@nestjs/common';
import type { Request } from 'express';
import { Public } from '../auth/public.decorator';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { FeedbackRequestSchema, FeedbackResultSchema, type FeedbackRequest, type FeedbackResult } from '../shared/contracts/analytics';
import { FeedbackService } from './feedback.service';
import { RetryAfterInterceptor } from './retry-after.interceptor';

/** POST /api/feedback: a visitor's thumbs up / down on an agent reply (public, rate-limited per IP). */
@Public()
@Controller('api/feedback')
@UseInterceptors(RetryAfterInterceptor)
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @Contract({ summary: "Rate a reply (thumbs up or down; null withdraws the vote)", body: FeedbackRequestSchema, data: FeedbackResultSchema, status: 200, errors: [404, 429] })
  async vote(@Body() body: FeedbackRequest, @Req() req: Request): Promise<{ success: true; data: FeedbackResult }> {
    return { success: true, data: await this.feedback.vote(body, clientAddressOf(req).ip) };
  }
}
