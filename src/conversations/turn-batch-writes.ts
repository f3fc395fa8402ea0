/**
 * The SQL of a turn's two writes: its start (the question and a `streaming` reply, opening the
 * conversation when it is not stored yet) and its end (the reply's text, data, timings and
 * status). A batch's starts and ends are written by three set-based statements whatever their
 * number (messages inserted, replies updated, conversations' counters updated); only a turn whose
 * conversation was not stored when it opened is written on its own.
 */
import { DataSource, EntityManager } from 'typeorm';
import { dialectOf } from '../database/data-source';
import { portableSql } from '../database/sql';
import type { Turn, TurnOutcome } from './conversation-turn';

/** A conversation's title: the start of its first question. */
const TITLE_CHARS = 200;

/** A turn's start or end, as queued for the writer (written with the others of its batch: writeTurns). */
export type TurnWrite = { kind: 'start'; turn: Turn } | { kind: 'end'; turn: Turn; outcome: TurnOutcome; at: number };

/** Rows as one array per column (Postgres unnest parameters). */
const columnsOf = (rows: unknown[][], width: number): unknown[][] => Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));

/** The values of a reply's end, in the order of conversation_messages' end columns (id first). */
function endRowOf(turn: Turn, outcome: TurnOutcome): unknown[] {
  return [
    turn.replyId,
    outcome.text,
    outcome.status,
    outcome.confidence ?? null,
    outcome.answered === undefined ? null : outcome.answered ? 1 : 0,
    outcome.data ? JSON.stringify({ ...outcome.data, response: undefined }) : null,
    outcome.agentId ?? null,
    outcome.provider ?? null,
    outcome.model ?? null,
    outcome.executionMs,
    outcome.ttftMs,
    outcome.error?.code ?? null,
    outcome.error ? outcome.error.message.slice(0, 500) : null,
  ];
}

/**
 * A batch's turn starts and ends, in queue order: a start whose conversation was not stored
 * when the turn opened (or that was taken over from a stopped server) is written on its own (writeStart: it opens the conversation, or joins
 * the one another server opened meanwhile); the others' messages go in with one INSERT, the
 * ends with one UPDATE, and each conversation's counters, last activity, language and title
 * with one UPDATE for all (the values the writes one by one would leave). A conversation
 * deleted meanwhile by another server fails the INSERT: the batch is then written op by op.
 */
