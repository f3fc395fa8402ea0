import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { Setting } from '../database/setting.entity';
import { MailModule } from '../mail/mail.module';
import { HandoffAnalyticsController } from './handoff-analytics.controller';
import { HandoffClock } from './handoff-clock';
import { HandoffRow } from './handoff.entity';
import { HandoffNotifier } from './handoff-notifier';
import { HandoffSettingsController } from './handoff-settings.controller';
import { HandoffSettingsService } from './handoff-settings.service';
import { HandoffService } from './handoff.service';
import { InboxController } from './inbox.controller';
import { VisitorHandoffController } from './visitor-handoff.controller';

/**
 * Handing a conversation to a person: the states and their one transition service, the inbox
 * API, the visitor's request, members' messages over the socket, notifications (mail, signed
 * webhook through the job queue) and business hours. The chat pipeline asks it whether to stay quiet.
 */
@Module({
  imports: [TypeOrmModule.forFeature([HandoffRow, Setting]), ConversationsModule, AdminEventsModule, MailModule],
  controllers: [InboxController, HandoffSettingsController, VisitorHandoffController, HandoffAnalyticsController],
  providers: [HandoffService, HandoffSettingsService, HandoffNotifier, HandoffClock],
  exports: [HandoffService, HandoffClock, HandoffSettingsService],
})
export class HandoffModule {}
