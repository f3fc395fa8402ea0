import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { AgentDirectory } from './agent-directory';
import { AnalyticsClock } from './analytics-clock';
import { AnalyticsLiveService } from './analytics-live.service';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { FeedbackController } from './feedback.controller';
import { FeedbackService } from './feedback.service';
import { LimitedCounter } from './limited-counter.service';
import { ReplyFeedback } from './reply-feedback.entity';
import { UsageEvent } from './usage-event.entity';
import { UsageExportService } from './usage-export.service';
import { UsageHourlyLatency } from './usage-hourly-latency.entity';
import { UsageHourly } from './usage-hourly.entity';
import { UsageRecorderService } from './usage-recorder.service';
import { UsageRollupService } from './usage-rollup.service';

/**
 * LLM usage analytics: the usage recorder (exported: the chat pipeline records through it), the
 * hourly rollup job, the analytics API and export, the live feed to the admin console, and reply
 * feedback. Its tables are registered here; the services read and write them with raw SQL on the
 * DataSource (batched inserts, rollups, aggregates). Needs the global JobsModule, RateLimitModule
 * and ConfigModule.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UsageEvent, UsageHourly, UsageHourlyLatency, ReplyFeedback]), AdminEventsModule, ConversationsModule],
  controllers: [AnalyticsController, FeedbackController],
  providers: [
    UsageRecorderService,
    AnalyticsClock,
    UsageRollupService,
    AnalyticsService,
    UsageExportService,
    AnalyticsLiveService,
    FeedbackService,
    AgentDirectory,
    LimitedCounter,
  ],
  exports: [UsageRecorderService, AnalyticsService, UsageRollupService, AnalyticsClock, LimitedCounter],
})
export class AnalyticsModule {}
