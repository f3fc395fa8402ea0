import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { ShutdownState } from '../common/shutdown-state';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

/**
 * GET /health and GET /agents/health, and the health the chat socket pushes. Owns ShutdownState
 * (the server is draining), which the chat pipeline and the shutdown sequence read too.
 */
@Module({
  imports: [AgentsModule, EmbeddingsModule],
  controllers: [HealthController],
  providers: [HealthService, ShutdownState],
  exports: [HealthService, ShutdownState],
})
export class HealthModule {}
