import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { HandoffModule } from '../handoff/handoff.module';
import { HealthModule } from '../health/health.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { LimitsModule } from '../limits/limits.module';
import { LlmModule } from '../llm/llm.module';
import { WidgetModule } from '../widget/widget.module';
import { ChatGateway } from './chat.gateway';
import { ChatService } from './chat.service';
import { InteractController } from './interact.controller';
import { SearchRewriteService } from './search-rewrite.service';

/**
 * The chat pipeline (ChatService) and its channels: the "/" Socket.IO gateway and POST /interact.
 * The A2A and MCP endpoints reach the pipeline through the exported ChatService.
 */
@Module({
  imports: [AgentsModule, AnalyticsModule, ApiKeysModule, ConversationsModule, HandoffModule, HealthModule, KnowledgeModule, LimitsModule, LlmModule, WidgetModule],
  controllers: [InteractController],
  providers: [ChatService, SearchRewriteService, ChatGateway],
  exports: [ChatService],
})
export class ChatModule {}
