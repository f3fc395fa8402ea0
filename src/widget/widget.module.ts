import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { PublicWidgetsController } from './public-widgets.controller';
import { WidgetRow } from './widget.entity';
import { WidgetAnalyticsController } from './widget-analytics.controller';
import { WidgetPageController } from './widget-page.controller';
import { WidgetsController } from './widgets.controller';
import { WidgetsService } from './widgets.service';

/**
 * Embeddable chat widgets: settings (console API), the public settings and visitor tokens, the
 * iframe page with its frame-ancestors, the origin lock and per-widget limits the chat channels
 * call. Imports auth for its clock; imports nothing of the chat, which imports this.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WidgetRow]), AuthModule],
  controllers: [WidgetsController, PublicWidgetsController, WidgetPageController, WidgetAnalyticsController],
  providers: [WidgetsService],
  exports: [WidgetsService],
})
export class WidgetModule {}
