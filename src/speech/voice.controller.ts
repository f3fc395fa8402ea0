import { Controller, Get, HttpCode, Inject, Post, Query, Req, Res, UploadedFile, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiConsumes } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import { clientAddressOf } from '../common/client-address';
import { Contract } from '../common/contract';
import { RATE_LIMITER, type RateLimiter, type RateLimitRule } from '../common/rate-limit/rate-limiter';
import { requestIdOf } from '../common/request-id';
import { VisitorIdentity } from '../conversations/visitor-identity';
import { LimitsClock } from '../limits/limits-clock';
import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';
import { TranscriptionQuerySchema, TranscriptionSchema, VOICE_LIMITS, VOICE_MESSAGES, VoiceAvailabilitySchema, type Transcription, type TranscriptionQuery, type VoiceAvailability } from '../shared/contracts/speech';
import { WIDGET_HEADER } from '../shared/contracts/widget-messages';
import { WidgetsService } from '../widget/widgets.service';
import { readAudioFile } from './audio-file';
import { SpeechService } from './speech.service';
import { VoiceUploadInterceptor } from './voice-upload.interceptor';

/** Transcriptions per visitor, and per address (many visitors behind one address: an office). */
const PER_VISITOR: RateLimitRule = { limit: 10, windowMs: 60_000 };
const PER_ADDRESS: RateLimitRule = { limit: 30, windowMs: 60_000 };

/**
 * The microphone where the browser has no speech recognition (the chat page and the widget): whether
 * a provider is set, and one recording turned into text. Public, rate limited per visitor and
 * address. A cross-origin browser POST is 403 like every state-changing /api call (AuthGuard); the
 * widget's iframe calls from the assistant's origin with X-Widget-Id, checked like its other calls
 * (unknown or deleted widget 404, a caller it does not allow 403), and its usage counts per widget.
 */
@Public()
@Controller('api')
export class VoiceController {
  constructor(
    private readonly speech: SpeechService,
    private readonly widgets: WidgetsService,
    private readonly visitors: VisitorIdentity,
    private readonly clock: LimitsClock,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
  ) {}

  @Get('public/voice')
  @Contract({ summary: 'Whether recordings can be transcribed here (a speech-to-text provider is set), and their limits', data: VoiceAvailabilitySchema })
  async availability(): Promise<Envelope<VoiceAvailability>> {
    return { success: true, data: await this.speech.availability() };
  }

  @Post('voice/transcriptions')
  @HttpCode(200)
  @UseInterceptors(VoiceUploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ required: true, schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: `The recording: WAV, WebM, Ogg, MP3, MP4/M4A or FLAC; at most 2 MB and 60 seconds.` } } } })
  @Contract({
    summary: 'Turn a recording into text (the microphone without browser speech recognition)',
    description:
      `The multipart field \`file\`: a WAV, WebM, Ogg, MP3, MP4/M4A or FLAC recording (checked by its bytes, not its name or type), at most ${VOICE_LIMITS.maxBytes / (1024 * 1024)} MB and ${VOICE_LIMITS.maxSeconds} seconds. ` +
      'It goes to the speech-to-text provider set in the Configuration tab; each call is a usage event with its cost. ' +
      'A larger file is 413, anything but audio 415, a longer recording 400, no provider set 503, a provider failure 502 (503 when it rate limits), too many calls 429 with Retry-After. ' +
      'Through an embedded widget, send its id in `X-Widget-Id` (and the visitor token in `X-Visitor-Token`).',
    query: TranscriptionQuerySchema,
    data: TranscriptionSchema,
    status: 200,
    errors: [403, 404, 413, 415, 429, 502, 503],
  })
  async transcribe(@UploadedFile() file: Express.Multer.File, @Query() query: TranscriptionQuery, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<Envelope<Transcription>> {
    const widgetHeader = req.header(WIDGET_HEADER);
    let widgetId: string | undefined;
    if (widgetHeader !== undefined) {
      const widget = await this.widgets.require(widgetHeader);
      this.widgets.assertCaller(widget, req.headers, clientAddressOf(req));
      widgetId = widget.id;
    }
    const visitor = this.visitors.fromHeaders(req.headers) ?? this.visitors.ensure(req, res);
    const now = this.clock.now();
    for (const [key, rule] of [
      [`voice:visitor:${visitor.key}`, PER_VISITOR],
      [`voice:ip:${clientAddressOf(req).ip ?? 'unknown'}`, PER_ADDRESS],
    ] as const) {
      const result = await this.limiter.hit(key, rule, now);
      if (!result.allowed) {
        const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
        res.setHeader('Retry-After', String(retryAfter));
        throw new AppError('rate_limited', 'Too many recordings. Please wait a moment.', { retryAfterSeconds: retryAfter });
      }
    }
    const audio = readAudioFile(file.buffer);
    if (!audio) throw new AppError('unsupported_media_type', VOICE_MESSAGES.notAudio);
    if (audio.seconds !== null && audio.seconds > VOICE_LIMITS.maxSeconds + 0.5) throw new AppError('validation_failed', VOICE_MESSAGES.tooLong(audio.seconds));
    const data = await this.speech.transcribe(file.buffer, audio, { requestId: requestIdOf(req), widgetId, language: query.language });
    return { success: true, data };
  }
}
