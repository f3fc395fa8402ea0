/**
 * What the chat page reads back of a visitor's conversations: the open ones with their newest
 * messages (after a reload), and a stored reply (once its stream expired). What this server has
 * queued is written first, so that a turn under way is seen.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { portableSql } from '../database/sql';
import {
  VISITOR_MESSAGE_LIMIT,
  type MessageStatus,
  type ReplyStatus,
  type VisitorConversation,
  type VisitorMessage,
} from '../shared/contracts/conversations';
import { handoffInfoOf, iso, MESSAGE_COLUMNS, replyDataOf, type ConversationRow, type MessageRow } from './conversation-rows';
import { ConversationsService } from './conversations.service';

/** Open conversations the chat page gets back (one per vertical and legal jurisdiction). */
const VISITOR_CONVERSATION_LIMIT = 50;

/** How a stored message reads its status (a reply cut off by a stopped server reads as interrupted). */
export type StatusOf = (row: Pick<MessageRow, 'status' | 'created_at'>) => MessageStatus;

/** The visitor's open conversations with their newest messages (the chat page after a reload). */
async function readVisitorConversations(dataSource: DataSource, visitorKey: string, statusOf: StatusOf): Promise<VisitorConversation[]> {
  const conversations: ConversationRow[] = await dataSource.query(
    portableSql(dataSource, `SELECT c.id, c.vertical, c.jurisdiction, c.sub_jurisdiction, c.language, c.created_at, c.updated_at,
                     c.handoff_state, c.handoff_version, c.assignee_id, c.assignee_name, c.handoff_requested_at,
                     CASE WHEN c.handoff_state = 'waiting' THEN
                       (SELECT COUNT(*) FROM conversations w WHERE w.handoff_state = 'waiting' AND w.handoff_requested_at <= c.handoff_requested_at)
                     END AS queue_position
                FROM conversations c WHERE c.visitor_key = $1 AND c.closed_at IS NULL
               ORDER BY c.updated_at DESC LIMIT ${VISITOR_CONVERSATION_LIMIT}`),
    [visitorKey],
  );
  if (conversations.length === 0) return [];
  const ids = conversations.map((c) => c.id);
  const messages: (MessageRow & { rn: string | number; total: string | number })[] = await dataSource.query(
    portableSql(dataSource, `SELECT * FROM (
                SELECT ${MESSAGE_COLUMNS}, seq,
                       ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY seq DESC) AS rn,
                       COUNT(*) OVER (PARTITION BY conversation_id) AS total
                  FROM conversation_messages WHERE conversation_id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')}) AND role <> 'note'
              ) AS recent
              WHERE rn <= ${VISITOR_MESSAGE_LIMIT}
              ORDER BY conversation_id, seq`),
    ids,
  );
  const byConversation = new Map<string, typeof messages>();
  for (const m of messages) {
    let list = byConversation.get(m.conversation_id);
    if (!list) byConversation.set(m.conversation_id, (list = []));
    list.push(m);
  }
  return conversations.map((c) => {
    const rows = byConversation.get(c.id) ?? [];
    return {
      id: c.id,
      vertical: c.vertical as VisitorConversation['vertical'],
      jurisdiction: c.jurisdiction,
      subJurisdiction: c.sub_jurisdiction,
      language: c.language,
      createdAt: iso(c.created_at),
      updatedAt: iso(c.updated_at),
      messages: rows.map((row) => visitorMessageOf(row, statusOf)),
      truncated: rows.length > 0 && Number(rows[0].total) > rows.length,
      handoff: handoffInfoOf(c, c.queue_position === null || c.queue_position === undefined ? null : Number(c.queue_position)),
    };
  });
}

/** A reply as stored, if it belongs to the visitor (GET /interact/replies/{id} once its stream expired). */
async function readStoredReply(dataSource: DataSource, replyId: string, visitorKey: string, statusOf: StatusOf): Promise<ReplyStatus | undefined> {
  const rows: MessageRow[] = await dataSource.query(
    portableSql(dataSource, `SELECT ${MESSAGE_COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')}
                FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
               WHERE m.id = $1 AND m.role IN ('agent', 'human') AND c.visitor_key = $2`),
    [replyId, visitorKey],
  );
  const row = rows[0];
  if (!row) return undefined;
  const message = visitorMessageOf(row, statusOf);
  return { replyId, status: message.status, text: row.content, seq: 0, data: message.reply, error: message.error };
}

/** A stored message as the chat page shows it (a note of a member reads as theirs). */
export function visitorMessageOf(row: MessageRow, statusOf: StatusOf): VisitorMessage {
  return {
    id: row.id,
    role: row.role === 'note' ? 'human' : row.role,
    content: row.content,
    createdAt: iso(row.created_at),
    status: statusOf(row),
    language: row.language,
    requestId: row.request_id,
    reply: row.status === 'complete' ? replyDataOf(row) : null,
    feedback: row.feedback,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    ...(row.role === 'human' ? { author: { name: row.author_name ?? '' } } : {}),
  };
}

@Injectable()
export class VisitorConversationReadsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly conversations: ConversationsService,
  ) {}

  /** The visitor's open conversations with their newest messages (the chat page after a reload). */
  async listForVisitor(visitorKey: string): Promise<VisitorConversation[]> {
    await this.conversations.writer.flush();
    return readVisitorConversations(this.dataSource, visitorKey, (row) => this.conversations.statusOf(row));
  }

  /** A reply as stored, if it belongs to the visitor (GET /interact/replies/{id} once its stream expired). */
  async storedReply(replyId: string, visitorKey: string): Promise<ReplyStatus | undefined> {
    await this.conversations.writer.flush();
    return readStoredReply(this.dataSource, replyId, visitorKey, (row) => this.conversations.statusOf(row));
  }
}
