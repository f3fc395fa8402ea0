/**
 * The service areas ("verticals") a visitor can pick. This list drives the client's tab bar and
 * welcome messages and the server's validation and prompt building, so both sides agree on
 * which verticals exist and which are switched on.
 */

export type VerticalId = 'customer-service' | 'hr' | 'legal' | 'sales' | 'future';

/** Verticals a visitor can actually chat in (the 'future' placeholder is shown but disabled). */
export type EnabledVerticalId = Exclude<VerticalId, 'future'>;

/** Agent configurations may target one vertical or act as the catch-all 'universal' agent. */
export type AgentVerticalId = 'universal' | EnabledVerticalId;

/** Icon names from the client's icon set (lucide). */
export type VerticalIcon = 'MessageCircle' | 'Users' | 'Scale' | 'TrendingUp' | 'Sparkles';

export interface Vertical {
  id: VerticalId;
  /** Tab label and chat panel title. */
  name: string;
  /** Shown under the title in the chat panel. */
  description: string;
  icon: VerticalIcon;
  /** Accent colour, hex. */
  color: string;
  enabled: boolean;
  /** Legal only: the visitor must choose a jurisdiction before chatting. */
  requiresJurisdiction?: boolean;
  /** Small label on the tab, e.g. 'Coming Soon'. */
  badge?: string;
  /** The single agent message a conversation starts with when this vertical is selected. */
  welcomeMessage: string;
  /** The assistant's role in this vertical, inserted into the LLM system prompt. */
  persona: string;
}

export const VERTICALS: readonly Vertical[] = Object.freeze([
  {
    id: 'customer-service',
    name: 'Customer Support',
    description: 'How Can I Help You Today?',
    icon: 'MessageCircle',
    color: '#3B82F6',
    enabled: true,
    welcomeMessage:
      "Hello! I'm your customer support assistant. Ask me about orders, accounts, billing or anything else you need help with.",
    persona:
      'You are a friendly, efficient customer support agent. Resolve the customer’s issue clearly and concisely, and say so plainly when you need more details or cannot help.',
  },
  {
    id: 'hr',
    name: 'Employee Support',
    description: 'Policies, benefits, time off and workplace matters',
    icon: 'Users',
    color: '#10B981',
    enabled: true,
    welcomeMessage:
      "Hi! I'm your employee support assistant. I can help with company policies, benefits, time off and other workplace questions.",
    persona:
      'You are a knowledgeable, discreet HR assistant helping employees with policies, benefits, time off and workplace matters. Be supportive and accurate, and refer sensitive or individual cases to the HR team.',
  },
  {
    id: 'legal',
    name: 'Legal Advisor',
    description: 'Legal information across jurisdictions (general information, not legal advice)',
    icon: 'Scale',
    color: '#8B5CF6',
    enabled: true,
    requiresJurisdiction: true,
    welcomeMessage:
      "Welcome! I'm your legal information assistant. Choose a jurisdiction and ask your question. I provide general legal information, not legal advice.",
    persona:
      'You are a legal information assistant who explains laws and legal processes for the selected jurisdiction in plain language. You give general information only, not legal advice, and you recommend consulting a qualified lawyer licensed in that jurisdiction for specific situations.',
  },
  {
    id: 'sales',
    name: 'Sales Advisor',
    description: 'Strategies, objection handling, lead qualification and closing',
    icon: 'TrendingUp',
    color: '#F59E0B',
    enabled: true,
    welcomeMessage:
      "Hey there! I'm your sales advisor. Let's work on your strategy, handle tough objections, qualify leads or close that next deal.",
    persona:
      'You are an experienced sales coach who gives practical, actionable guidance on sales strategy, objection handling, lead qualification and closing. Prefer concrete techniques and example wording over generalities.',
  },
  {
    id: 'future',
    name: 'More Services',
    description: 'More support areas are on the way',
    icon: 'Sparkles',
    color: '#6B7280',
    enabled: false,
    badge: 'Coming Soon',
    welcomeMessage: 'More services are coming soon. Stay tuned!',
    persona: 'This service area is not available yet.',
  },
] satisfies Vertical[]);

export function getVertical(id: string): Vertical | undefined {
  return VERTICALS.find((v) => v.id === id);
}

export function isVerticalId(id: string): id is VerticalId {
  return getVertical(id) !== undefined;
}

/** Ids of the verticals a visitor can chat in, in tab order. */
export const ENABLED_VERTICAL_IDS: readonly EnabledVerticalId[] = Object.freeze(
  VERTICALS.filter((v) => v.enabled).map((v) => v.id as EnabledVerticalId),
);

export function isEnabledVertical(id: string): id is EnabledVerticalId {
  return (ENABLED_VERTICAL_IDS as readonly string[]).includes(id);
}

/** Verticals a knowledge item may belong to. */
export const KNOWLEDGE_VERTICAL_IDS: readonly EnabledVerticalId[] = ENABLED_VERTICAL_IDS;

export function isKnowledgeVertical(id: string): id is EnabledVerticalId {
  return (KNOWLEDGE_VERTICAL_IDS as readonly string[]).includes(id);
}

/** Verticals an agent configuration may target; 'universal' answers for any vertical without its own agent. */
export const AGENT_VERTICAL_IDS: readonly AgentVerticalId[] = Object.freeze([
  'universal',
  ...ENABLED_VERTICAL_IDS,
]);

export function isAgentVertical(id: string): id is AgentVerticalId {
  return (AGENT_VERTICAL_IDS as readonly string[]).includes(id);
}
