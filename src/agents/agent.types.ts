import type { ProviderConnection } from '../llm/llm.types';
import type { AgentVerticalId } from '../shared/catalog/verticals';

/** A configured agent, as the chat pipeline sees it (effective values, key decrypted). */
export interface AgentDefinition {
  agentId: string;
  agentName: string;
  vertical: AgentVerticalId;
  enabled: boolean;
  systemPrompt: string;
  /** Upstream timeout for one reply (ms). */
  timeout: number;
  model: string;
  temperature: number;
  maxTokens: number;
  connection: ProviderConnection;
  /** Set when the agent cannot be used as configured (e.g. its stored API key cannot be decrypted): the reason, for people. */
  unavailable?: string;
}
