import { KnowledgeGapsSqlite1732192100000 } from '../sqlite/1732192100000-knowledge-gaps';

/**
 * Knowledge gaps: the same tables as on SQLite (see its migration): the statements are plain SQL
 * both dialects read alike (varchar, integer, bigint, smallint, composite keys, ON DELETE CASCADE).
 */
export class KnowledgeGapsPostgres1732192100000 extends KnowledgeGapsSqlite1732192100000 {
  override name = 'KnowledgeGapsPostgres1732192100000';
}
