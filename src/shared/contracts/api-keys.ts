/**
 * API keys for machine channels: what a key may be used for (scopes), the console's issue form
 * (the same schema checks it in the browser and on the server) and the list.
 */
import { z } from 'zod';
import { body, integer, optional, text, timestamp } from './rules';

/** chat: /interact. knowledge:read: reading the knowledge base. a2a, mcp: those protocols' endpoints. */
export const API_KEY_SCOPES = ['chat', 'knowledge:read', 'a2a', 'mcp'] as const;
export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES, { error: `Each scope must be one of ${API_KEY_SCOPES.join(', ')}` });
export type ApiKeyScope = z.infer<typeof ApiKeyScopeSchema>;

export const API_KEY_NAME_MAX = 100;
export const API_KEY_RATE_LIMIT_MAX = 100_000;

/** POST /api/api-keys. */
export const ApiKeyCreateSchema = body({
  name: text('Name', API_KEY_NAME_MAX, { required: true }),
  scopes: z
    .array(ApiKeyScopeSchema, { error: 'Choose at least one scope' })
    .min(1, 'Choose at least one scope')
    .max(API_KEY_SCOPES.length, 'Each scope can be chosen once')
    .refine((scopes) => new Set(scopes).size === scopes.length, 'Each scope can be chosen once'),
  /** When it stops working; absent or null: never. */
  expiresAt: optional(timestamp('The expiry date').refine((ms) => ms > Date.now(), 'The expiry date must be in the future')),
  /** Requests per minute; absent or null: no limit of its own (the chat limits still apply). */
  rateLimitPerMinute: optional(integer('The rate limit', 1, API_KEY_RATE_LIMIT_MAX)),
}).meta({ id: 'ApiKeyCreate' });
export type ApiKeyCreate = z.input<typeof ApiKeyCreateSchema>;

export const ApiKeyStatusSchema = z.enum(['active', 'expired', 'revoked']);
export type ApiKeyStatus = z.infer<typeof ApiKeyStatusSchema>;

export const ApiKeyInfoSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The key's visible start (`sak_1a2b3c4d`): enough to recognise it, never to use it. */
    prefix: z.string(),
    scopes: z.array(ApiKeyScopeSchema),
    expiresAt: z.string().nullable(),
    rateLimitPerMinute: z.number().int().nullable(),
    createdAt: z.string(),
    createdBy: z.object({ name: z.string(), email: z.string() }).nullable(),
    /** To the minute (servers write it once a minute at most). */
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    status: ApiKeyStatusSchema,
  })
  .meta({ id: 'ApiKeyInfo' });
export type ApiKeyInfo = z.infer<typeof ApiKeyInfoSchema>;

/** The answer to POST /api/api-keys: the key itself, shown this once. */
export const IssuedApiKeySchema = z.object({ key: z.string(), apiKey: ApiKeyInfoSchema }).meta({ id: 'IssuedApiKey' });
export type IssuedApiKey = z.infer<typeof IssuedApiKeySchema>;

/** The answer to DELETE /api/api-keys/{id}. */
export const RevokedApiKeySchema = z.object({ id: z.string(), revokedAt: z.string() }).meta({ id: 'RevokedApiKey' });
