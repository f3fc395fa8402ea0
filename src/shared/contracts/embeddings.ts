/**
 * Embeddings for hybrid retrieval (Configuration tab, "Embeddings"; Knowledge tab progress line):
 * the settings as stored and returned (key masked), the PUT body, and the status of the vectors.
 */
import { z } from 'zod';
import { EMBEDDING_PROVIDER_IDS, type EmbeddingProviderId } from '../catalog/providers';
import { AGENT_ID_PATTERN, AGENT_LIMITS, apiKey, apiVersion, url } from './config';
import { body, flag, oneOf, text } from './rules';

export const EMBEDDING_PROVIDER_LABELS: Readonly<Record<EmbeddingProviderId, string>> = Object.freeze({
  openai: 'OpenAI',
  azure: 'Azure OpenAI',
  'openai-compatible': 'OpenAI-compatible (Ollama, vLLM, llama.cpp server, LM Studio)',
});

const provider = oneOf(EMBEDDING_PROVIDER_IDS as unknown as [EmbeddingProviderId, ...EmbeddingProviderId[]], `Provider must be one of ${EMBEDDING_PROVIDER_IDS.join(', ')}`);

/** The embeddings settings as the API returns them (the key only masked). */
export const EmbeddingSettingsSchema = z
  .object({
    /** Off by default: retrieval is BM25 alone. */
    enabled: z.boolean(),
    provider: z.enum(EMBEDDING_PROVIDER_IDS),
    model: z.string(),
    /** OpenAI-compatible server address (or another OpenAI address). */
    baseUrl: z.string().nullable(),
    /** Azure resource endpoint. */
    endpoint: z.string().nullable(),
    apiVersion: z.string().nullable(),
    /** Use this agent's API key instead of one of its own (null: its own). */
    keyFromAgent: z.string().nullable(),
    /** Its own key, masked (null: none stored, or stored but unreadable). */
    apiKey: z.string().nullable(),
    /** True when a key is stored that this server cannot decrypt (another APP_SECRET): enter it again. */
    keyUnreadable: z.boolean().optional(),
  })
  .meta({ id: 'EmbeddingSettings' });
export type EmbeddingSettings = z.infer<typeof EmbeddingSettingsSchema>;

/** The fields that say where and how to call (the PUT body's and the key test's). */
const connectionFields = {
  provider: provider.optional(),
  model: text('Embedding model', AGENT_LIMITS.model, { required: true }).optional(),
  baseUrl: url('Base URL').optional(),
  endpoint: url('Endpoint').optional(),
  apiVersion: apiVersion.optional(),
  keyFromAgent: z
    .union([z.null(), z.literal(''), text('Agent', AGENT_LIMITS.agentId).regex(AGENT_ID_PATTERN, 'Agent must be an agent id')], { error: 'Agent must be an agent id' })
    .transform((value) => value || null)
    .optional(),
  apiKey,
};

/** PUT /api/config/embeddings: any subset of the fields. `apiKey`: absent, empty or the mask keeps the stored key; null removes it. */
export const EmbeddingSettingsUpdateSchema = body({ enabled: flag('Embeddings').optional(), ...connectionFields })
  .refine((value) => Object.values(value).some((v) => v !== undefined), 'Send at least one setting to change')
  .meta({ id: 'EmbeddingSettingsUpdate' });
export type EmbeddingSettingsUpdate = z.input<typeof EmbeddingSettingsUpdateSchema>;

/**
 * POST /api/config/embeddings/test: one small embeddings call with the settings as entered; a
 * field left out is the saved one (the key too when left empty or masked; null: no key).
 */
export const EmbeddingKeyTestRequestSchema = body(connectionFields).meta({ id: 'EmbeddingKeyTestRequest' });
export type EmbeddingKeyTestRequest = z.input<typeof EmbeddingKeyTestRequestSchema>;
export type EmbeddingKeyTestInput = z.output<typeof EmbeddingKeyTestRequestSchema>;

export const EmbeddingKeyTestResultSchema = z
  .object({
    isValid: z.boolean(),
    /** The provider's answer in plain words (never the vendor's text, which may echo the key). */
    reason: z.string(),
    provider: z.enum(EMBEDDING_PROVIDER_IDS),
    model: z.string(),
    /** The vector's length (when valid). */
    dimensions: z.number().int().optional(),
    latencyMs: z.number(),
  })
  .meta({ id: 'EmbeddingKeyTestResult' });
export type EmbeddingKeyTestResult = z.infer<typeof EmbeddingKeyTestResultSchema>;

/** GET /api/config/embeddings/status (and with the settings): how far the vectors are. */
export const EmbeddingStatusSchema = z
  .object({
    enabled: z.boolean(),
    model: z.string().nullable(),
    /** Chunks with a vector of the current model. */
    embedded: z.number().int(),
    /** All chunks. */
    total: z.number().int(),
    /** A backfill is queued or running. */
    running: z.boolean(),
    /** The last embedding call failed or was late: searches use BM25 alone until one succeeds. */
    degraded: z.boolean(),
    /** Why, when degraded or when the backfill stopped. */
    lastError: z.string().nullable(),
  })
  .meta({ id: 'EmbeddingStatus' });
export type EmbeddingStatus = z.infer<typeof EmbeddingStatusSchema>;

/** GET /api/config/embeddings `data`. */
export const EmbeddingConfigSchema = z.object({ settings: EmbeddingSettingsSchema, status: EmbeddingStatusSchema }).meta({ id: 'EmbeddingConfig' });
export type EmbeddingConfig = z.infer<typeof EmbeddingConfigSchema>;