export async function writeTurns(dataSource: DataSource, m: EntityManager, writes: TurnWrite[]): Promise<void> {
  // Also alone: a turn asked again after a takeover (the stopped server may have stored its messages).
  const alone = (turn: Turn) => !turn.known || turn.resumed === true;
  for (const w of writes) if (w.kind === 'start' && alone(w.turn)) await writeStart(dataSource, m, w.turn);
  const inserted: unknown[][] = [];
  const ended = new Map<string, unknown[]>();
  const counters = new Map<string, { messages: number; unanswered: number; at: number; language: string | null; title: string | null }>();
  const countersOf = (id: string) => {
    let c = counters.get(id);
    if (!c) counters.set(id, (c = { messages: 0, unanswered: 0, at: 0, language: null, title: null }));
    return c;
  };
  for (const w of writes) {
    const { turn } = w;
    if (w.kind === 'start') {
      if (alone(turn)) continue;
      inserted.push([turn.userMessageId, turn.conversationId, 'user', turn.question, 'complete', turn.language, null, turn.startedAt]);
      inserted.push([turn.replyId, turn.conversationId, 'agent', '', 'streaming', turn.language, turn.requestId, turn.startedAt]);
      const c = countersOf(turn.conversationId);
      c.messages += 2;
      c.at = turn.startedAt;
      c.language = turn.language;
      c.title ??= turn.question.slice(0, TITLE_CHARS);
    } else {
      const { outcome } = w;
      // A reply ended twice keeps its last end, as the writes one by one would.
      ended.delete(turn.replyId);
      ended.set(turn.replyId, endRowOf(turn, outcome));
      const c = countersOf(turn.conversationId);
      c.unanswered += outcome.status === 'complete' && outcome.answered === false ? 1 : 0;
      c.at = w.at;
    }
  }
  const sqlite = dialectOf(dataSource) === 'sqlite';
  if (inserted.length > 0) {
    await m.query(
      sqlite
        ? `INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
           SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7 FROM json_each(?) ORDER BY key`
        : `INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
           SELECT id, conversation_id, role, content, status, language, request_id, created_at
             FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::text[], $5::varchar[], $6::varchar[], $7::varchar[], $8::bigint[])
                  WITH ORDINALITY AS j(id, conversation_id, role, content, status, language, request_id, created_at, n)
            ORDER BY n`,
      sqlite ? [JSON.stringify(inserted)] : columnsOf(inserted, 8),
    );
  }
  if (ended.size > 0) {
    const rows = [...ended.values()];
    await m.query(
      sqlite
        ? `UPDATE conversation_messages
              SET content = j.content, status = j.status, confidence = j.confidence, answered = j.answered, reply = j.reply, agent_id = j.agent_id,
                  provider = j.provider, model = j.model, execution_ms = j.execution_ms, ttft_ms = j.ttft_ms, error_code = j.error_code, error_message = j.error_message
             FROM (SELECT value ->> 0 AS mid, value ->> 1 AS content, value ->> 2 AS status, value ->> 3 AS confidence, value ->> 4 AS answered,
                          value ->> 5 AS reply, value ->> 6 AS agent_id, value ->> 7 AS provider, value ->> 8 AS model, value ->> 9 AS execution_ms,
                          value ->> 10 AS ttft_ms, value ->> 11 AS error_code, value ->> 12 AS error_message FROM json_each(?)) AS j
            WHERE conversation_messages.id = j.mid`
        : `UPDATE conversation_messages AS m
              SET content = j.content, status = j.status, confidence = j.confidence, answered = j.answered, reply = j.reply, agent_id = j.agent_id,
                  provider = j.provider, model = j.model, execution_ms = j.execution_ms, ttft_ms = j.ttft_ms, error_code = j.error_code, error_message = j.error_message
             FROM unnest($1::varchar[], $2::text[], $3::varchar[], $4::float8[], $5::smallint[], $6::text[], $7::varchar[], $8::varchar[], $9::varchar[],
                         $10::bigint[], $11::bigint[], $12::varchar[], $13::varchar[])
                  AS j(id, content, status, confidence, answered, reply, agent_id, provider, model, execution_ms, ttft_ms, error_code, error_message)
            WHERE m.id = j.id`,
      sqlite ? [JSON.stringify(rows)] : columnsOf(rows, 13),
    );
  }
  if (counters.size > 0) {
    const rows = [...counters].map(([id, c]) => [id, c.messages, c.unanswered, c.at, c.language, c.title]);
    await m.query(
      sqlite
        ? `UPDATE conversations
              SET message_count = conversations.message_count + j.messages, unanswered_count = conversations.unanswered_count + j.unanswered, updated_at = j.at,
                  language = COALESCE(j.lang, conversations.language),
                  title = CASE WHEN conversations.title = '' AND j.heading IS NOT NULL THEN j.heading ELSE conversations.title END
             FROM (SELECT value ->> 0 AS cid, value ->> 1 AS messages, value ->> 2 AS unanswered, value ->> 3 AS at, value ->> 4 AS lang, value ->> 5 AS heading
                     FROM json_each(?)) AS j
            WHERE conversations.id = j.cid`
        : `UPDATE conversations AS c
              SET message_count = c.message_count + j.messages, unanswered_count = c.unanswered_count + j.unanswered, updated_at = j.at,
                  language = COALESCE(j.language, c.language), title = CASE WHEN c.title = '' AND j.title IS NOT NULL THEN j.title ELSE c.title END
             FROM unnest($1::varchar[], $2::int[], $3::int[], $4::bigint[], $5::varchar[], $6::varchar[]) AS j(id, messages, unanswered, at, language, title)
            WHERE c.id = j.id`,
      sqlite ? [JSON.stringify(rows)] : columnsOf(rows, 6),
    );
  }
}

