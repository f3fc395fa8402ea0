import { getJurisdiction, type Jurisdiction, type JurisdictionCode } from '@shared/catalog/jurisdictions';
import type { Language } from '@shared/catalog/languages';
import type { VerticalId } from '@shared/catalog/verticals';
import type { ChatHistoryEntry } from '@shared/contracts/chat';
import { MAX_HISTORY_ARRAY, MAX_HISTORY_ENTRY_CHARS } from '@shared/contracts/chat-limits';
import type { ChatSendPayload } from '@shared/contracts/socket';
import type { ChatMessage } from '../../../lib/reply-stream';

/** Visitors are anonymous: every chat carries this fixed demo user id. */
export const DEMO_USER_ID = 'demo-user';

/** The jurisdiction chosen in the modal; `subRegion` is set for US, UK and AE. */
export interface JurisdictionChoice {
  code: JurisdictionCode;
  subRegion?: string;
}

export interface ChatSelection {
  vertical: VerticalId;
  language: Language;
  jurisdiction?: JurisdictionChoice | null;
}

/** "California, United States" or "Japan". */
export function jurisdictionPlace(jurisdiction: Jurisdiction, subRegion?: string): string {
  return subRegion ? `${subRegion}, ${jurisdiction.name}` : jurisdiction.name;
}

/** A request id the server accepts (1-100 of [A-Za-z0-9._:-]); randomUUID needs a secure context. */
export function newRequestId(): string {
  const random = globalThis.crypto?.randomUUID?.() ?? `${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  return `c-${Date.now().toString(36)}-${random}`;
}

/** The prior messages, oldest first, as the server reads them (within the contract's limits). */
export function historyOf(messages: readonly ChatMessage[]): ChatHistoryEntry[] {
  return messages
    .filter((m) => m.content.trim() !== '' && !m.streaming)
    .slice(-MAX_HISTORY_ARRAY)
    .map((m) => ({ type: m.type, content: m.content.slice(0, MAX_HISTORY_ENTRY_CHARS), timestamp: m.timestamp }));
}

/** The chat request (the /interact body, plus the socket's requestId). */
export function buildChatPayload(
  requestId: string,
  query: string,
  selection: ChatSelection,
  priorMessages: readonly ChatMessage[],
): ChatSendPayload {
  const { vertical, language } = selection;
  const payload: ChatSendPayload = {
    requestId,
    query,
    // A tab visitors cannot use (disabled) is refused by the contract check before anything is sent.
    vertical: vertical as ChatSendPayload['vertical'],
    userId: DEMO_USER_ID,
    conversationHistory: historyOf(priorMessages),
    preferredLanguage: language.name,
    detectedLanguage: language.code,
    context: { preferredLanguage: language.name, skipTranslation: language.name === 'English' },
  };
  const jurisdiction = selection.jurisdiction ? getJurisdiction(selection.jurisdiction.code) : undefined;
  if (vertical === 'legal' && jurisdiction) {
    payload.jurisdiction = jurisdiction.code;
    if (selection.jurisdiction?.subRegion) payload.subJurisdiction = selection.jurisdiction.subRegion;
    payload.context = { ...payload.context, jurisdictionName: jurisdiction.name, legalSystem: jurisdiction.legalSystem };
  }
  return payload;
}
