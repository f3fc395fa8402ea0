import { Module } from '@nestjs/common';
import { AgentsModule } from '../../agents/agents.module';
import { AnalyticsModule } from '../../analytics/analytics.module';
import { KnowledgeModule } from '../../knowledge/knowledge.module';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';

/** Hybrid retrieval's embeddings: settings, backfill job, the question's vector (plugged into KnowledgeService). */
@Module({
  imports: [AgentsModule, AnalyticsModule, KnowledgeModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingsService],
  exports: [EmbeddingsService],
})
export class EmbeddingsModule {}
