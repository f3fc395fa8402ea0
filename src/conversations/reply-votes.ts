/**
 * A visitor's vote on a stored reply: kept on its message and in its conversation's counters (the
 * console's feedback filter; the chat page shows it again after a reload), and returned with the
 * question it answered (knowledge gaps count it).
 */
import { DataSource, EntityManager } from 'typeorm';
import { portableSql } from '../database/sql';
import type { StoredVote } from './conversation-turn';

/** Writes the vote in `m`; undefined for a reply that is in no conversation (deleted): nothing changes. */
export async function writeVote(dataSource: DataSource, m: EntityManager, replyId: string, vote: 'up' | 'down' | null): Promise<StoredVote | undefined> {
  const sql = (text: string) => portableSql(dataSource, text);
  const rows: { conversation_id: string; feedback: 'up' | 'down' | null; seq: string | number; created_at: string | number; vertical: string }[] = await m.query(
    sql(`SELECT m.conversation_id, m.feedback, m.seq, m.created_at, c.vertical
           FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
          WHERE m.id = $1 AND m.role = 'agent'`),
    [replyId],
  );
  const reply = rows[0];
  if (!reply) return undefined;
  const previous = reply.feedback;
  if (previous !== vote) {
    const delta = (which: 'up' | 'down') => (vote === which ? 1 : 0) - (previous === which ? 1 : 0);
    await m.query(sql('UPDATE conversation_messages SET feedback = $2 WHERE id = $1'), [replyId, vote]);
    await m.query(sql('UPDATE conversations SET up_votes = up_votes + $2, down_votes = down_votes + $3 WHERE id = $1'), [reply.conversation_id, delta('up'), delta('down')]);
  }
  const question: { content: string }[] = await m.query(
    sql(`SELECT content FROM conversation_messages WHERE conversation_id = $1 AND role = 'user' AND seq < $2 ORDER BY seq DESC LIMIT 1`),
    [reply.conversation_id, reply.seq],
  );
  return {
    replyId,
    conversationId: reply.conversation_id,
    vertical: reply.vertical,
    question: question[0]?.content ?? '',
    askedAt: Number(reply.created_at),
    vote,
    previous,
  };
}
