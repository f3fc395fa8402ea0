import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { KnowledgeItem } from './knowledge-item.entity';

/**
 * One searchable passage of a knowledge item (see chunker.ts). Rows are derived data: the service
 * deletes and re-inserts an item's chunks whenever the item changes, never edits them in place.
 *
 * The integer id is what the search index (migrations 1732190600000-knowledge-search, see
 * postings-format.ts) records: triggers on this table keep its postings, in the same transaction as every
 * insert, update and delete. Postgres also keeps generated columns (`tsv`, `doc_len`) that the
 * triggers read and that are deliberately not mapped here.
 */
@Entity('knowledge_chunks')
@Index('idx_knowledge_chunks_item_id', ['itemId', 'ord'])
export class KnowledgeChunk {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ name: 'item_id', type: 'varchar', length: 36 })
  itemId: string;

  @ManyToOne(() => KnowledgeItem, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'item_id' })
  item?: KnowledgeItem;

  /** 0-based position in the item. */
  @Column({ type: 'integer' })
  ord: number;

  /** Copied from the item so a vertical-scoped search needs no join. */
  @Column({ type: 'varchar', length: 40 })
  vertical: string;

  /**
   * The item's jurisdiction as one key, copied like the vertical so that a legal search can leave
   * out other jurisdictions' chunks without a join: `US` (all of it) or `US/California`; null for
   * items without a jurisdiction (general information). See jurisdictionKey().
   */
  @Column({ type: 'varchar', length: 120, nullable: true })
  jurisdiction: string | null;

  /** The item's title, repeated on every chunk so title words are weighted in every passage. */
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'text' })
  text: string;

  /** Whitespace-separated words in `text`. */
  @Column({ name: 'token_count', type: 'integer' })
  tokenCount: number;
}
