import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { BigIntColumn, EpochMsColumn } from '../database/columns';

/**
 * A supporting document of a knowledge item: text (.txt, .json) stored as text and indexed with
 * the item; images (.png, .jpg, .jpeg) stored as a data URL. Deleted with its item (FK cascade).
 */
@Entity('knowledge_attachments')
@Index('idx_knowledge_attachments_item_id', ['itemId'])
export class KnowledgeAttachment {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'item_id', type: 'varchar', length: 36 })
  itemId: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  /** MIME type: text/plain, application/json, image/png or image/jpeg. */
  @Column({ type: 'varchar', length: 100 })
  type: string;

  /** Bytes of the file (decoded size for images). */
  @BigIntColumn()
  size: number;

  /** Text for text files, a data URL for images. */
  @Column({ type: 'text' })
  content: string;

  @EpochMsColumn({ name: 'uploaded_at' })
  uploadedAt: number;

  /** Position in the item's list. */
  @Column({ type: 'integer', default: 0 })
  ord: number;
}
