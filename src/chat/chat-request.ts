/**
 * What the chat pipeline works with, made from a parsed chat request (the /interact body or
 * `chat:send`, checked by their contracts in src/shared/contracts/chat.ts): the reply language and
 * jurisdiction looked up in the catalogs, and the conversation history cut to what the prompt uses.
 */
import { getJurisdiction } from '../shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, getLanguageByName, Language } from '../shared/catalog/languages';
import type { EnabledVerticalId } from '../shared/catalog/verticals';
import type { ParsedInteractRequest } from '../shared/contracts/chat';

/** Conversation history kept for the prompt: the newest entries, by count and by total size. */
export const MAX_HISTORY_ENTRIES = 20;
export const MAX_HISTORY_CHARS = 16000;
const MAX_HISTORY_ENTRY_CHARS = 4000;

export interface ChatRequest {
  query: string;
  vertical: EnabledVerticalId;
  userId: string;
  history: { role: 'user' | 'assistant'; content: string }[];
  language: Language;
  jurisdiction?: { code: string; name: string; legalSystem: string; subRegion?: string; subRegionLabel?: string };
}

function languageOf(value: string | undefined): Language | undefined {
  if (!value) return undefined;
  return getLanguageByName(value) ?? getLanguageByCode(value.toLowerCase());
}

function historyOf(entries: ParsedInteractRequest['conversationHistory']): ChatRequest['history'] {
  const kept: ChatRequest['history'] = [];
  let size = 0;
  for (let i = (entries?.length ?? 0) - 1; i >= 0 && kept.length < MAX_HISTORY_ENTRIES; i -= 1) {
    const entry = entries![i];
    const content = entry.content.slice(0, MAX_HISTORY_ENTRY_CHARS);
    if (content.trim() === '') continue;
    if (size + content.length > MAX_HISTORY_CHARS) break;
    size += content.length;
    kept.unshift({ role: entry.type === 'user' ? 'user' : 'assistant', content });
  }
  return kept;
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
