import { Module } from '@nestjs/common';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { AgentDirectory } from './agent-directory';
import { AnalyticsClock } from './analytics-clock';
import { AnalyticsLiveService } from './analytics-live.service';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { FeedbackController } from './feedback.controller';
import { FeedbackService } from './feedback.service';
import { UsageExportService } from './usage-export.service';
import { UsageRecorderService } from './usage-recorder.service';
import { UsageRollupService } from './usage-rollup.service';

/**
 * LLM usage analytics: the usage recorder (exported: the chat pipeline records through it), the
 * hourly rollup job, the analytics API and export, the live feed to the admin console, and reply
 * feedback. Needs the global DatabaseModule, JobsModule, RateLimitModule and ConfigModule.
 */
@Module({
  imports: [AdminEventsModule],
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
  ],
  exports: [UsageRecorderService, AnalyticsService, UsageRollupService, AnalyticsClock],
})
export class AnalyticsModule {}
