/**
 * The agents a fresh installation starts with, from the environment the server foundation used:
 * one universal agent plus one per enabled vertical, all on the first provider that has
 * credentials (OpenAI, Anthropic, Azure, an OpenAI-compatible server), else on the offline
 * knowledge responder (`local`). After the first start the database is the source of truth.
 */
import type { AppConfig } from '../config/app-config';
import type { ProviderConnection } from '../llm/llm.types';
import { DEFAULT_MODELS } from '../shared/catalog/providers';
import { AgentVerticalId, ENABLED_VERTICAL_IDS, getVertical } from '../shared/catalog/verticals';
import { AGENT_DEFAULTS } from '../shared/contracts/config';
import { DEFAULT_GLOBAL_SETTINGS } from './global-settings';

export const UNIVERSAL_PROMPT =
  'You are a helpful support assistant. Answer accurately and concisely from the reference material when it applies, and say plainly when you do not know.';

export interface AgentSeed {
  agentId: string;
  agentName: string;
  vertical: AgentVerticalId;
  enabled: boolean;
  systemPrompt: string;
  timeoutMs: number;
  model: string;
  /** null: the global Response Temperature applies (seeded agents have none of their own). */
  temperature: number | null;
  maxTokens: number;
  connection: ProviderConnection;
}

export function connectionFromEnvironment(c: AppConfig): ProviderConnection {
  if (c.openaiApiKey) return { provider: 'openai', apiKey: c.openaiApiKey, baseUrl: c.openaiBaseUrl };
  if (c.anthropicApiKey) return { provider: 'anthropic', apiKey: c.anthropicApiKey, baseUrl: c.anthropicBaseUrl };
  if (c.azureOpenaiApiKey && c.azureOpenaiEndpoint) {
    return { provider: 'azure', apiKey: c.azureOpenaiApiKey, endpoint: c.azureOpenaiEndpoint, apiVersion: c.azureOpenaiApiVersion };
  }
  if (c.llmBaseUrl) return { provider: 'openai-compatible', baseUrl: c.llmBaseUrl, apiKey: c.llmApiKey };
  return { provider: 'local' };
}

export function seedAgents(config: AppConfig): AgentSeed[] {
  const connection = connectionFromEnvironment(config);
  const model = config.llmModel ?? DEFAULT_MODELS[connection.provider];
  const verticals: AgentVerticalId[] = ['universal', ...ENABLED_VERTICAL_IDS];
  return verticals.map((vertical) => {
    const info = vertical === 'universal' ? undefined : getVertical(vertical);
    return {
      agentId: `${vertical}-agent`,
      agentName: info ? `${info.name} Agent` : 'Universal Agent',
      vertical,
      enabled: true,
      systemPrompt: info ? info.persona : UNIVERSAL_PROMPT,
      timeoutMs: config.agentTimeoutMs,
      model,
      // The global settings govern seeded agents: no temperature of their own, and max tokens equal
      // to the global max response length (above it Validate warns that the global one applies).
      temperature: null,
      maxTokens: Math.min(AGENT_DEFAULTS.maxTokens, DEFAULT_GLOBAL_SETTINGS.maxResponseLength),
      connection,
    };
  });
}
