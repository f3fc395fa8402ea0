import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { Setting } from '../database/setting.entity';
import { KnowledgeAttachment } from './knowledge-attachment.entity';
import { KnowledgeChunk } from './knowledge-chunk.entity';
import { KnowledgeItem } from './knowledge-item.entity';
import { KnowledgeSeeder } from './knowledge-seeder.service';
import { KnowledgeController } from './knowledge.controller';
import { KnowledgeService } from './knowledge.service';
import { PublicKnowledgeController } from './public-knowledge.controller';

/**
 * The knowledge base: KnowledgeService (CRUD + retrieval) for the admin API and the chat pipeline,
 * and the first-start sample seeder. Search runs raw SQL on the DataSource (search-index.ts); the rest
 * goes through the repositories registered here. Needs APP_CONFIG.
 * Every change made through the API is pushed to open admin consoles (`knowledge:changed`).
 *
 * Direction: knowledge/ owns the knowledge base and the finding over it (chunks, search indexes,
 * BM25, fusion with the semantic port) and applies retrieval/'s stateless rules; retrieval/ never
 * imports knowledge/, and embeddings/ plugs in through semantic-search.ts (eslint.config.mjs).
 */
@Module({
  imports: [TypeOrmModule.forFeature([KnowledgeItem, KnowledgeChunk, KnowledgeAttachment, Setting]), AdminEventsModule],
  controllers: [KnowledgeController, PublicKnowledgeController],
  providers: [KnowledgeService, KnowledgeSeeder],
  exports: [KnowledgeService],
})
export class KnowledgeModule {}
