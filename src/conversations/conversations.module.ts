import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { AgentsModule } from '../agents/agents.module';
import { ConversationMessage } from './conversation-message.entity';
import { ConversationRetentionService } from './conversation-retention.service';
import { Conversation } from './conversation.entity';
import { ConversationsClock } from './conversations-clock';
import { ConversationsService } from './conversations.service';
import { RepliesController } from './replies.controller';
import { ReplyStreamService } from './reply-streams';
import { VisitorConversationsController } from './visitor-conversations.controller';
import { VisitorIdentity } from './visitor-identity';

/**
 * Visitors' conversations (kept on the server, read back after a reload), resumable reply streams
 * (memory, or Redis Streams with REDIS_URL), replies by id for /interact callers, and the daily
 * retention purge. Exports what the
 * chat pipeline and gateway use. Its tables are written with raw SQL on the DataSource (batched).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Conversation, ConversationMessage]), AdminEventsModule, AgentsModule],
  controllers: [VisitorConversationsController, RepliesController],
  providers: [ConversationsService, ReplyStreamService, VisitorIdentity, ConversationsClock, ConversationRetentionService],
  exports: [ConversationsService, ReplyStreamService, VisitorIdentity, ConversationsClock],
})
export class ConversationsModule {}