export async function writeStart(dataSource: DataSource, m: EntityManager, turn: Turn): Promise<void> {
  const sql = (text: string) => portableSql(dataSource, text);
  if (turn.resumed) {
    // The stopped server stored them already: they stay (in their conversation) and count once.
    const mine: { conversation_id: string }[] = await m.query(sql('SELECT conversation_id FROM conversation_messages WHERE id = $1 OR id = $2'), [turn.userMessageId, turn.replyId]);
    if (mine.length > 0) {
      turn.conversationId = mine[0].conversation_id;
      return;
    }
  }
  await ensureConversation(dataSource, m, turn);
  await m.query(
    sql(`INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
         VALUES ($1, $2, 'user', $3, 'complete', $4, NULL, $5), ($6, $2, 'agent', '', 'streaming', $4, $7, $5)`),
    [turn.userMessageId, turn.conversationId, turn.question, turn.language, turn.startedAt, turn.replyId, turn.requestId],
  );
  await m.query(
    sql(`UPDATE conversations
            SET message_count = message_count + 2, updated_at = $2, language = $3,
                title = CASE WHEN title = '' THEN $4 ELSE title END
          WHERE id = $1`),
    [turn.conversationId, turn.startedAt, turn.language, turn.question.slice(0, TITLE_CHARS)],
  );
}

/** Stores the turn's conversation if it is not stored yet (or joins the scope's open one another server stored first). */
export async function ensureConversation(dataSource: DataSource, m: EntityManager, turn: Turn): Promise<void> {
  const sql = (text: string) => portableSql(dataSource, text);
  const existing: { id: string }[] = await m.query(sql('SELECT id FROM conversations WHERE id = $1'), [turn.conversationId]);
  if (existing.length === 0) {
    await m.query(
      sql(`INSERT INTO conversations (id, visitor_key, vertical, scope, jurisdiction, sub_jurisdiction, language, channel, title,
                                      message_count, unanswered_count, up_votes, down_votes, created_at, updated_at, closed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0, 0, 0, $10, $10, $11)
           ON CONFLICT DO NOTHING`),
      [turn.conversationId, turn.visitorKey, turn.vertical, turn.scope, turn.jurisdiction, turn.subJurisdiction, turn.language, turn.channel, turn.question.slice(0, TITLE_CHARS), turn.startedAt, turn.closedAt ?? null],
    );
    // Another server opened this scope's conversation first: the turn joins it.
    const open: { id: string }[] = await m.query(
      sql(`SELECT id FROM conversations WHERE id = $1
           UNION ALL
           SELECT id FROM conversations WHERE visitor_key = $2 AND vertical = $3 AND scope = $4 AND closed_at IS NULL`),
      [turn.conversationId, turn.visitorKey, turn.vertical, turn.scope],
    );
    if (open[0]) turn.conversationId = open[0].id;
  }
}

export async function writeEnd(dataSource: DataSource, m: EntityManager, turn: Turn, outcome: TurnOutcome, at: number): Promise<void> {
  await m.query(
    portableSql(dataSource, `UPDATE conversation_messages
                 SET content = $2, status = $3, confidence = $4, answered = $5, reply = $6, agent_id = $7, provider = $8, model = $9,
                     execution_ms = $10, ttft_ms = $11, error_code = $12, error_message = $13
               WHERE id = $1`),
    endRowOf(turn, outcome),
  );
  await m.query(
    portableSql(dataSource, 'UPDATE conversations SET unanswered_count = unanswered_count + $2, updated_at = $3 WHERE id = $1'),
    [turn.conversationId, outcome.status === 'complete' && outcome.answered === false ? 1 : 0, at],
  );
}
