import { AGENT_VERTICAL_IDS, getVertical } from '@shared/catalog/verticals';

/** The agent that answers for any vertical without its own. */
const UNIVERSAL = 'Universal';

/**
 * A vertical as people read it, the same in the chat, the console and the analytics: the
 * catalog's name ('Customer Support', 'Employee Support', ...), 'Universal' for the catch-all
 * agent; an id the catalog does not know is shown as it is.
 */
export function verticalName(id: string): string {
  if (id === 'universal') return UNIVERSAL;
  return getVertical(id)?.name ?? id;
}

/** Names by id of every vertical an agent may target (universal first). */
export const AGENT_VERTICAL_NAMES: Readonly<Record<string, string>> = Object.fromEntries(AGENT_VERTICAL_IDS.map((id) => [id, verticalName(id)]));
