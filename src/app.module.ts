import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AgentRegistryService } from './agents/agent-registry.service';
import { UsageRecorderService } from './analytics/usage-recorder.service';
import { ChatGateway } from './chat/chat.gateway';
import { ChatService } from './chat/chat.service';
import { InteractController } from './chat/interact.controller';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health/health.controller';
import { HealthService } from './health/health.service';
import { JobsModule } from './jobs/jobs.module';
import { KnowledgeModule } from './knowledge/knowledge.module';
import { LlmService } from './llm/llm.service';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, JobsModule, KnowledgeModule],
      controllers: [InteractController, HealthController],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        AgentRegistryService,
        LlmService,
        UsageRecorderService,
        ChatService,
        ChatGateway,
        HealthService,
      ],
    };
  }
}
