/**
 * A chat turn (a question and its reply, from start to end) and the scope it belongs to: the
 * vertical and, for legal, the jurisdiction. One open conversation per visitor, vertical and scope.
 */
import type { EnabledVerticalId } from '../shared/catalog/verticals';
import { findSubRegion, getJurisdiction } from '../shared/catalog/jurisdictions';
import type { ReplyData } from '../shared/contracts/chat';
import type { MessageStatus } from '../shared/contracts/conversations';
import type { HistoryEntry } from './history';

/** What a chat turn is about: the vertical and, for legal, the jurisdiction. */
export interface TurnScope {
  vertical: EnabledVerticalId;
  jurisdiction?: { code: string; subRegion?: string };
}

/** A turn of a conversation: the question and its reply, from start to end. */
export interface Turn {
  replyId: string;
  userMessageId: string;
  requestId: string;
  visitorKey: string;
  conversationId: string;
  vertical: string;
  scope: string;
  jurisdiction: string | null;
  subJurisdiction: string | null;
  channel: string;
  language: string;
  question: string;
  startedAt: number;
  /** The server's copy of the conversation before this question, oldest first (for the prompt). */
  history: HistoryEntry[];
  /** Nothing is stored yet in this conversation (a new one). */
  fresh: boolean;
  /** The conversation's row was read from the database when the turn opened (it is stored). */
  known: boolean;
  /** The question and the streaming reply were handed to the writer. */
  saved: boolean;
  /** "New chat" was pressed while the turn ran: if the turn opens the conversation, it opens it closed. */
  closedAt?: number;
  /** The visitor deleted their conversations while the turn ran: nothing more is written. */
  deleted?: boolean;
  /** How the reply ended (once it has). */
  outcome?: TurnOutcome;
  /** Asked again after a takeover: the server that stopped may have stored the question and the streaming reply. */
  resumed?: boolean;
}

/** How a reply ended, as the message stores it. */
export interface TurnOutcome {
  status: Exclude<MessageStatus, 'streaming'>;
  text: string;
  data?: ReplyData;
  answered?: boolean;
  confidence?: number;
  agentId?: string;
  provider?: string;
  model?: string;
  executionMs: number;
  ttftMs: number | null;
  error?: { code: string; message: string };
}

/** A vote on a stored reply, with the question it answered. */
export interface StoredVote {
  replyId: string;
  conversationId: string;
  vertical: string;
  question: string;
  /** When the question was asked (epoch ms). */
  askedAt: number;
  vote: 'up' | 'down' | null;
  previous: 'up' | 'down' | null;
}

/** The key of a visitor's conversation of a vertical and scope (turns and the history in memory are kept by it). */
export const scopeKeyOf = (visitorKey: string, vertical: string, scope: string): string => `${visitorKey}\u0000${vertical}\u0000${scope}`;

export function scopeOf(scope: TurnScope): string {
  if (scope.vertical !== 'legal' || !scope.jurisdiction) return '';
  return scope.jurisdiction.subRegion ? `${scope.jurisdiction.code}/${scope.jurisdiction.subRegion}` : scope.jurisdiction.code;
}

/** The scope's jurisdiction as a chat names it: the catalog's code and sub-region spelling ("gb", "sct" -> UK/Scotland). */
export function jurisdictionScopeOf(code: string | undefined, subRegion: string | undefined): TurnScope['jurisdiction'] {
  if (!code) return undefined;
  const known = getJurisdiction(code);
  if (!known) return { code: code.toUpperCase(), subRegion };
  return { code: known.code, subRegion: findSubRegion(known, subRegion) ?? subRegion };
}
