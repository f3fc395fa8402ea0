/**
 * The Config API, shared by the server (src/agents) and the
 * Configuration tab: what the forms send, checked by the same schemas on both ends, and what the
 * API answers. Keys never travel in plain: `apiKey` in responses is a mask.
 */
import { z } from 'zod';
import { LANGUAGES } from '../catalog/languages';
import { PROVIDER_IDS, type ProviderId } from '../catalog/providers';
import { AGENT_VERTICAL_IDS, ENABLED_VERTICAL_IDS, VERTICALS, type AgentVerticalId, type EnabledVerticalId } from '../catalog/verticals';
import { tupleOf, UNKNOWN_VERTICAL } from './chat';
import { RETENTION_DAYS } from './conversations';
import { BudgetSettingsSchema, BudgetSettingsUpdateSchema, ChatLimitsSchema, ChatLimitsUpdateSchema } from './limits';
import { body, coded, decimal, flag, integer, optional, text } from './rules';

/** The defaults of a new agent (the Configure dialog's fields fall back to them too). */
export const AGENT_DEFAULTS = Object.freeze({ temperature: 0.7, maxTokens: 2000, timeout: 30000 });
export const AGENT_LIMITS = Object.freeze({
  agentId: 64,
  agentName: 100,
  model: 200,
  systemPrompt: 20_000,
  apiKey: 500,
  url: 500,
  apiVersion: 40,
  minTimeout: 100,
  maxTimeout: 3_600_000,
  maxTokens: 200_000,
});
export const MAX_RESPONSE_LENGTH_LIMIT = 200_000;
export const AGENT_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * A masked key sent back unchanged (the form shows the mask) means "keep the stored key", like an
 * absent or empty one.
 */
export function looksMasked(key: string): boolean {
  return key === '****' || /^.{0,3}\.\.\..{4}$/.test(key);
}

const PROVIDERS_TEXT = PROVIDER_IDS.join(', ');
const provider = z.enum(tupleOf<ProviderId>(PROVIDER_IDS), {
  error: (issue) => (issue.input === undefined ? 'Provider is required' : `Provider must be one of ${PROVIDERS_TEXT}`),
});

const agentVertical = z.enum(tupleOf<AgentVerticalId>(AGENT_VERTICAL_IDS), {
  error: (issue) =>
    issue.input === undefined ? 'Vertical is required' : coded('unknown_vertical', `Vertical must be one of ${AGENT_VERTICAL_IDS.join(', ')}`),
});

const agentId = text('Agent id', AGENT_LIMITS.agentId, { required: true }).regex(
  AGENT_ID_PATTERN,
  'Agent id must be a slug: lower-case letters and digits separated by single hyphens (such as billing-agent)',
);

/** http(s) URL, or null / '' for none. */
export function url(label: string) {
  return z
    .union([z.null(), z.literal(''), text(label, AGENT_LIMITS.url).refine(isHttpUrl, `${label} must be an http or https URL`)], {
      error: `${label} must be an http or https URL`,
    })
    .transform((value) => value || null);
}

