import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { AgentsModule } from '../agents/agents.module';
import { ConversationMessage } from './conversation-message.entity';
import { ConversationRetentionService } from './conversation-retention.service';
import { ConversationTranscriptsService } from './conversation-transcripts.service';
import { Conversation } from './conversation.entity';
import { ConversationsClock } from './conversations-clock';
import { ConversationsController, KnowledgeGapsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';
import { KnowledgeGap, KnowledgeGapQuestion, KnowledgeGapTerm } from './knowledge-gap.entity';
import { KnowledgeGapsService } from './knowledge-gaps.service';
import { RepliesController } from './replies.controller';
import { ReplyLookupService } from './reply-lookup.service';
import { ReplyStreamService } from './reply-streams';
import { VisitorConversationReadsService } from './visitor-conversation-reads.service';
import { VisitorConversationsController } from './visitor-conversations.controller';
import { VisitorIdentity } from './visitor-identity';

/**
 * Visitors' conversations (kept on the server, read back after a reload), resumable reply streams
 * (memory, or Redis Streams with REDIS_URL), replies by id for /interact callers, the daily
 * retention purge, and for the console the transcripts (list, search, export) and knowledge gaps. Exports what the
 * chat pipeline and gateway use. Its tables are written with raw SQL on the DataSource (batched).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Conversation, ConversationMessage, KnowledgeGap, KnowledgeGapTerm, KnowledgeGapQuestion]), AdminEventsModule, AgentsModule],
  controllers: [VisitorConversationsController, RepliesController, ConversationsController, KnowledgeGapsController],
  providers: [
    ConversationsService,
    ReplyStreamService,
    VisitorIdentity,
    ConversationsClock,
    ConversationRetentionService,
    ConversationTranscriptsService,
    KnowledgeGapsService,
    ReplyLookupService,
    VisitorConversationReadsService,
  ],
  exports: [ConversationsService, ReplyStreamService, VisitorIdentity, ConversationsClock, ConversationTranscriptsService, KnowledgeGapsService, VisitorConversationReadsService],
})
export class ConversationsModule {}
