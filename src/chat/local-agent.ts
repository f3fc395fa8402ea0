import type { AgentDefinition } from '../agents/agent.types';
import { DEFAULT_MODELS } from '../shared/catalog/providers';

/**
 * The offline responder as an agent: answers from the knowledge base without a provider. Used
 * when no agent of the vertical is enabled, and for a paid reply whose budget cap says "answer
 * offline".
 */
export const LOCAL_AGENT: AgentDefinition = {
  agentId: 'local-responder',
  agentName: 'Knowledge Responder',
  vertical: 'universal',
  enabled: true,
  systemPrompt: 'Answer from the knowledge base.',
  timeout: 30000,
  model: DEFAULT_MODELS.local,
  temperature: 0,
  maxTokens: 2000,
  connection: { provider: 'local' },
};