function isHttpUrl(value: string): boolean {
  try {
    const parsed = new URL(value);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

export const apiVersion = z
  .union([z.null(), z.literal(''), text('API Version', AGENT_LIMITS.apiVersion).regex(/^[A-Za-z0-9._-]+$/, 'API Version may hold only letters, digits, dots, hyphens and underscores')], {
    error: 'API Version must be text',
  })
  .transform((value) => value || null);

/**
 * The key as typed. Absent, empty or the mask: keep the stored key (undefined); null: remove it;
 * otherwise the new key.
 */
export const apiKey = z
  .union([
    z.null(),
    z
      .string()
      .trim()
      .max(AGENT_LIMITS.apiKey, `API Key must be at most ${AGENT_LIMITS.apiKey} characters`)
      .regex(/^\S*$/, 'API Key must not contain spaces'),
  ], { error: 'API Key must be text' })
  .optional()
  .transform((key) => (key === null ? null : key === undefined || key === '' || looksMasked(key) ? undefined : key));

const llmFields = {
  model: text('Model', AGENT_LIMITS.model, { required: true }).optional(),
  apiKey,
  /** null: the global response temperature applies. */
  temperature: decimal('Temperature', 0, 1).nullable().optional(),
  maxTokens: integer('Max Tokens', 1, AGENT_LIMITS.maxTokens).optional(),
  endpoint: url('Endpoint').optional(),
  baseUrl: url('Base URL').optional(),
  apiVersion: apiVersion.optional(),
};

const agentFields = {
  agentName: text('Agent Name', AGENT_LIMITS.agentName, { required: true }),
  vertical: agentVertical,
  enabled: flag('Agent Status').optional(),
  systemPrompt: text('System Prompt', AGENT_LIMITS.systemPrompt).optional(),
  timeout: integer('Timeout (ms)', AGENT_LIMITS.minTimeout, AGENT_LIMITS.maxTimeout).optional(),
};

/** POST /api/config/agents: a new agent (agentId: a slug, made from the name when absent). */
export const AgentCreateSchema = body({
  agentId: agentId.optional(),
  ...agentFields,
  llmConfig: z.object({ provider, ...llmFields }, { error: 'Provider is required' }),
}).meta({ id: 'AgentCreate' });
export type AgentCreate = z.input<typeof AgentCreateSchema>;

/**
 * PUT /api/config/agents/{id}: any subset of the fields (the form sends them all). Read-only
 * fields the API returns (keyStatus, dates) are ignored, like any unknown field; a body with
 * nothing to change is refused, so a misspelt field is not silently lost.
 */
export const AgentUpdateSchema = body({
  agentId: agentId.optional(),
  agentName: agentFields.agentName.optional(),
  vertical: agentVertical.optional(),
  enabled: agentFields.enabled,
  systemPrompt: agentFields.systemPrompt,
  timeout: agentFields.timeout,
  llmConfig: z.object({ provider: provider.optional(), ...llmFields }, { error: 'The model settings must be an object' }).optional(),
})
  .refine((update) => Object.values(update).some((v) => v !== undefined), 'Nothing to change: send at least one agent setting.')
  .meta({ id: 'AgentUpdate' });
export type AgentUpdate = z.input<typeof AgentUpdateSchema>;
/** A checked create or update: absent fields keep (update) or default (create). */
export type AgentInput = z.output<typeof AgentUpdateSchema>;

/** DELETE /api/config/agents/{id} `data`. */
export const AgentDeletedSchema = z.object({ agentId: z.string() }).meta({ id: 'AgentDeleted' });

/** An agent as the API returns it. */
export const AgentConfigSchema = z
  .object({
    agentId: z.string(),
    agentName: z.string(),
    vertical: z.enum(tupleOf<AgentVerticalId>(AGENT_VERTICAL_IDS)),
    enabled: z.boolean(),
    systemPrompt: z.string(),
    /** ms */
    timeout: z.number().int(),
    llmConfig: z.object({
      provider: z.enum(tupleOf<ProviderId>(PROVIDER_IDS)),
      model: z.string(),
      /** Masked (`sk-...abcd`), or '' when there is none. */
      apiKey: z.string(),
      /** null: the global response temperature applies. */
      temperature: z.number().nullable(),
      maxTokens: z.number().int(),
      endpoint: z.string().nullable(),
      baseUrl: z.string().nullable(),
      apiVersion: z.string().nullable(),
    }),
    /** set: a key is stored and readable; missing: none stored; unreadable: stored but cannot be decrypted. */
    keyStatus: z.enum(['set', 'missing', 'unreadable']),
    /** Why the key cannot be used (unreadable only). */
    keyError: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AgentConfig' });
export type AgentConfigDto = z.infer<typeof AgentConfigSchema>;

// --- global settings ----------------------------------------------------------------------------

const LANGUAGE_CODES = LANGUAGES.map((l) => l.code);
const NOT_SWITCHABLE = new Map(
  VERTICALS.filter((v) => !v.enabled).map((v) => [v.id as string, coded('unknown_vertical', `${v.name} cannot be switched on yet.`)]),
);

/** The global settings as stored and returned. */
export const GlobalSettingsSchema = z
  .object({
    /** The temperature of agents that have none of their own. */
    responseTemperature: z.number(),
    /** Upper bound (tokens) on every reply. */
    maxResponseLength: z.number().int(),
    /** Language code of the chat page's initial language. */
    defaultLanguage: z.string(),
    /** Which verticals visitors can use. */
    verticals: z.record(z.enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS)), z.boolean()),
    enableAnalytics: z.boolean(),
    debugMode: z.boolean(),
    /** Visitors' conversations are deleted this many days after their last message (daily purge). */
    conversationRetentionDays: z.number().int(),
    /** Chat rate limits (src/limits). */
    chatLimits: ChatLimitsSchema,
    /** Monthly budgets and the tokens per visitor per day (src/limits). */
    budgets: BudgetSettingsSchema,
    /** /interact refuses a request without an API key (the chat page itself does not use /interact). */
    requireApiKey: z.boolean(),
  })
  .meta({ id: 'GlobalSettings' });
export type GlobalSettings = z.infer<typeof GlobalSettingsSchema>;

/** PUT /api/config/global: any subset of the settings (at least one). */
export const GlobalSettingsUpdateSchema = body({
  responseTemperature: decimal('Response Temperature', 0, 1).optional(),
  maxResponseLength: integer('Max Response Length', 1, MAX_RESPONSE_LENGTH_LIMIT).optional(),
  defaultLanguage: z
    .enum(tupleOf(LANGUAGE_CODES), { error: coded('unknown_language', `Default Language must be one of ${LANGUAGE_CODES.join(', ')}`) })
    .optional(),
  verticals: z
    .partialRecord(z.enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS)), flag('Each vertical switch'), {
      // An unknown vertical arrives as an unrecognized key (the typings only list the record's own issues).
      error: (issue: { code?: string; keys?: unknown[] }) =>
        issue.code === 'unrecognized_keys'
          ? (NOT_SWITCHABLE.get(String(issue.keys?.[0])) ?? UNKNOWN_VERTICAL)
          : 'The vertical switches must map vertical ids to true or false',
    })
    .optional(),
  enableAnalytics: flag('Enable Analytics').optional(),
  debugMode: flag('Debug Mode').optional(),
  conversationRetentionDays: integer('Conversation retention (days)', RETENTION_DAYS.min, RETENTION_DAYS.max).optional(),
  /** Only the limits sent change. */
  chatLimits: ChatLimitsUpdateSchema.optional(),
  /** `list` replaces the stored budgets; `visitorDailyTokens` (null: none) is kept when absent. */
  budgets: BudgetSettingsUpdateSchema.optional(),
  requireApiKey: flag('Require an API key').optional(),
})
  .refine((update) => Object.values(update).some((v) => v !== undefined), 'Nothing to change: send at least one setting.')
  .meta({ id: 'GlobalSettingsUpdate' });
