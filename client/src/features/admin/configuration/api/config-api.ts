/**
 * The Config API as the Configuration tab uses it. The shapes
 * come from src/shared/contracts/config.ts, the same ones the server answers with.
 */
import { apiRequest } from '../../../../lib/api';
import { ApiError } from '../../../../lib/api';

import type { AgentVerticalId } from '@shared/catalog/verticals';
import {
  AgentCreateSchema,
  type AgentCreate,
  AgentUpdateSchema,
  GlobalSettingsUpdateSchema,
  KeyTestRequestSchema,
  type AgentConfigDto,
  type AgentUpdate,
  type GlobalSettings,
  type GlobalSettingsUpdate,
  type KeyTestRequest,
  type KeyTestResult,
  type SystemConfigDto,
  type ValidationReport,
} from '@shared/contracts/config';

export type { ProviderId } from '@shared/catalog/providers';
export type { ConfigProblem, GlobalSettings, GlobalSettingsUpdate, KeyTestRequest, KeyTestResult, ValidationReport } from '@shared/contracts/config';
export type AgentVertical = AgentVerticalId;
export type AgentConfig = AgentConfigDto;
export type SystemConfig = SystemConfigDto;

/** What a save sends (every editable field; apiKey only when a new key was typed): the server's contract. */
export type { AgentUpdate };

import type { SuccessEnvelope as Data } from '@shared/contracts/http';

export const configApi = {
  async get(): Promise<SystemConfig> {
    return (await apiRequest<Data<SystemConfig>>('/api/config')).data;
  },
  async updateAgent(agentId: string, update: AgentUpdate): Promise<AgentConfig> {
    const path = `/api/config/agents/${encodeURIComponent(agentId)}`;
    return (await apiRequest<Data<AgentConfig>>(path, { method: 'PUT', body: update, contract: AgentUpdateSchema })).data;
  },
  async createAgent(agent: AgentCreate): Promise<AgentConfig> {
    return (await apiRequest<Data<AgentConfig>>('/api/config/agents', { method: 'POST', body: agent, contract: AgentCreateSchema })).data;
  },
  async deleteAgent(agentId: string): Promise<void> {
    await apiRequest(`/api/config/agents/${encodeURIComponent(agentId)}`, { method: 'DELETE' });
  },
  async updateGlobal(settings: GlobalSettingsUpdate): Promise<GlobalSettings> {
    return (await apiRequest<Data<GlobalSettings>>('/api/config/global', { method: 'PUT', body: settings, contract: GlobalSettingsUpdateSchema })).data;
  },
  async testApiKey(request: KeyTestRequest): Promise<KeyTestResult> {
    return (await apiRequest<Data<KeyTestResult>>('/api/config/test-api-key', { method: 'POST', body: request, contract: KeyTestRequestSchema })).data;
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
