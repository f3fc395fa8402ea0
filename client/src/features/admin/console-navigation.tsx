import { createContext, useContext } from 'react';

/** What "Create knowledge item" hands the Knowledge Base tab: the fields the editor opens with. */
export interface KnowledgeDraft {
  title: string;
  vertical: string;
  content?: string;
}

/**
 * Moves between the console's tabs with something to do there: Knowledge gaps' "Create knowledge
 * item" opens the Knowledge Base tab with the editor prefilled. The console shell provides it.
 */
export interface ConsoleNavigation {
  /** The draft waiting for the Knowledge Base tab (a new `key` for each request). */
  knowledgeDraft: { key: number; draft: KnowledgeDraft } | null;
  createKnowledgeItem(draft: KnowledgeDraft): void;
  /** The Knowledge Base tab took the draft. */
  draftOpened(): void;
}

export const ConsoleNavigationContext = createContext<ConsoleNavigation | null>(null);

/** Null outside the console (a tab rendered alone, in its tests). */
export function useConsoleNavigation(): ConsoleNavigation | null {
  return useContext(ConsoleNavigationContext);
}
