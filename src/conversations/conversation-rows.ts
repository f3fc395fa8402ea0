/**
 * Conversations' and messages' rows as raw SQL reads them, and how they read as the contracts'
 * types (handoff info, reply data).
 */
import type { ReplyData } from '../shared/contracts/chat';
import type { MessageStatus } from '../shared/contracts/conversations';
import { HANDOFF_STATES, type HandoffInfo } from '../shared/contracts/handoff';

export interface ConversationRow extends HandoffColumns {
  id: string;
  vertical: string;
  jurisdiction: string | null;
  sub_jurisdiction: string | null;
  language: string | null;
  created_at: string | number;
  updated_at: string | number;
  queue_position: string | number | null;
}

/** A conversation's handoff columns, as read with raw SQL. */
export interface HandoffColumns {
  handoff_state: string;
  handoff_version: string | number;
  assignee_id: string | null;
  assignee_name: string | null;
  handoff_requested_at: string | number | null;
}

/** The columns' HandoffInfo (queue position and wait as given: only a waiting conversation has them). */
export function handoffInfoOf(row: HandoffColumns, queuePosition: number | null = null, expectedWaitSeconds: number | null = null): HandoffInfo {
  const state = (HANDOFF_STATES as readonly string[]).includes(row.handoff_state) ? (row.handoff_state as HandoffInfo['state']) : 'bot';
  return {
    state,
    version: Number(row.handoff_version ?? 0),
    assignee: row.assignee_id ? { id: row.assignee_id, name: row.assignee_name ?? '' } : null,
    requestedAt: row.handoff_requested_at === null || row.handoff_requested_at === undefined || state === 'bot' ? null : new Date(Number(row.handoff_requested_at)).toISOString(),
    queuePosition: state === 'waiting' ? queuePosition : null,
    expectedWaitSeconds: state === 'waiting' ? expectedWaitSeconds : null,
  };
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'agent' | 'human' | 'note';
  content: string;
  status: MessageStatus;
  language: string | null;
  request_id: string | null;
  created_at: string | number;
  confidence: number | null;
  answered: number | null;
  feedback: 'up' | 'down' | null;
  reply: string | null;
  agent_id: string | null;
  provider: string | null;
  model: string | null;
  execution_ms: string | number | null;
  ttft_ms: string | number | null;
  error_code: string | null;
  error_message: string | null;
  author_name: string | null;
}

export const MESSAGE_COLUMNS =
  'id, conversation_id, role, content, status, language, request_id, created_at, confidence, answered, feedback, reply, agent_id, provider, model, execution_ms, ttft_ms, error_code, error_message, author_name';

/** An epoch-ms column as an ISO timestamp. */
export const iso = (ms: string | number) => new Date(Number(ms)).toISOString();

/** The reply data a stored reply carries (its text is the message's content). */
export function replyDataOf(row: Pick<MessageRow, 'reply' | 'content' | 'id'>): ReplyData | null {
  if (!row.reply) return null;
  try {
    return { ...(JSON.parse(row.reply) as Omit<ReplyData, 'response'>), response: row.content, replyId: row.id };
  } catch {
    return null;
  }
}
