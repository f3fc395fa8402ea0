import { Controller, Get, Query } from '@nestjs/common';
import { Clock } from '../common/clock';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import { WidgetRequestsQuerySchema, WidgetRequestsSchema } from '../shared/contracts/widgets';
import { WidgetsService } from './widgets.service';

const DAY_MS = 86_400_000;

/** Analytics' requests per widget (every widget, those without requests too). */
@Controller('api/analytics/widgets')
@Roles(...ACCESS.analyticsRead)
export class WidgetAnalyticsController {
  constructor(
    private readonly widgets: WidgetsService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @Contract({ summary: 'Chat requests through each widget in the last `days` days (30 by default)', query: WidgetRequestsQuerySchema, data: [WidgetRequestsSchema] })
  async requests(@Query() query: { days: number }) {
    return { success: true, data: await this.widgets.requestsPerWidget(this.clock.now() - query.days * DAY_MS) };
  }
}
