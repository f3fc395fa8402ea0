import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { A2aRequestHandler } from './a2a/a2a-handler';
import { A2aHttp } from './a2a/a2a-http';
import { A2aStoreModule } from './a2a/a2a-store.module';
import { McpHttp } from './mcp/mcp-http';
import { AdminEventsModule } from './admin-events/admin-events.module';
import { AgentsModule } from './agents/agents.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AuditModule } from './audit/audit.module';
import { AuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import { ServerSecretModule } from './auth/server-secret';
import { ChatModule } from './chat/chat.module';
import { AllExceptionsFilter } from './common/all-exceptions.filter';
import { ClientAddressModule } from './common/client-address';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { ConversationsModule } from './conversations/conversations.module';
import { DatabaseModule } from './database/database.module';
import { HandoffModule } from './handoff/handoff.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { KnowledgeModule } from './knowledge/knowledge.module';
import { IngestionModule } from './ingestion/ingestion.module';
import { LimitsModule } from './limits/limits.module';
import { EmbeddingsModule } from './embeddings/embeddings.module';
import { SpeechModule } from './speech/speech.module';
import { TeamModule } from './team/team.module';
import { WidgetModule } from './widget/widget.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClientAddressModule,
        DatabaseModule,
        JobsModule,
        ServerSecretModule,
        RateLimitModule,
        AuditModule,
        KnowledgeModule,
        IngestionModule,
        AuthModule,
        AdminEventsModule,
        AgentsModule,
        AnalyticsModule,
        ConversationsModule,
        EmbeddingsModule,
        LimitsModule,
        ApiKeysModule,
        A2aStoreModule,
        TeamModule,
        WidgetModule,
        HandoffModule,
        SpeechModule,
        HealthModule,
        ChatModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // Every route needs an admin session unless marked @Public() (src/auth/public.decorator.ts).
        { provide: APP_GUARD, useExisting: AuthGuard },
        A2aRequestHandler,
        A2aHttp,
        McpHttp,
      ],
    };
  }
}
