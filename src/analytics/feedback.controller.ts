import { Body, Controller, HttpCode, Post, Req, UseInterceptors } from '@nestjs/common';
import type { Request } from 'express';
import { Public } from '../auth/public.decorator';
import type { FeedbackResult } from '../shared/contracts/analytics';
import { parseFeedbackBody } from './dto/feedback.dto';
import { FeedbackService } from './feedback.service';
import { RetryAfterInterceptor } from './retry-after.interceptor';

/** POST /api/feedback: a visitor's thumbs up / down on an agent reply (public, rate-limited per IP). */
@Public()
@Controller('api/feedback')
@UseInterceptors(RetryAfterInterceptor)
export class FeedbackController {
  constructor(private readonly feedback: FeedbackService) {}

  @Post()
  @HttpCode(200)
  async vote(@Body() body: unknown, @Req() req: Request): Promise<{ success: true; data: FeedbackResult }> {
    return { success: true, data: await this.feedback.vote(parseFeedbackBody(body), req.ip) };
  }
}
