import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { HealthService } from './health.service';

/** GET /health (200 when the database answers, else 503) and GET /agents/health. */
@Public()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('health')
  async check(@Res({ passthrough: true }) res: Response) {
    const data = await this.health.check();
    res.status(data.ok ? 200 : 503);
    return { success: data.ok, ok: data.ok, status: data.status, data };
  }

  @Get('agents/health')
  async agents() {
    return { success: true, data: await this.health.agentsHealth() };
  }
}
