import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ProviderConnection } from '../llm/llm.types';
import { DEFAULT_MODELS } from '../shared/catalog/providers';
import { AgentVerticalId, ENABLED_VERTICAL_IDS, getVertical } from '../shared/catalog/verticals';
import type { AgentDefinition } from './agent.types';

const UNIVERSAL_PROMPT =
  'You are a helpful support assistant. Answer accurately and concisely from the reference material when it applies, and say plainly when you do not know.';

/**
 * The agents the chat pipeline can pick from. Until agent configuration moves into the database,
 * they come from the environment: one universal agent plus one per enabled vertical, all on the
 * first provider that has credentials, or on the offline knowledge responder (`local`).
 */
@Injectable()
export class AgentRegistryService {
  private readonly agents: AgentDefinition[];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const connection = this.connectionFromEnvironment();
    const model = config.llmModel ?? DEFAULT_MODELS[connection.provider];
    const verticals: AgentVerticalId[] = ['universal', ...ENABLED_VERTICAL_IDS];
    this.agents = verticals.map((vertical) => {
      const info = vertical === 'universal' ? undefined : getVertical(vertical);
      return {
        agentId: `${vertical}-agent`,
        agentName: info ? `${info.name} Agent` : 'Universal Agent',
        vertical,
        enabled: true,
        systemPrompt: info ? info.persona : UNIVERSAL_PROMPT,
        timeout: config.agentTimeoutMs,
        model,
        temperature: 0.7,
        maxTokens: 2000,
        connection,
      };
    });
  }

  list(): AgentDefinition[] {
    return this.agents;
  }

  /** The enabled agent of the vertical, else the universal agent, else undefined (use `local`). */
  pick(vertical: string): AgentDefinition | undefined {
    return (
      this.agents.find((a) => a.enabled && a.vertical === vertical) ??
      this.agents.find((a) => a.enabled && a.vertical === 'universal')
    );
  }

  private connectionFromEnvironment(): ProviderConnection {
    const c = this.config;
    if (c.openaiApiKey) return { provider: 'openai', apiKey: c.openaiApiKey, baseUrl: c.openaiBaseUrl };
    if (c.anthropicApiKey) return { provider: 'anthropic', apiKey: c.anthropicApiKey, baseUrl: c.anthropicBaseUrl };
    if (c.azureOpenaiApiKey && c.azureOpenaiEndpoint) {
      return { provider: 'azure', apiKey: c.azureOpenaiApiKey, endpoint: c.azureOpenaiEndpoint, apiVersion: c.azureOpenaiApiVersion };
    }
    if (c.llmBaseUrl) return { provider: 'openai-compatible', baseUrl: c.llmBaseUrl, apiKey: c.llmApiKey };
    return { provider: 'local' };
  }
}
