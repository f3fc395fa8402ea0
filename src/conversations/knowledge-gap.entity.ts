import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

/**
 * A knowledge gap: questions of one vertical that found nothing, were answered with low confidence
 * or got a thumbs-down, grouped because they share their stemmed words (`terms`). Written with raw
 * SQL by KnowledgeGapsService; registered here so the schema has one description in code.
 */
@Entity('knowledge_gaps')
@Index('idx_knowledge_gaps_status', ['status', 'askCount', 'lastAskedAt'])
@Index('idx_knowledge_gaps_last_asked', ['lastAskedAt'])
export class KnowledgeGap {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  /** The question as last asked. */
  @Column({ type: 'varchar', length: 500 })
  question: string;

  /** Stemmed words, space-separated (also in knowledge_gap_terms). */
  @Column({ type: 'varchar', length: 1000 })
  terms: string;

  @Column({ name: 'ask_count', type: 'integer', default: 0 })
  askCount: number;

  @Column({ name: 'not_found', type: 'integer', default: 0 })
  notFound: number;

  @Column({ name: 'low_confidence', type: 'integer', default: 0 })
  lowConfidence: number;

  @Column({ name: 'thumbs_down', type: 'integer', default: 0 })
  thumbsDown: number;

  @Column({ type: 'varchar', length: 10, default: 'open' })
  status: 'open' | 'resolved';

  @EpochMsColumn({ name: 'first_asked_at' })
  firstAskedAt: number;

  @EpochMsColumn({ name: 'last_asked_at' })
  lastAskedAt: number;

  @EpochMsColumn({ name: 'resolved_at', nullable: true })
  resolvedAt: number | null;

  @EpochMsColumn({ name: 'reopened_at', nullable: true })
  reopenedAt: number | null;
}

/** One term of a gap (the index a new question finds its candidate groups by). */
@Entity('knowledge_gap_terms')
@Index('idx_knowledge_gap_terms_term', ['vertical', 'term'])
export class KnowledgeGapTerm {
  @PrimaryColumn({ name: 'gap_id', type: 'varchar', length: 36 })
  gapId: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  @PrimaryColumn({ type: 'varchar', length: 60 })
  term: string;
}

/** A failed reply counted in a gap, with its question's wording. */
@Entity('knowledge_gap_questions')
@Index('idx_knowledge_gap_questions_gap', ['gapId', 'askedAt'])
export class KnowledgeGapQuestion {
  @PrimaryColumn({ name: 'reply_id', type: 'varchar', length: 36 })
  replyId: string;

  @Column({ name: 'gap_id', type: 'varchar', length: 36 })
  gapId: string;

  @Column({ type: 'varchar', length: 500 })
  question: string;

  @EpochMsColumn({ name: 'asked_at' })
  askedAt: number;

  /** 1 once a thumbs-down on this reply was counted in the gap. */
  @Column({ name: 'thumbs_down', type: 'smallint', default: 0 })
  thumbsDown: number;
}
