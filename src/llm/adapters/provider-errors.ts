/**
 * Turns whatever a vendor SDK throws into an `LlmError` the chat pipeline can act on.
 *
 * The messages are written for the visitor who sees them: plain words, no vendor text. Vendor
 * error bodies are never passed through, because some echo the API key they refused.
 */
import * as Anthropic from '@anthropic-ai/sdk';
import * as OpenAI from 'openai';
import { LlmError } from '../llm.types';

export const LLM_ERROR_MESSAGES = {
  rate_limited: 'The AI provider is rate limiting requests right now',
  auth: 'The AI provider did not accept the credentials configured for this assistant; an administrator needs to check its API key',
  missingKey: 'No API key is configured for this AI provider; an administrator needs to add one',
  missingAddress: 'No address is configured for this AI provider; an administrator needs to add one',
  cancelled: 'The request was cancelled',
  timeout: 'The AI provider took too long to answer',
  unreachable: 'The AI provider could not be reached',
  bad_response: 'The AI provider sent a reply that could not be read',
  interrupted: 'The connection to the AI provider was interrupted',
  streamError: 'The AI provider reported an error while answering',
  unknown: 'The AI provider could not complete the reply',
} as const;

/** The error to throw once `signal` has aborted: its reason when that is an LlmError, else cancelled/timeout. */
export function abortError(signal: AbortSignal): LlmError {
  const reason: unknown = signal.reason;
  if (reason instanceof LlmError) return reason;
  // AbortSignal.timeout() aborts with a DOMException named TimeoutError (checked by name: the
  // exception may come from another realm, e.g. under jest).
  if ((reason as { name?: unknown } | undefined)?.name === 'TimeoutError') {
    return new LlmError('timeout', LLM_ERROR_MESSAGES.timeout);
  }
  return new LlmError('cancelled', LLM_ERROR_MESSAGES.cancelled);
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/** Maps an error from either SDK (or from reading its stream) to an LlmError. */
export function toLlmError(error: unknown, signal: AbortSignal): LlmError {
  if (error instanceof LlmError) return error;
  if (signal.aborted) return abortError(signal);

  if (error instanceof OpenAI.APIUserAbortError || error instanceof Anthropic.APIUserAbortError) {
    return new LlmError('cancelled', LLM_ERROR_MESSAGES.cancelled);
  }
  if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof Anthropic.APIConnectionTimeoutError) {
    return new LlmError('timeout', LLM_ERROR_MESSAGES.timeout);
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof Anthropic.APIConnectionError) {
    return new LlmError('unreachable', LLM_ERROR_MESSAGES.unreachable);
  }
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    return typeof error.status === 'number' ? fromStatus(error.status) : fromStreamedError(error);
  }
  if (error instanceof SyntaxError) return new LlmError('bad_response', LLM_ERROR_MESSAGES.bad_response);
  if (isNetworkFailure(error)) return new LlmError('upstream_error', LLM_ERROR_MESSAGES.interrupted);
  return new LlmError('upstream_error', LLM_ERROR_MESSAGES.unknown);
}

/** An HTTP error status from the vendor. */
export function fromStatus(status: number): LlmError {
  if (status === 429) return new LlmError('rate_limited', LLM_ERROR_MESSAGES.rate_limited, status);
  if (status === 401 || status === 403) return new LlmError('auth', LLM_ERROR_MESSAGES.auth, status);
  if (status === 408 || status === 504) return new LlmError('timeout', LLM_ERROR_MESSAGES.timeout, status);
  return new LlmError(
    'upstream_error',
    `The AI provider returned an error (HTTP ${status})`,
    status,
  );
}

/** An error event sent inside a 200 stream (Anthropic `event: error`, OpenAI `data: {"error":...}`). */
function fromStreamedError(error: OpenAI.APIError | Anthropic.APIError): LlmError {
  const body = error.error as { type?: unknown; code?: unknown; error?: { type?: unknown } } | undefined;
  const kind = [('type' in error ? error.type : undefined), body?.type, body?.code, body?.error?.type]
    .filter((v): v is string => typeof v === 'string')
    .join(' ');
  if (/rate_limit/.test(kind)) return new LlmError('rate_limited', LLM_ERROR_MESSAGES.rate_limited);
  if (/authentication|invalid_api_key|permission/.test(kind)) return new LlmError('auth', LLM_ERROR_MESSAGES.auth);
  return new LlmError('upstream_error', LLM_ERROR_MESSAGES.streamError);
}

/** undici's "terminated" / socket errors while reading a response body. */
function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = (error as { code?: unknown }).code ?? cause?.code;
  return (
    (error instanceof TypeError && /terminated|fetch failed|network/i.test(error.message)) ||
    (typeof code === 'string' && /^(ECONN|EPIPE|ETIMEDOUT|UND_ERR)/.test(code))
  );
}

/** Why a key test (a models listing, or one embeddings call) failed, for the admin who asked. */
export function keyTestReason(error: unknown, timeoutMs: number): string {
  if (error instanceof LlmError) {
    switch (error.kind) {
      case 'auth':
        return error.status ? `The provider refused the key (HTTP ${error.status}).` : error.message;
      case 'timeout':
      case 'cancelled':
        return `The provider did not answer within ${Math.round(timeoutMs / 100) / 10} s.`;
      case 'unreachable':
        return 'The provider could not be reached (check the address and the network).';
      case 'rate_limited':
        return 'The provider is rate limiting requests; the key may be valid, try again shortly.';
      default:
        return error.message;
    }
  }
  return 'The key could not be tested.';
}
