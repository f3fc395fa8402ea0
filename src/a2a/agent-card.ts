/**
 * The A2A agent card (served at /.well-known/agent-card.json): who the agent is, that it streams,
 * one skill per enabled vertical (its id is what a message's `skillId` metadata names), the
 * JSON-RPC interface at /a2a (protocol 1.0, and 0.3 through the SDK's compatibility layer for
 * clients that send no A2A-Version), and how to authenticate: an API key with the `a2a` scope, as
 * a bearer token or in X-API-Key.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { getVertical, type EnabledVerticalId } from '../shared/catalog/verticals';

export const A2A_PATH = '/a2a';

const SKILL_DETAILS: Partial<Record<EnabledVerticalId, { tags: string[]; examples: string[]; note?: string }>> = {
  'customer-service': { tags: ['support', 'orders', 'billing', 'accounts'], examples: ['How do I reset my password?', 'Where is my order?'] },
  hr: { tags: ['hr', 'policies', 'benefits', 'time off'], examples: ['How many vacation days do I get?'] },
  legal: {
    tags: ['legal', 'law', 'compliance'],
    examples: ['What notice period applies when an employee resigns?'],
    note: ' Send the jurisdiction code in the message metadata (`jurisdiction`, e.g. "US", and `subJurisdiction` where laws differ inside it, e.g. "California"). General information, not legal advice.',
  },
  sales: { tags: ['sales', 'pricing', 'plans'], examples: ['Which plan fits a team of 20?'] },
};

function skillOf(id: EnabledVerticalId): AgentSkill {
  const vertical = getVertical(id);
  const details = SKILL_DETAILS[id] ?? { tags: [id], examples: [] };
  return {
    id,
    name: vertical?.name ?? id,
    description: `${vertical?.description ?? ''} Answers grounded in the knowledge base, with the sources it drew on.${details.note ?? ''}`.trim(),
    tags: details.tags,
    examples: details.examples,
    inputModes: ['text/plain'],
    outputModes: ['text/plain', 'application/json'],
    securityRequirements: [],
  };
}

/** The card for a server reached at `baseUrl` (scheme and host, no trailing slash). */
export function agentCard(baseUrl: string, verticals: readonly EnabledVerticalId[]): AgentCard {
  const url = `${baseUrl}${A2A_PATH}`;
  return {
    name: 'Support Assistant',
    description:
      'A multi-topic support assistant that answers from its knowledge base (customer support, employee support, legal information, sales), citing its sources. Name the topic with the skill id in the message metadata (`skillId`).',
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: process.env.npm_package_version ?? '0.1.0',
    documentationUrl: `${baseUrl}/api/docs`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      apiKeyBearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: 'sak_…', description: 'An API key with the a2a scope (issued in the console, API keys tab).' },
        },
      },
      apiKey: { scheme: { $case: 'apiKeySecurityScheme', value: { location: 'header', name: 'X-API-Key', description: 'The same API key in the X-API-Key header.' } } },
    },
    securityRequirements: [{ schemes: { apiKeyBearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: verticals.map(skillOf),
    signatures: [],
  };
}
