import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';

/**
 * Hybrid retrieval's embeddings: settings, backfill job, the question's vector. It depends on
 * knowledge/ and plugs into KnowledgeService through the SemanticSearch port (knowledge/semantic-search.ts).
 */
@Module({
  imports: [AgentsModule, AnalyticsModule, KnowledgeModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingsService],
  exports: [EmbeddingsService],
})
export class EmbeddingsModule {}
