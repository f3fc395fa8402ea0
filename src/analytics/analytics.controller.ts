import { Controller, Get, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { z } from 'zod';
import { Contract } from '../common/contract';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import {
  AgentAnalyticsQuerySchema,
  AgentPerformanceRowSchema,
  AnalyticsWindowQuerySchema,
  ExportQuerySchema,
  ModelCostRowSchema,
  PerformanceAnalyticsSchema,
  SystemAnalyticsSchema,
  UsageExportRowSchema,
  type AgentPerformanceRow,
  type ModelCostRow,
  type PerformanceAnalytics,
  type SystemAnalytics,
} from '../shared/contracts/analytics';
import { AnalyticsService } from './analytics.service';
import { UsageExportService } from './usage-export.service';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';
type Window = z.output<typeof AnalyticsWindowQuerySchema>;

/** The analytics API; admin only (global guard and AdminApiGate). */
@Controller('api/analytics')
export class AnalyticsController {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly exports: UsageExportService,
  ) {}

  @Get('system')
  @Roles(...ACCESS.analyticsRead)
  @Contract({ summary: 'Requests, tokens, cost, requests by vertical, recent errors and an hourly series', query: AnalyticsWindowQuerySchema, data: SystemAnalyticsSchema })
  async system(@Query() query: Window): Promise<Envelope<SystemAnalytics>> {
    return { success: true, data: await this.analytics.system(query.hours) };
  }

  @Get('agents')
  @Roles(...ACCESS.analyticsRead)
  @Contract({ summary: 'Performance per agent', query: AgentAnalyticsQuerySchema, data: [AgentPerformanceRowSchema] })
  async agents(@Query() query: z.output<typeof AgentAnalyticsQuerySchema>): Promise<Envelope<AgentPerformanceRow[]>> {
    return { success: true, data: await this.analytics.agents(query.hours, query.agentId) };
  }

  @Get('costs')
  @Roles(...ACCESS.analyticsRead)
  @Contract({ summary: 'Cost per provider and model', query: AnalyticsWindowQuerySchema, data: [ModelCostRowSchema] })
  async costs(@Query() query: Window): Promise<Envelope<ModelCostRow[]>> {
    return { success: true, data: await this.analytics.costs(query.hours) };
  }

  @Get('performance')
  @Roles(...ACCESS.analyticsRead)
  @Contract({ summary: 'Latency (mean, p50, p95) and time to first token', query: AnalyticsWindowQuerySchema, data: PerformanceAnalyticsSchema })
  async performance(@Query() query: Window): Promise<Envelope<PerformanceAnalytics>> {
    return { success: true, data: await this.analytics.performance(query.hours) };
  }

  /** Every event of the window as a download, streamed: `format` json (default) or csv. */
  @Get('export')
  @Roles(...ACCESS.analyticsRead)
  @Contract({
    summary: 'Download every usage event of the window',
    query: ExportQuerySchema,
    content: {
      'application/json': { schema: UsageExportRowSchema, description: 'format=json: a JSON array of these rows (streamed).' },
      'text/csv': { description: 'format=csv: a header line with the same columns, then one line per event.' },
    },
  })
  async export(@Query() query: z.output<typeof ExportQuerySchema>, @Res() res: Response): Promise<void> {
    await this.exports.stream(query.hours, query.format, res);
  }
}
