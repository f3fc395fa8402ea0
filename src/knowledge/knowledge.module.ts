import { Module } from '@nestjs/common';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { KnowledgeSeeder } from './knowledge-seeder.service';
import { KnowledgeController } from './knowledge.controller';
import { KnowledgeService } from './knowledge.service';

/**
 * The knowledge base: KnowledgeService (CRUD + retrieval) for the admin API and the chat pipeline,
 * and the first-start sample seeder. Needs the global DatabaseModule (DataSource) and APP_CONFIG.
 * Every change made through the API is pushed to open admin consoles (`knowledge:changed`).
 */
@Module({
  imports: [AdminEventsModule],
  controllers: [KnowledgeController],
  providers: [KnowledgeService, KnowledgeSeeder],
  exports: [KnowledgeService],
})
export class KnowledgeModule {}
