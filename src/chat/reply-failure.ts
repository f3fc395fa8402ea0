/**
 * How a reply that did not finish ends: why the pipeline stopped it, and the AppError (with its
 * usage status) the visitor and the usage event get for each cause.
 */
import type { Logger } from '@nestjs/common';
import type { UsageStatus } from '../analytics/usage-event.entity';
import { AppError } from '../common/app-error';
import { LlmError } from '../llm/llm.types';
import type { ErrorCode } from '../shared/contracts/http';

/** Why a running chat was stopped by us (rather than by the visitor). */
/** `handoff`: a person was asked for while the reply streamed (the assistant stays quiet from then on). */
export type StopReason = 'agent_timeout' | 'chat_timeout' | 'shutdown' | 'taken_over' | 'handoff';

/** What a reply stopped because a person took the conversation over ends with (code `cancelled`). */
export const HANDOFF_STOP_MESSAGE = 'A person from the team is taking over this conversation.';

/** Who stopped a running reply: us (StopReason) or the visitor (`cancelled`). */
export type StopCause = StopReason | 'cancelled';

/** The error frame's code and message (an unexpected error says nothing about its inside). */
export function errorBody(error: unknown): { code: string; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: 'Something went wrong on our side' };
}

/** The error a failed or stopped reply ends with, and its usage status; an unexpected error is logged. */
export function describeFailure(error: unknown, stopReason: StopCause | undefined, logger: Logger): { status: UsageStatus; error: AppError } {
  if (stopReason === 'cancelled') return { status: 'cancelled', error: new AppError('cancelled', 'The request was cancelled.') };
  if (stopReason === 'handoff') return { status: 'cancelled', error: new AppError('cancelled', HANDOFF_STOP_MESSAGE) };
  if (stopReason === 'shutdown') {
    return { status: 'error', error: new AppError('server_restarting', 'The server is restarting; it will be back in a moment') };
  }
  if (stopReason === 'chat_timeout') {
    return { status: 'error', error: new AppError('chat_timeout', 'The reply took too long') };
  }
  if (stopReason === 'agent_timeout') {
    return { status: 'error', error: new AppError('provider_timeout', 'The AI provider did not respond in time') };
  }
  if (error instanceof AppError) return { status: 'error', error };
  if (error instanceof LlmError) {
    const code: ErrorCode =
      error.kind === 'rate_limited' ? 'provider_rate_limited' : error.kind === 'timeout' ? 'provider_timeout' : error.kind === 'cancelled' ? 'cancelled' : 'provider_error';
    return { status: error.kind === 'cancelled' ? 'cancelled' : 'error', error: new AppError(code, error.message) };
  }
  logger.error('Chat pipeline failed', error instanceof Error ? error.stack : String(error));
  return { status: 'error', error: new AppError('provider_error', 'The assistant could not produce a reply') };
}
