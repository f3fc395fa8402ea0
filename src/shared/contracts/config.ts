/**
 * The Config API (product-spec section 7 "Config") shapes, shared by the server (src/agents) and
 * the Configuration tab. Keys never travel in plain: `apiKey` in responses is a mask.
 */
import type { ProviderId } from '../catalog/providers';
import type { AgentVerticalId, EnabledVerticalId } from '../catalog/verticals';

/** An agent as the API returns it. */
export interface AgentConfigDto {
  agentId: string;
  agentName: string;
  vertical: AgentVerticalId;
  enabled: boolean;
  systemPrompt: string;
  /** ms */
  timeout: number;
  llmConfig: {
    provider: ProviderId;
    model: string;
    /** Masked (`sk-...abcd`), or '' when there is none. */
    apiKey: string;
    /** null: the global response temperature applies. */
    temperature: number | null;
    maxTokens: number;
    endpoint: string | null;
    baseUrl: string | null;
    apiVersion: string | null;
  };
  /** set: a key is stored and readable; missing: none stored; unreadable: stored but cannot be decrypted. */
  keyStatus: 'set' | 'missing' | 'unreadable';
  /** Why the key cannot be used (unreadable only). */
  keyError?: string;
  createdAt: string;
  updatedAt: string;
}

/** The global settings (PUT /api/config/global takes any subset). */
export interface GlobalSettings {
  responseTemperature: number;
  maxResponseLength: number;
  /** Language code of the chat page's initial language. */
  defaultLanguage: string;
  verticals: Record<EnabledVerticalId, boolean>;
  enableAnalytics: boolean;
  debugMode: boolean;
}

/** GET /api/config `data`. */
export interface SystemConfigDto {
  agents: AgentConfigDto[];
  global: GlobalSettings;
}

/** One finding of GET /api/config/validate. */
export interface ConfigProblem {
  /** error: chats will fail or fall back; warning: works, but probably not as meant. */
  severity: 'error' | 'warning';
  agentId?: string;
  field?: string;
  message: string;
}

export interface ValidationReport {
  valid: boolean;
  problems: ConfigProblem[];
  checkedAt: string;
}

/** POST /api/config/test-api-key body: a key to try, or (agentId without apiKey) the stored one. */
export interface KeyTestRequest {
  agentId?: string;
  provider: ProviderId;
  apiKey?: string;
  model?: string;
  endpoint?: string | null;
  baseUrl?: string | null;
  apiVersion?: string | null;
}

export interface KeyTestResult {
  isValid: boolean;
  reason: string;
  provider?: ProviderId;
  /** How many models the key can list (when valid). */
  modelCount?: number;
  /** Whether the model asked about is among them (when a model was named and the key is valid). */
  modelAvailable?: boolean;
  latencyMs?: number;
}
