/**
 * The HTTP envelope every endpoint answers with, the error codes clients can branch on, and the
 * health endpoints' payloads. Schemas are the contract; the types are inferred from them.
 */
import { z } from 'zod';

/** Stable, machine-readable error codes; the message is for people and may change. */
export const ERROR_CODES = Object.freeze([
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
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'quota_exhausted',
  'budget_exhausted',
  'provider_error',
  'provider_rate_limited',
  'provider_timeout',
  'chat_timeout',
  'cancelled',
  'reply_interrupted',
  'server_restarting',
  'service_unavailable',
  'database_unavailable',
  'internal_error',
] as const);

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

export const ErrorBodySchema = z.object({
  /** One of ERROR_CODES (a newer server may add codes: treat unknown ones as their HTTP status). */
  code: z.string().meta({ description: `One of: ${ERROR_CODES.join(', ')}.` }),
  message: z.string().meta({ description: 'For people; may change. Shown to the user as it is.' }),
  /** rate_limited, quota_exhausted: seconds until a retry can succeed (also the Retry-After header). */
  retryAfter: z.number().int().optional().meta({ description: 'rate_limited, quota_exhausted: seconds until a retry can succeed (the Retry-After header says the same).' }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Every failed request: the code to branch on, a human message, and the id to quote in logs. */
export const ErrorEnvelopeSchema = z
  .object({ success: z.literal(false), error: ErrorBodySchema, requestId: z.string() })
  .meta({ id: 'ErrorEnvelope', description: 'Every failed request. `requestId` is also sent as the X-Request-Id header.' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}
export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

/** `{ success: true, data }` around a reply schema (plus any extra top-level fields). */
export function envelope<S extends z.ZodType, E extends z.core.$ZodLooseShape = Record<never, never>>(data: S, extra?: E) {
  return z.object({ success: z.literal(true), data, ...(extra ?? ({} as E)) });
}

export const HealthStatusSchema = z.enum(['healthy', 'degraded', 'unhealthy']);
export type HealthStatus = z.infer<typeof HealthStatusSchema>;

/**
 * GET /health. `ok` true means the service can answer chats (the client shows "connected").
 * 'draining': the server is shutting down (503 from the moment it got SIGTERM); go to another.
 */
export const HealthResponseSchema = z.object({
  ok: z.boolean(),
  status: z.union([HealthStatusSchema, z.literal('draining')]),
  database: z.object({ ok: z.boolean(), driver: z.string() }),
  queue: z.object({ ok: z.boolean(), kind: z.string() }),
  /** Hybrid retrieval: 'off', 'ok', or 'degraded' (the last embedding call failed or was late: searches use BM25 alone). */
  embeddings: z.object({ status: z.enum(['off', 'ok', 'degraded']) }).optional(),
  uptimeSeconds: z.number(),
  version: z.string(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/** The whole GET /health body: `ok` and `status` at the top for simple probes, the details in `data`. */
export const HealthBodySchema = z
  .object({ success: z.boolean(), ok: z.boolean(), status: z.union([HealthStatusSchema, z.literal('draining')]), data: HealthResponseSchema })
  .meta({ id: 'Health', description: 'Answered with 200 when `ok`, else 503 (same body).' });

export const AgentHealthSchema = z.object({
  id: z.string(),
  name: z.string(),
  vertical: z.string(),
  provider: z.string(),
  model: z.string(),
  healthy: z.boolean(),
  /** ISO timestamp of the agent's last request, or null when it has not served one. */
  lastActive: z.string().nullable(),
  recentRequests: z.number(),
  recentErrors: z.number(),
});
export type AgentHealth = z.infer<typeof AgentHealthSchema>;

/** GET /agents/health `data`. */
export const AgentsHealthResponseSchema = z.object({ agents: z.array(AgentHealthSchema), overallHealth: HealthStatusSchema }).meta({ id: 'AgentsHealth' });
export type AgentsHealthResponse = z.infer<typeof AgentsHealthResponseSchema>;
