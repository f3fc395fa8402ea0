/**
 * The agent configuration as the Config API reads and writes it (product-spec section 3 "Agent
 * configuration", plus the endpoint / base URL and API version that azure and openai-compatible
 * need), and the parser that turns a request body into a checked update.
 */
import { AppError } from '../../common/app-error';
import { isProviderId, PROVIDER_IDS, ProviderId } from '../../shared/catalog/providers';
import { AGENT_VERTICAL_IDS, AgentVerticalId, isAgentVertical } from '../../shared/catalog/verticals';

export const AGENT_DEFAULTS = Object.freeze({ temperature: 0.7, maxTokens: 2000, timeout: 30000 });
export const LIMITS = Object.freeze({
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
export const AGENT_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** What the API returns for an agent: never the key, only its mask. */
export type { AgentConfigDto } from '../../shared/contracts/config';

/** A checked create or update. Absent fields: keep (update) or default (create). */
export interface AgentInput {
  agentId?: string;
  agentName?: string;
  vertical?: AgentVerticalId;
  enabled?: boolean;
  systemPrompt?: string;
  timeout?: number;
  provider?: ProviderId;
  model?: string;
  /** undefined: keep the stored key; null: remove it; a string: the new key. */
  apiKey?: string | null;
  temperature?: number | null;
  maxTokens?: number;
  endpoint?: string | null;
  baseUrl?: string | null;
  apiVersion?: string | null;
}

function fail(message: string, code: 'validation_failed' | 'unknown_vertical' = 'validation_failed'): never {
  throw new AppError(code, message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown, field: string, max: number, options: { allowEmpty?: boolean } = {}): string {
  if (typeof value !== 'string') fail(`"${field}" must be a string.`);
  const trimmed = value.trim();
  if (!options.allowEmpty && trimmed === '') fail(`"${field}" must not be empty.`);
  if (trimmed.length > max) fail(`"${field}" must be at most ${max} characters.`);
  return trimmed;
}

function optionalUrl(value: unknown, field: string): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const raw = text(value, field, LIMITS.url);
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`"${field}" must be an http or https URL.`);
  } catch (error) {
    if (error instanceof AppError) throw error;
    fail(`"${field}" is not a valid URL.`);
  }
  return raw;
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(`"${field}" must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/**
 * A masked key sent back unchanged (the form shows the mask) means "keep the stored key", like an
 * absent or empty one.
 */
export function looksMasked(key: string): boolean {
  return key === '****' || /^.{0,3}\.\.\..{4}$/.test(key);
}

const TOP_FIELDS = ['agentId', 'agentName', 'vertical', 'enabled', 'systemPrompt', 'timeout', 'llmConfig', 'keyStatus', 'keyError', 'createdAt', 'updatedAt'];
const LLM_FIELDS = ['provider', 'model', 'apiKey', 'temperature', 'maxTokens', 'endpoint', 'baseUrl', 'apiVersion'];

/** Parses a POST or PUT body. Read-only fields the API itself returns (keyStatus, dates) are ignored. */
export function parseAgentBody(body: unknown): AgentInput {
  if (!isObject(body)) fail('The request body must be a JSON object.');
  const unknownTop = Object.keys(body).find((k) => !TOP_FIELDS.includes(k));
  if (unknownTop) fail(`Unknown field: ${unknownTop.slice(0, 40)}.`);
  const out: AgentInput = {};
  if (body.agentId !== undefined) {
    const id = text(body.agentId, 'agentId', LIMITS.agentId);
    if (!AGENT_ID_PATTERN.test(id)) fail('"agentId" must be a slug: lower-case letters and digits separated by single hyphens.');
    out.agentId = id;
  }
  if (body.agentName !== undefined) out.agentName = text(body.agentName, 'agentName', LIMITS.agentName);
  if (body.vertical !== undefined) {
    if (typeof body.vertical !== 'string' || !isAgentVertical(body.vertical)) {
      fail(`"vertical" must be one of ${AGENT_VERTICAL_IDS.join(', ')}.`, 'unknown_vertical');
    }
    out.vertical = body.vertical;
  }
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== 'boolean') fail('"enabled" must be true or false.');
    out.enabled = body.enabled;
  }
  if (body.systemPrompt !== undefined) out.systemPrompt = text(body.systemPrompt, 'systemPrompt', LIMITS.systemPrompt, { allowEmpty: true });
  if (body.timeout !== undefined) out.timeout = integer(body.timeout, 'timeout', LIMITS.minTimeout, LIMITS.maxTimeout);

  if (body.llmConfig !== undefined) {
    const llm = body.llmConfig;
    if (!isObject(llm)) fail('"llmConfig" must be an object.');
    const unknownLlm = Object.keys(llm).find((k) => !LLM_FIELDS.includes(k));
    if (unknownLlm) fail(`Unknown field: llmConfig.${unknownLlm.slice(0, 40)}.`);
    if (llm.provider !== undefined) {
      if (typeof llm.provider !== 'string' || !isProviderId(llm.provider)) {
        fail(`"llmConfig.provider" must be one of ${PROVIDER_IDS.join(', ')}.`);
      }
      out.provider = llm.provider;
    }
    if (llm.model !== undefined) out.model = text(llm.model, 'llmConfig.model', LIMITS.model);
    if (llm.apiKey === null) out.apiKey = null;
    else if (llm.apiKey !== undefined) {
      if (typeof llm.apiKey !== 'string') fail('"llmConfig.apiKey" must be a string.');
      const key = llm.apiKey.trim();
      if (key.length > LIMITS.apiKey) fail(`"llmConfig.apiKey" must be at most ${LIMITS.apiKey} characters.`);
      if (/\s/.test(key)) fail('"llmConfig.apiKey" must not contain spaces.');
      if (key !== '' && !looksMasked(key)) out.apiKey = key;
    }
    if (llm.temperature === null) out.temperature = null;
    else if (llm.temperature !== undefined) {
      const t = llm.temperature;
      if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) fail('"llmConfig.temperature" must be a number from 0 to 1.');
      out.temperature = t;
    }
    if (llm.maxTokens !== undefined) out.maxTokens = integer(llm.maxTokens, 'llmConfig.maxTokens', 1, LIMITS.maxTokens);
    const endpoint = optionalUrl(llm.endpoint, 'llmConfig.endpoint');
    if (endpoint !== undefined) out.endpoint = endpoint;
    const baseUrl = optionalUrl(llm.baseUrl, 'llmConfig.baseUrl');
    if (baseUrl !== undefined) out.baseUrl = baseUrl;
    if (llm.apiVersion === null || llm.apiVersion === '') out.apiVersion = null;
    else if (llm.apiVersion !== undefined) {
      const v = text(llm.apiVersion, 'llmConfig.apiVersion', LIMITS.apiVersion);
      if (!/^[A-Za-z0-9._-]+$/.test(v)) fail('"llmConfig.apiVersion" may hold only letters, digits, dots, hyphens and underscores.');
      out.apiVersion = v;
    }
  }
  return out;
}

/** POST /api/config/test-api-key body. */
export interface KeyTestInput {
  agentId?: string;
  provider?: ProviderId;
  apiKey?: string;
  model?: string;
  endpoint?: string | null;
  baseUrl?: string | null;
  apiVersion?: string | null;
}

export function parseKeyTestBody(body: unknown): KeyTestInput {
  if (!isObject(body)) fail('The request body must be a JSON object.');
  const out: KeyTestInput = {};
  if (body.agentId !== undefined && body.agentId !== null && body.agentId !== '') {
    out.agentId = text(body.agentId, 'agentId', LIMITS.agentId);
  }
  if (body.provider !== undefined && body.provider !== null && body.provider !== '') {
    if (typeof body.provider !== 'string' || !isProviderId(body.provider)) fail(`"provider" must be one of ${PROVIDER_IDS.join(', ')}.`);
    out.provider = body.provider;
  }
  if (typeof body.apiKey === 'string' && body.apiKey.trim() !== '' && !looksMasked(body.apiKey.trim())) {
    const key = body.apiKey.trim();
    if (key.length > LIMITS.apiKey || /\s/.test(key)) fail('"apiKey" is not a valid key.');
    out.apiKey = key;
  } else if (body.apiKey !== undefined && body.apiKey !== null && typeof body.apiKey !== 'string') {
    fail('"apiKey" must be a string.');
  }
  if (body.model !== undefined && body.model !== null && body.model !== '') out.model = text(body.model, 'model', LIMITS.model);
  const endpoint = optionalUrl(body.endpoint, 'endpoint');
  if (endpoint !== undefined) out.endpoint = endpoint;
  const baseUrl = optionalUrl(body.baseUrl, 'baseUrl');
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  if (typeof body.apiVersion === 'string' && body.apiVersion.trim() !== '') out.apiVersion = text(body.apiVersion, 'apiVersion', LIMITS.apiVersion);
  if (!out.agentId && !out.provider) fail('Name a "provider" (or the "agentId" whose key to test).');
  return out;
}
