/**
 * LLM providers an agent can use, the models offered for each, and their list prices, so the
 * server can cost every request and the admin console can offer sensible model choices.
 */

export type ProviderId = 'openai' | 'anthropic' | 'azure' | 'openai-compatible' | 'local';

export interface ProviderInfo {
  id: ProviderId;
  label: string;
  needsApiKey: boolean;
  /** Needs a base URL / resource endpoint (Azure resource, self-hosted OpenAI-compatible server). */
  needsEndpoint: boolean;
}

export const PROVIDERS: readonly ProviderInfo[] = Object.freeze([
  { id: 'openai', label: 'OpenAI', needsApiKey: true, needsEndpoint: false },
  { id: 'anthropic', label: 'Anthropic', needsApiKey: true, needsEndpoint: false },
  { id: 'azure', label: 'Azure OpenAI', needsApiKey: true, needsEndpoint: true },
  { id: 'openai-compatible', label: 'OpenAI-compatible', needsApiKey: false, needsEndpoint: true },
  { id: 'local', label: 'Local (offline responder)', needsApiKey: false, needsEndpoint: false },
] satisfies ProviderInfo[]);

/** The hosted vendors (listed first in the console); the others are self-hosted servers and the offline responder. */
export const SPEC_PROVIDERS: readonly ProviderId[] = Object.freeze(['openai', 'anthropic', 'azure']);

export const PROVIDER_IDS: readonly ProviderId[] = Object.freeze(PROVIDERS.map((p) => p.id));

export function isProviderId(id: string): id is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(id);
}

export function getProvider(id: string): ProviderInfo | undefined {
  return PROVIDERS.find((p) => p.id === id);
}

/** List price in US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

const OPENAI_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
});

const ANTHROPIC_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-3-5-haiku-latest': { inputPerMillion: 0.8, outputPerMillion: 4 },
});

/**
 * Price table by provider and model. Azure deployments are priced like the OpenAI model of the
 * same name; self-hosted (openai-compatible) and local models cost nothing.
 */
export const MODEL_PRICES: Readonly<Record<ProviderId, Readonly<Record<string, ModelPrice>>>> =
  Object.freeze({
    openai: OPENAI_PRICES,
    anthropic: ANTHROPIC_PRICES,
    azure: OPENAI_PRICES,
    'openai-compatible': Object.freeze({}),
    local: Object.freeze({}),
  });

export const DEFAULT_MODELS: Readonly<Record<ProviderId, string>> = Object.freeze({
  openai: 'gpt-4o-mini',
  anthropic: 'claude-haiku-4-5',
  azure: 'gpt-4o-mini',
  'openai-compatible': 'llama3.1',
  local: 'knowledge-responder',
});

/** Models offered in the admin console's model picker, default first. */
export const PROVIDER_MODELS: Readonly<Record<ProviderId, readonly string[]>> = Object.freeze({
  openai: withDefaultFirst('openai', Object.keys(OPENAI_PRICES)),
  anthropic: withDefaultFirst('anthropic', Object.keys(ANTHROPIC_PRICES)),
  azure: withDefaultFirst('azure', Object.keys(OPENAI_PRICES)),
  'openai-compatible': [DEFAULT_MODELS['openai-compatible']],
  local: [DEFAULT_MODELS.local],
});

function withDefaultFirst(provider: ProviderId, models: string[]): readonly string[] {
  const first = DEFAULT_MODELS[provider];
  return Object.freeze([first, ...models.filter((m) => m !== first)]);
}

/** Providers we pay per token for; others (self-hosted, offline) are free. */
function isPaid(provider: ProviderId): boolean {
  return Object.keys(MODEL_PRICES[provider]).length > 0;
}

/** The alias a dated snapshot shares with its '-latest' name, e.g. 'claude-3-5-haiku'. */
function stem(model: string): string {
  return model.endsWith('-latest') ? model.slice(0, -'-latest'.length) : model;
}

/**
 * Finds the price of a model: exact name first, then the longest catalogue name the model starts
 * with at a '-' boundary (dated snapshots such as 'gpt-4o-2024-08-06' or
 * 'claude-sonnet-4-5-20250929'), so 'gpt-4o-mini-2024-07-18' is priced as gpt-4o-mini, not gpt-4o.
 * Returns undefined when nothing matches.
 */
