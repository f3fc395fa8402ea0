import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge gaps (src/conversations/knowledge-gaps.service.ts): visitors' questions that found
 * nothing in the knowledge base, were answered with low confidence or got a thumbs-down, grouped
 * when they ask the same thing. Plain SQL both dialects read alike: the Postgres migration reuses it.
 *
 * - knowledge_gaps: one group; `terms` are the stemmed words it is about (space-separated), the
 *   counters say how often and why it failed; `status` open or resolved.
 * - knowledge_gap_terms: the group's terms, one row each, so a new question finds the groups that
 *   share a word of it through an index rather than by reading every group.
 * - knowledge_gap_questions: each failed reply of a group (by reply id: a thumbs-down on a reply
 *   already counted adds a reason, not a question; `thumbs_down` says it has, so a vote changed
 *   back and forth counts once), with the question's wording.
 */
export class KnowledgeGapsSqlite1732192100000 implements MigrationInterface {
  name = 'KnowledgeGapsSqlite1732192100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_gaps (
      id varchar(36) PRIMARY KEY NOT NULL,
      vertical varchar(40) NOT NULL,
      question varchar(500) NOT NULL,
      terms varchar(1000) NOT NULL,
      ask_count integer NOT NULL DEFAULT 0,
      not_found integer NOT NULL DEFAULT 0,
      low_confidence integer NOT NULL DEFAULT 0,
      thumbs_down integer NOT NULL DEFAULT 0,
      status varchar(10) NOT NULL DEFAULT 'open',
      first_asked_at bigint NOT NULL,
      last_asked_at bigint NOT NULL,
      resolved_at bigint,
      reopened_at bigint
    )`);
    await q.query('CREATE INDEX idx_knowledge_gaps_status ON knowledge_gaps (status, ask_count, last_asked_at)');
    await q.query('CREATE INDEX idx_knowledge_gaps_last_asked ON knowledge_gaps (last_asked_at)');
    await q.query(`CREATE TABLE knowledge_gap_terms (
      gap_id varchar(36) NOT NULL REFERENCES knowledge_gaps (id) ON DELETE CASCADE,
      vertical varchar(40) NOT NULL,
      term varchar(60) NOT NULL,
      PRIMARY KEY (gap_id, term)
    )`);
    await q.query('CREATE INDEX idx_knowledge_gap_terms_term ON knowledge_gap_terms (vertical, term)');
    await q.query(`CREATE TABLE knowledge_gap_questions (
      reply_id varchar(36) PRIMARY KEY NOT NULL,
      gap_id varchar(36) NOT NULL REFERENCES knowledge_gaps (id) ON DELETE CASCADE,
      question varchar(500) NOT NULL,
      asked_at bigint NOT NULL,
      thumbs_down smallint NOT NULL DEFAULT 0
    )`);
    await q.query('CREATE INDEX idx_knowledge_gap_questions_gap ON knowledge_gap_questions (gap_id, asked_at)');
    await q.query('CREATE INDEX idx_knowledge_gap_questions_asked ON knowledge_gap_questions (asked_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS knowledge_gap_questions');
    await q.query('DROP TABLE IF EXISTS knowledge_gap_terms');
    await q.query('DROP TABLE IF EXISTS knowledge_gaps');
  }
}
