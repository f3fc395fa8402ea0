import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Visitors' conversations and their messages (src/conversations), with a full-text index over the
 * messages for the console's search. Same tables as on SQLite (see its migration); the search
 * index is a generated tsvector ('simple' configuration: no stemmer, as the unicode61 FTS5 index)
 * with a GIN index, searched by word prefix.
 */
export class ConversationsPostgres1732191500000 implements MigrationInterface {
  name = 'ConversationsPostgres1732191500000';

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
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
      error_message varchar(500),
      tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
    )`);
    await q.query('CREATE INDEX idx_conversation_messages_conversation ON conversation_messages (conversation_id, seq)');
    await q.query('CREATE INDEX idx_conversation_messages_tsv ON conversation_messages USING GIN (tsv)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS conversation_messages');
    await q.query('DROP TABLE IF EXISTS conversations');
  }
}