export type GlobalSettingsUpdate = z.input<typeof GlobalSettingsUpdateSchema>;

/** GET /api/config `data`. */
export const SystemConfigSchema = z
  .object({
    agents: z.array(AgentConfigSchema),
    global: GlobalSettingsSchema,
    /** Stored global settings that could not be read: each fell back to its default until saved again. */
    settingsProblems: z.array(z.string()),
  })
  .meta({ id: 'SystemConfig' });
export type SystemConfigDto = z.infer<typeof SystemConfigSchema>;

/** One finding of GET /api/config/validate. */
export const ConfigProblemSchema = z.object({
  /** error: chats will fail or fall back; warning: works, but probably not as meant. */
  severity: z.enum(['error', 'warning']),
  agentId: z.string().optional(),
  field: z.string().optional(),
  message: z.string(),
});
export type ConfigProblem = z.infer<typeof ConfigProblemSchema>;

export const ValidationReportSchema = z
  .object({ valid: z.boolean(), problems: z.array(ConfigProblemSchema), checkedAt: z.string() })
  .meta({ id: 'ValidationReport' });
export type ValidationReport = z.infer<typeof ValidationReportSchema>;

/** POST /api/config/test-api-key: a key to try, or (agentId without apiKey) the stored one. */
export const KeyTestRequestSchema = body({
  agentId: optional(text('Agent id', AGENT_LIMITS.agentId)).transform((v) => v || undefined),
  provider: z
    .union([z.literal(''), z.null(), z.enum(tupleOf<ProviderId>(PROVIDER_IDS), { error: `Provider must be one of ${PROVIDERS_TEXT}` })], { error: `Provider must be one of ${PROVIDERS_TEXT}` })
    .optional()
    .transform((v) => v || undefined),
  apiKey: z
    .union([z.null(), z.string().trim().max(AGENT_LIMITS.apiKey, 'The API key is not a valid key').regex(/^\S*$/, 'The API key is not a valid key')], {
      error: 'The API key must be text',
    })
    .optional()
    .transform((key) => (key && !looksMasked(key) ? key : undefined)),
  model: optional(text('Model', AGENT_LIMITS.model)).transform((v) => v || undefined),
  endpoint: url('Endpoint').optional(),
  baseUrl: url('Base URL').optional(),
  apiVersion: apiVersion.optional(),
})
  .refine((req) => req.agentId !== undefined || req.provider !== undefined, 'Name a provider (or the agent whose key to test).')
  .meta({ id: 'KeyTestRequest' });
