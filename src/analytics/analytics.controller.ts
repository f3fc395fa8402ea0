import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { AgentPerformanceRow, ModelCostRow, PerformanceAnalytics, SystemAnalytics } from '../shared/contracts/analytics';
import { AnalyticsService } from './analytics.service';
import { parseAgentId, parseExportFormat, parseHours } from './dto/analytics-query.dto';
import { UsageExportService } from './usage-export.service';

type Envelope<T> = { success: true; data: T };
type QueryParams = Record<string, unknown>;

/** The analytics API (product-spec section 7 "Analytics"); admin only (global guard and AdminApiGate). */
@Controller('api/analytics')
export class AnalyticsController {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly exports: UsageExportService,
  ) {}

  @Get('system')
  async system(@Query() query: QueryParams): Promise<Envelope<SystemAnalytics>> {
    return { success: true, data: await this.analytics.system(parseHours(query)) };
  }

  @Get('agents')
  async agents(@Query() query: QueryParams): Promise<Envelope<AgentPerformanceRow[]>> {
    return { success: true, data: await this.analytics.agents(parseHours(query), parseAgentId(query)) };
  }

  @Get('costs')
  async costs(@Query() query: QueryParams): Promise<Envelope<ModelCostRow[]>> {
    return { success: true, data: await this.analytics.costs(parseHours(query)) };
  }

  @Get('performance')
  async performance(@Query() query: QueryParams): Promise<Envelope<PerformanceAnalytics>> {
    return { success: true, data: await this.analytics.performance(parseHours(query)) };
  }

  /** Every event of the window as a download, streamed: `format` json (default) or csv. */
  @Get('export')
  async export(@Query() query: QueryParams, @Res() res: Response): Promise<void> {
    await this.exports.stream(parseHours(query), parseExportFormat(query), res);
  }
}
