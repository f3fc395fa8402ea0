/**
 * The HTTP envelope every endpoint answers with, the error codes clients can branch on, and the
 * health endpoints' payloads.
 */

/** Stable, machine-readable error codes; the message is for people and may change. */
export type ErrorCode =
  | 'validation_failed'
  | 'query_empty'
  | 'query_too_long'
  | 'unknown_vertical'
  | 'vertical_disabled'
  | 'jurisdiction_required'
  | 'unknown_jurisdiction'
  | 'unknown_language'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'provider_error'
  | 'provider_rate_limited'
  | 'provider_timeout'
  | 'chat_timeout'
  | 'cancelled'
  | 'server_restarting'
  | 'service_unavailable'
  | 'internal_error';

export const ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  'validation_failed',
  'query_empty',
  'query_too_long',
  'unknown_vertical',
  'vertical_disabled',
  'jurisdiction_required',
  'unknown_jurisdiction',
  'unknown_language',
  'not_found',
  'unauthorized',
  'forbidden',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'provider_error',
  'provider_rate_limited',
  'provider_timeout',
  'chat_timeout',
  'cancelled',
  'server_restarting',
  'service_unavailable',
  'internal_error',
] satisfies ErrorCode[]);

export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

export interface ErrorBody {
  code: ErrorCode | string;
  message: string;
}

/** Every failed request: the code to branch on, a human message, and the id to quote in logs. */
export interface ErrorEnvelope {
  success: false;
  error: ErrorBody;
  requestId: string;
}

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}

export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';

/** GET /health. `ok` true means the service can answer chats (the client shows "connected"). */
export interface HealthResponse {
  ok: boolean;
  status: HealthStatus;
  database: { ok: boolean; driver: string };
  queue: { ok: boolean; kind: string };
  uptimeSeconds: number;
  version: string;
}

export interface AgentHealth {
  id: string;
  name: string;
  vertical: string;
  provider: string;
  model: string;
  healthy: boolean;
  /** ISO timestamp of the agent's last request, or null when it has not served one. */
  lastActive: string | null;
  recentRequests: number;
  recentErrors: number;
}

/** GET /agents/health `data`. */
export interface AgentsHealthResponse {
  agents: AgentHealth[];
  overallHealth: HealthStatus;
}
