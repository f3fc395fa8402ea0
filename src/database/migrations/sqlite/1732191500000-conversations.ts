import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visitors' conversations and their messages (src/conversations), with a full-text index over the
 * messages for the console's search.
 *
 * - conversations: one open conversation per visitor, vertical and scope (the legal jurisdiction,
 *   '' elsewhere); "New chat" closes it (closed_at) and the next question opens another. The
 *   visitor is stored as the SHA-256 of the cookie secret, never the secret. Counters (messages,
 *   unanswered replies, votes) are kept on the row so the console filters without scanning messages.
 * - conversation_messages: `seq` (INTEGER PRIMARY KEY, so it is the rowid and stable across VACUUM)
 *   orders a conversation and keys the FTS5 index; `id` is the message id (for a reply: its
 *   replyId). Deleting a conversation deletes its messages (and, through the trigger, their index
 *   entries).
 * - conversation_messages_fts: external-content FTS5 (unicode61, diacritics folded, no stemmer, as
 *   the 'simple' configuration on Postgres, so both dialects find the same messages; the search is
 *   by word prefix).
 */
export class ConversationsSqlite1732191500000 implements MigrationInterface {
  name = 'ConversationsSqlite1732191500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE conversations (
      id varchar(36) PRIMARY KEY NOT NULL,
      visitor_key varchar(64) NOT NULL,
      vertical varchar(40) NOT NULL,
      scope varchar(120) NOT NULL DEFAULT '',
      jurisdiction varchar(10),
      sub_jurisdiction varchar(100),
      language varchar(10),
      channel varchar(10) NOT NULL,
      title varchar(200) NOT NULL DEFAULT '',
      message_count integer NOT NULL DEFAULT 0,
      unanswered_count integer NOT NULL DEFAULT 0,
      up_votes integer NOT NULL DEFAULT 0,
      down_votes integer NOT NULL DEFAULT 0,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      closed_at bigint
    )`);
    await q.query('CREATE UNIQUE INDEX idx_conversations_open ON conversations (visitor_key, vertical, scope) WHERE closed_at IS NULL');
    await q.query('CREATE INDEX idx_conversations_visitor ON conversations (visitor_key)');
    await q.query('CREATE INDEX idx_conversations_updated_at ON conversations (updated_at)');
    await q.query('CREATE INDEX idx_conversations_vertical_updated_at ON conversations (vertical, updated_at)');

    await q.query(`CREATE TABLE conversation_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
      id varchar(36) NOT NULL UNIQUE,
      conversation_id varchar(36) NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      role varchar(5) NOT NULL,
      content text NOT NULL,
      status varchar(12) NOT NULL,
      language varchar(10),
      request_id varchar(100),
      created_at bigint NOT NULL,
      confidence double precision,
      answered smallint,
      feedback varchar(4),
      reply text,
      agent_id varchar(100),
      provider varchar(40),
      model varchar(200),
      execution_ms bigint,
      ttft_ms bigint,
      error_code varchar(40),
      error_message varchar(500)
    )`);
    await q.query('CREATE INDEX idx_conversation_messages_conversation ON conversation_messages (conversation_id, seq)');

    await q.query(`CREATE VIRTUAL TABLE conversation_messages_fts USING fts5(
      content,
      content='conversation_messages', content_rowid='seq',
      tokenize='unicode61 remove_diacritics 2'
    )`);
    await q.query(`CREATE TRIGGER conversation_messages_fts_insert AFTER INSERT ON conversation_messages BEGIN
      INSERT INTO conversation_messages_fts (rowid, content) VALUES (new.seq, new.content);
    END`);
    await q.query(`CREATE TRIGGER conversation_messages_fts_delete AFTER DELETE ON conversation_messages BEGIN
      INSERT INTO conversation_messages_fts (conversation_messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    END`);
    await q.query(`CREATE TRIGGER conversation_messages_fts_update AFTER UPDATE OF content ON conversation_messages BEGIN
      INSERT INTO conversation_messages_fts (conversation_messages_fts, rowid, content) VALUES ('delete', old.seq, old.content);
      INSERT INTO conversation_messages_fts (rowid, content) VALUES (new.seq, new.content);
    END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER IF EXISTS conversation_messages_fts_update');
    await q.query('DROP TRIGGER IF EXISTS conversation_messages_fts_delete');
    await q.query('DROP TRIGGER IF EXISTS conversation_messages_fts_insert');
    await q.query('DROP TABLE IF EXISTS conversation_messages_fts');
    await q.query('DROP TABLE IF EXISTS conversation_messages');
    await q.query('DROP TABLE IF EXISTS conversations');
  }
}