export type KeyTestRequest = z.input<typeof KeyTestRequestSchema>;
export type KeyTestInput = z.output<typeof KeyTestRequestSchema>;

export const KeyTestResultSchema = z
  .object({
    isValid: z.boolean(),
    reason: z.string(),
    provider: z.enum(tupleOf<ProviderId>(PROVIDER_IDS)).optional(),
    /** How many models the key can list (when valid). */
    modelCount: z.number().int().optional(),
    /** Whether the model asked about is among them (when a model was named and the key is valid). */
    modelAvailable: z.boolean().optional(),
    latencyMs: z.number().optional(),
  })
  .meta({ id: 'KeyTestResult' });
export type KeyTestResult = z.infer<typeof KeyTestResultSchema>;

/** GET /api/config/export: everything but the secrets, as a file. */
export const ConfigExportSchema = z
  .object({
    format: z.literal('support-assistant-config'),
    version: z.literal(1),
    exportedAt: z.string(),
    global: GlobalSettingsSchema,
    agents: z.array(
      AgentConfigSchema.omit({ llmConfig: true, keyError: true }).extend({
        llmConfig: AgentConfigSchema.shape.llmConfig.omit({ apiKey: true }).extend({ hasApiKey: z.boolean() }),
      }),
    ),
  })
  .meta({ id: 'ConfigExport' });
export type ConfigExport = z.infer<typeof ConfigExportSchema>;

/** GET /api/public/settings `data`: what the public chat page needs from the global settings. */
export const PublicSettingsSchema = z
  .object({
    /** The chat page's initial language (a language code, e.g. 'en'). */
    defaultLanguage: z.string(),
    /** Every vertical of the catalogue with whether visitors can use it now. */
    verticals: z.array(z.object({ id: z.string(), enabled: z.boolean() })),
    /** Ids of the verticals visitors can use now, in tab order. */
    enabledVerticals: z.array(z.string()),
  })
  .meta({ id: 'PublicSettings' });
export type PublicSettings = z.infer<typeof PublicSettingsSchema>;
