import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn, JsonColumn } from '../database/columns';
import type { EnabledVerticalId } from '../shared/catalog/verticals';

/** Verticals a knowledge item can belong to (every vertical a visitor can chat in). */
export type KnowledgeVertical = EnabledVerticalId;

/**
 * One article of the knowledge base, as the admin edits it. Its searchable form lives in
 * `knowledge_chunks`, which the KnowledgeService rewrites in the same transaction as every change.
 */
@Entity('knowledge_items')
@Index('idx_knowledge_items_vertical_updated_at', ['vertical', 'updatedAt'])
@Index('idx_knowledge_items_updated_at', ['updatedAt'])
export class KnowledgeItem {
  /** crypto.randomUUID() */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'text' })
  content: string;

  @Column({ type: 'varchar', length: 100, default: '' })
  category: string;

  @Column({ type: 'varchar', length: 40 })
  vertical: KnowledgeVertical;

  @JsonColumn()
  tags: string[];

  /** Legal items: the jurisdiction code whose law the item states (e.g. US); null: general information. */
  @Column({ type: 'varchar', length: 10, nullable: true })
  jurisdiction: string | null;

  /** Legal items: the state, region or emirate within the jurisdiction; null: all of it. */
  @Column({ name: 'sub_region', type: 'varchar', length: 100, nullable: true })
  subRegion: string | null;

  /** Imported web pages: the page's URL, which replies cite; null for typed and uploaded items. */
  @Column({ name: 'source_url', type: 'varchar', length: 2000, nullable: true })
  sourceUrl: string | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
