/**
 * What the chat pipeline works with, made from a parsed chat request (the /interact body or
 * `chat:send`, checked by their contracts in src/shared/contracts/chat.ts): the reply language and
 * jurisdiction looked up in the catalogs, and the history the caller sent cut to what a prompt uses.
 */
import { findSubRegion, getJurisdiction } from '../shared/catalog/jurisdictions';
import { surelyWrittenIn } from '../shared/language-detection';
import { DEFAULT_LANGUAGE, getLanguageByCode, getLanguageByName, Language } from '../shared/catalog/languages';
import type { UsageChannel } from '../analytics/usage-event.entity';
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

/** The offered language `query` is surely written in, if any. */
function writtenIn(query: string): Language | undefined {
  const code = surelyWrittenIn(query);
  return code ? getLanguageByCode(code) : undefined;
}

export function toChatRequest(body: ParsedInteractRequest): ChatRequest {
  // No reply language asked for: the one the question is written in (an API caller sending only a
  // query); detected only then, not for every chat.
  const language = languageOf(body.preferredLanguage) ?? languageOf(body.context?.preferredLanguage) ?? writtenIn(body.query) ?? DEFAULT_LANGUAGE;
  const found = body.vertical === 'legal' && body.jurisdiction ? getJurisdiction(body.jurisdiction) : undefined;
  const subRegion = found && findSubRegion(found, body.subJurisdiction);
  return {
    query: body.query,
    vertical: body.vertical,
    userId: body.userId || 'anonymous',
    history: historyOf(body.conversationHistory),
    language,
    jurisdiction: found && { code: found.code, name: found.name, legalSystem: found.legalSystem, subRegion, subRegionLabel: found.subRegionLabel },
  };
}

/**
 * A turn as stored with its reply stream (REDIS_URL), so that another server can ask it again
 * when the one writing it stops: the question and what the prompt depends on, never the history
 * of a returning visitor (that is read again from the database).
 */
export interface TurnSpec {
  query: string;
  vertical: EnabledVerticalId;
  userId: string;
  language: string;
  jurisdiction?: { code: string; subRegion?: string };
  /** The caller's own history (used only by a stateless caller, see ConversationsService). */
  history: HistoryEntry[];
  requestId: string;
  channel: UsageChannel;
  returning: boolean;
  /** The id of the question's message, so the conversation gets it once. */
  userMessageId: string;
  startedAt: number;
  /** The widget the question came through, if any. */
  widgetId?: string;
}

/** The request a stored turn asks again. */
export function chatRequestOf(spec: TurnSpec): ChatRequest {
  const found = spec.jurisdiction ? getJurisdiction(spec.jurisdiction.code) : undefined;
  const subRegion = found?.subRegions.find((r) => r === spec.jurisdiction?.subRegion);
  return {
    query: spec.query,
    vertical: spec.vertical,
    userId: spec.userId,
    history: trimHistory(spec.history ?? []),
    language: getLanguageByCode(spec.language) ?? DEFAULT_LANGUAGE,
    jurisdiction: found && { code: found.code, name: found.name, legalSystem: found.legalSystem, subRegion, subRegionLabel: found.subRegionLabel },
  };
}