export function findModelPrice(provider: ProviderId, model: string): ModelPrice | undefined {
  const table = MODEL_PRICES[provider];
  const name = model.trim().toLowerCase();
  if (Object.prototype.hasOwnProperty.call(table, name)) return table[name];
  let best: { length: number; price: ModelPrice } | undefined;
  for (const [key, price] of Object.entries(table)) {
    for (const candidate of new Set([key, stem(key)])) {
      if (name.startsWith(`${candidate}-`) && (!best || candidate.length > best.length)) {
        best = { length: candidate.length, price };
      }
    }
  }
  return best?.price;
}

/**
 * The price used for costing: the model's own, or for an unknown model of a paid provider the
 * provider's default model price (never silently free); zero for free providers.
 */
export function priceFor(provider: ProviderId, model: string): ModelPrice {
  if (!isPaid(provider)) return { inputPerMillion: 0, outputPerMillion: 0 };
  return (
    findModelPrice(provider, model) ??
    findModelPrice(provider, DEFAULT_MODELS[provider]) ?? { inputPerMillion: 0, outputPerMillion: 0 }
  );
}

/** Cost in US dollars of one request, rounded to 1e-8. Unknown providers cost 0. */
export function costUsd(
  provider: ProviderId | string,
  model: string,
  promptTokens: number,
  completionTokens: number,
): number {
  if (!isProviderId(provider)) return 0;
  const price = priceFor(provider, model);
  const prompt = Number.isFinite(promptTokens) && promptTokens > 0 ? promptTokens : 0;
  const completion = Number.isFinite(completionTokens) && completionTokens > 0 ? completionTokens : 0;
  const raw = (prompt * price.inputPerMillion + completion * price.outputPerMillion) / 1_000_000;
  return Math.round(raw * 1e8) / 1e8;
}

// --- embeddings (hybrid retrieval) ----------------------------------------------------------------

/** Providers an embeddings configuration can use (OpenAI's embeddings API and servers that speak it). */
export const EMBEDDING_PROVIDER_IDS = ['openai', 'azure', 'openai-compatible'] as const;
export type EmbeddingProviderId = (typeof EMBEDDING_PROVIDER_IDS)[number];

/** List prices of embedding models, US dollars per million input tokens (Azure deployments priced alike). */
export const EMBEDDING_PRICES: Readonly<Record<string, number>> = Object.freeze({
  'text-embedding-3-small': 0.02,
  'text-embedding-3-large': 0.13,
  'text-embedding-ada-002': 0.1,
});

/** Models offered per embeddings provider, default first (a self-hosted server names its own). */
export const EMBEDDING_MODELS: Readonly<Record<EmbeddingProviderId, readonly string[]>> = Object.freeze({
  openai: Object.keys(EMBEDDING_PRICES),
  azure: Object.keys(EMBEDDING_PRICES),
  'openai-compatible': ['nomic-embed-text', 'mxbai-embed-large', 'bge-m3', 'all-minilm'],
});

/**
 * Cost of an embedding call: its input tokens at the model's list price (an unknown OpenAI or
 * Azure model at text-embedding-3-small's; self-hosted servers cost nothing). Rounded to 1e-8.
 */
export function embeddingCostUsd(provider: string, model: string, tokens: number): number {
  if (provider !== 'openai' && provider !== 'azure') return 0;
  const name = model.trim().toLowerCase();
  const perMillion = EMBEDDING_PRICES[name] ?? Object.entries(EMBEDDING_PRICES).find(([key]) => name.startsWith(`${key}-`))?.[1] ?? EMBEDDING_PRICES['text-embedding-3-small'];
  const count = Number.isFinite(tokens) && tokens > 0 ? tokens : 0;
  return Math.round(((count * perMillion) / 1_000_000) * 1e8) / 1e8;
}

// --- speech to text (the microphone without browser speech recognition) ---------------------------

/** List prices of transcription models, US dollars per minute of audio (Azure deployments priced alike). */
export const SPEECH_PRICES_PER_MINUTE: Readonly<Record<string, number>> = Object.freeze({
  'whisper-1': 0.006,
  whisper: 0.006,
  'gpt-4o-transcribe': 0.006,
  'gpt-4o-mini-transcribe': 0.003,
});

/**
 * Cost of a transcription: its length at the model's per-minute list price (an unknown OpenAI or
 * Azure model at whisper-1's; self-hosted servers cost nothing). Rounded to 1e-8.
 */
export function speechCostUsd(provider: string, model: string, seconds: number): number {
  if (provider !== 'openai' && provider !== 'azure') return 0;
  const name = model.trim().toLowerCase();
  const perMinute = SPEECH_PRICES_PER_MINUTE[name] ?? SPEECH_PRICES_PER_MINUTE['whisper-1'];
  const length = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
  return Math.round(((length / 60) * perMinute) * 1e8) / 1e8;
}
