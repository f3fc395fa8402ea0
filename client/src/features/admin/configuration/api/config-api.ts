/**
 * The Config API (product-spec section 7 "Config") as the Configuration tab uses it. The shapes
 * mirror the server's (src/agents/dto/agent-config.dto.ts, src/agents/global-settings.ts).
 */
import { apiRequest } from '../../../../lib/api';
import { ApiError } from '../../../../lib/api';

export type ProviderId = 'openai' | 'anthropic' | 'azure' | 'openai-compatible' | 'local';
export type AgentVertical = 'universal' | 'customer-service' | 'hr' | 'legal' | 'sales';

export interface AgentConfig {
  agentId: string;
  agentName: string;
  vertical: AgentVertical;
  enabled: boolean;
  systemPrompt: string;
  timeout: number;
  llmConfig: {
    provider: ProviderId;
    model: string;
    /** Masked (`sk-...abcd`) or '' */
    apiKey: string;
    temperature: number | null;
    maxTokens: number;
    endpoint: string | null;
    baseUrl: string | null;
    apiVersion: string | null;
  };
  keyStatus: 'set' | 'missing' | 'unreadable';
  keyError?: string;
  createdAt: string;
  updatedAt: string;
}

export interface GlobalSettings {
  responseTemperature: number;
  maxResponseLength: number;
  defaultLanguage: string;
  verticals: Record<string, boolean>;
  enableAnalytics: boolean;
  debugMode: boolean;
}

export interface SystemConfig {
  agents: AgentConfig[];
  global: GlobalSettings;
}

/** What a save sends: every editable field; apiKey only when a new key was typed. */
export interface AgentUpdate {
  agentName: string;
  vertical: AgentVertical;
  enabled: boolean;
  systemPrompt: string;
  timeout: number;
  llmConfig: {
    provider: ProviderId;
    model: string;
    apiKey?: string;
    temperature: number;
    maxTokens: number;
    endpoint: string | null;
    baseUrl: string | null;
    apiVersion: string | null;
  };
}

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
}

export interface ConfigProblem {
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

type Data<T> = { success: true; data: T };

export const configApi = {
  async get(): Promise<SystemConfig> {
    return (await apiRequest<Data<SystemConfig>>('/api/config')).data;
  },
  async updateAgent(agentId: string, update: AgentUpdate): Promise<AgentConfig> {
    return (await apiRequest<Data<AgentConfig>>(`/api/config/agents/${encodeURIComponent(agentId)}`, { method: 'PUT', body: update })).data;
  },
  async updateGlobal(settings: Partial<GlobalSettings>): Promise<GlobalSettings> {
    return (await apiRequest<Data<GlobalSettings>>('/api/config/global', { method: 'PUT', body: settings })).data;
  },
  async testApiKey(request: KeyTestRequest): Promise<KeyTestResult> {
    return (await apiRequest<Data<KeyTestResult>>('/api/config/test-api-key', { method: 'POST', body: request })).data;
  },
  async validate(): Promise<ValidationReport> {
    return (await apiRequest<Data<ValidationReport>>('/api/config/validate')).data;
  },
  /** The export file: its name (from Content-Disposition) and contents. */
  async exportFile(): Promise<{ name: string; blob: Blob }> {
    const response = await fetch('/api/config/export', { credentials: 'include', headers: { Accept: 'application/json' } });
    if (!response.ok) {
      let message = `Request failed (${response.status})`;
      try {
        message = ((await response.json()) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // keep the status message
      }
      throw new ApiError(message, response.status);
    }
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'support-assistant-config.json';
    return { name, blob: await response.blob() };
  },
};

export const CONFIG_QUERY_KEY = ['admin', 'config'] as const;
