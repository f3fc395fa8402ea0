import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Handing a conversation to a person: its handoff state (bot, waiting, open, resolved) with a
 * version that every transition bumps (two agents taking one conversation: the second write finds
 * another version and is refused), the member it is assigned to, and the visitor's email for a
 * reply by mail. One `handoffs` row per time a person was asked for (Analytics: handoffs per
 * vertical, time to the first human reply, time to resolve, the question that led to it).
 * Messages name their author (a member's reply, role `human`; an internal note, role `note`).
 */
export class HandoffPostgres1732195000000 implements MigrationInterface {
  name = 'HandoffPostgres1732195000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE conversations ADD COLUMN handoff_state varchar(10) NOT NULL DEFAULT 'bot'");
    await q.query('ALTER TABLE conversations ADD COLUMN handoff_version integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE conversations ADD COLUMN handoff_id varchar(36)');
    await q.query('ALTER TABLE conversations ADD COLUMN assignee_id varchar(36)');
    await q.query('ALTER TABLE conversations ADD COLUMN assignee_name varchar(100)');
    await q.query('ALTER TABLE conversations ADD COLUMN handoff_requested_at bigint');
    await q.query('ALTER TABLE conversations ADD COLUMN visitor_email varchar(254)');
    await q.query('CREATE INDEX idx_conversations_handoff ON conversations (handoff_state, handoff_requested_at)');
    await q.query('ALTER TABLE conversation_messages ADD COLUMN author_id varchar(36)');
    await q.query('ALTER TABLE conversation_messages ADD COLUMN author_name varchar(100)');
    await q.query(`CREATE TABLE handoffs (
      id varchar(36) PRIMARY KEY NOT NULL,
      conversation_id varchar(36) NOT NULL,
      vertical varchar(40) NOT NULL,
      reason varchar(20) NOT NULL,
      question varchar(500),
      gap_id varchar(36),
      within_hours smallint NOT NULL DEFAULT 1,
      requested_at bigint NOT NULL,
      taken_at bigint,
      first_reply_at bigint,
      resolved_at bigint,
      assignee_id varchar(36)
    )`);
    await q.query('CREATE INDEX idx_handoffs_requested_at ON handoffs (requested_at)');
    await q.query('CREATE INDEX idx_handoffs_conversation ON handoffs (conversation_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE handoffs');
    await q.query('ALTER TABLE conversation_messages DROP COLUMN author_name');
    await q.query('ALTER TABLE conversation_messages DROP COLUMN author_id');
    await q.query('DROP INDEX idx_conversations_handoff');
    for (const column of ['visitor_email', 'handoff_requested_at', 'assignee_name', 'assignee_id', 'handoff_id', 'handoff_version', 'handoff_state']) {
      await q.query(`ALTER TABLE conversations DROP COLUMN ${column}`);
    }
  }
}
