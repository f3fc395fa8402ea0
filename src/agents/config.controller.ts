import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AgentConfigService, KeyTestResult, SystemConfigDto, ValidationReport } from './agent-config.service';
import { AgentConfigDto, parseAgentBody, parseKeyTestBody } from './dto/agent-config.dto';
import type { GlobalSettings } from './global-settings';

type Envelope<T> = { success: true; data: T };

/** The Config API (product-spec section 7 "Config"); admin only (global guard and the admin API gate). */
@Controller('api/config')
export class ConfigController {
  constructor(private readonly configs: AgentConfigService) {}

  @Get()
  async get(): Promise<Envelope<SystemConfigDto>> {
    return { success: true, data: await this.configs.getConfig() };
  }

  @Get('agents')
  async listAgents(): Promise<Envelope<AgentConfigDto[]>> {
    return { success: true, data: (await this.configs.getConfig()).agents };
  }

  @Post('agents')
  async createAgent(@Body() body: unknown): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.createAgent(parseAgentBody(body)) };
  }

  @Get('agents/:id')
  async getAgent(@Param('id') id: string): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.getAgent(id) };
  }

  @Put('agents/:id')
  async updateAgent(@Param('id') id: string, @Body() body: unknown): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.updateAgent(id, parseAgentBody(body)) };
  }

  @Delete('agents/:id')
  async deleteAgent(@Param('id') id: string): Promise<Envelope<{ agentId: string }>> {
    return { success: true, data: await this.configs.deleteAgent(id) };
  }

  @Put('global')
  async updateGlobal(@Body() body: unknown): Promise<Envelope<GlobalSettings>> {
    return { success: true, data: await this.configs.updateGlobal(body) };
  }

  @Post('test-api-key')
  @HttpCode(200)
  async testApiKey(@Body() body: unknown): Promise<Envelope<KeyTestResult>> {
    return { success: true, data: await this.configs.testApiKey(parseKeyTestBody(body)) };
  }

  @Get('validate')
  async validate(): Promise<Envelope<ValidationReport>> {
    return { success: true, data: await this.configs.validate() };
  }

  /** The whole configuration without secrets, as a file download. */
  @Get('export')
  @Header('Cache-Control', 'no-store')
  async export(@Res({ passthrough: true }) res: Response): Promise<unknown> {
    const file = await this.configs.exportConfig();
    res.setHeader('Content-Disposition', `attachment; filename="support-assistant-config-${file.exportedAt.slice(0, 10)}.json"`);
    return file;
  }
}
