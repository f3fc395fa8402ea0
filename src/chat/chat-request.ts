/**
 * What the chat pipeline works with, made from a parsed chat request (the /interact body or
 * `chat:send`, checked by their contracts in src/shared/contracts/chat.ts): the reply language and
 * jurisdiction looked up in the catalogs, and the history the caller sent cut to what a prompt uses.
 */
import { getJurisdiction } from '../shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, getLanguageByName, Language } from '../shared/catalog/languages';
import type { EnabledVerticalId } from '../shared/catalog/verticals';
import type { ParsedInteractRequest } from '../shared/contracts/chat';
import { trimHistory, type HistoryEntry } from '../conversations/history';


export interface ChatRequest {
  query: string;
  vertical: EnabledVerticalId;
  userId: string;
  /**
   * The history the caller sent (`conversationHistory`). The pipeline replaces it with the
   * server's copy of the conversation, unless the caller is stateless (see ConversationsService).
   */
  history: HistoryEntry[];
  language: Language;
  jurisdiction?: { code: string; name: string; legalSystem: string; subRegion?: string; subRegionLabel?: string };
}

function languageOf(value: string | undefined): Language | undefined {
  if (!value) return undefined;
  return getLanguageByName(value) ?? getLanguageByCode(value.toLowerCase());
}

function historyOf(entries: ParsedInteractRequest['conversationHistory']): HistoryEntry[] {
  return trimHistory((entries ?? []).map((entry) => ({ role: entry.type === 'user' ? 'user' : 'assistant', content: entry.content })));
}

export function toChatRequest(body: ParsedInteractRequest): ChatRequest {
  const language = languageOf(body.preferredLanguage) ?? languageOf(body.context?.preferredLanguage) ?? DEFAULT_LANGUAGE;
  const found = body.vertical === 'legal' && body.jurisdiction ? getJurisdiction(body.jurisdiction) : undefined;
  const subRegion = found?.subRegions.find((r) => r.toLowerCase() === body.subJurisdiction?.toLowerCase());
  return {
    query: body.query,
    vertical: body.vertical,
    userId: body.userId || 'anonymous',
    history: historyOf(body.conversationHistory),
    language,
    jurisdiction: found && { code: found.code, name: found.name, legalSystem: found.legalSystem, subRegion, subRegionLabel: found.subRegionLabel },
  };
}
