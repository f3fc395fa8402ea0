/**
 * Services built outside Nest, on a DataSource from openDataSource (unit specs, benchmarks): each
 * gets the repositories Nest would inject (see the feature's `TypeOrmModule.forFeature`).
 */
import type { DataSource } from 'typeorm';
import { KnowledgeAttachment } from '../../src/knowledge/knowledge-attachment.entity';
import { KnowledgeChunk } from '../../src/knowledge/knowledge-chunk.entity';
import { KnowledgeItem } from '../../src/knowledge/knowledge-item.entity';
import { KnowledgeService } from '../../src/knowledge/knowledge.service';

/** A KnowledgeService of its own (its own, empty search cache). */
export function knowledgeServiceOn(dataSource: DataSource): KnowledgeService {
  return new KnowledgeService(
    dataSource,
    dataSource.getRepository(KnowledgeItem),
    dataSource.getRepository(KnowledgeChunk),
    dataSource.getRepository(KnowledgeAttachment),
  );
}
