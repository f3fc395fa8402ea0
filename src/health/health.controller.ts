import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { Contract } from '../common/contract';
import { AgentsHealthResponseSchema, HealthBodySchema } from '../shared/contracts/http';
import { HealthService } from './health.service';

/** GET /health (200 when the database answers, else 503; 503 'draining' from the first moment of a shutdown) and GET /agents/health. */
@Public()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('health')
  @Contract({ summary: 'Service health (503 when the database is unreachable)', response: HealthBodySchema, errors: [503] })
  async check(@Res({ passthrough: true }) res: Response) {
    const data = await this.health.check();
    res.status(data.ok ? 200 : 503);
    return { success: data.ok, ok: data.ok, status: data.status, data };
  }

  @Get('agents/health')
  @Contract({ summary: 'Health of each agent', data: AgentsHealthResponseSchema })
  async agents() {
    return { success: true, data: await this.health.agentsHealth() };
  }
}
