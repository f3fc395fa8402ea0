import { Body, Controller, Delete, Get, Header, Param, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { z } from 'zod';
import { Contract } from '../common/contract';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import {
  AgentConfigSchema,
  AgentCreateSchema,
  AgentDeletedSchema,
  AgentUpdateSchema,
  ConfigExportSchema,
  GlobalSettingsSchema,
  GlobalSettingsUpdateSchema,
  KeyTestRequestSchema,
  KeyTestResultSchema,
  SystemConfigSchema,
  ValidationReportSchema,
  type AgentConfigDto,
  type KeyTestInput,
} from '../shared/contracts/config';
import { AgentConfigService, KeyTestResult, SystemConfigDto, ValidationReport } from './agent-config.service';
import type { GlobalSettings } from './global-settings';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/** The Config API; admin only (global guard and the admin API gate). */
@Controller('api/config')
export class ConfigController {
  constructor(private readonly configs: AgentConfigService) {}

  @Get()
  @Roles(...ACCESS.configuration)
  @Contract({ summary: 'The agents (keys masked) and the global settings', data: SystemConfigSchema })
  async get(): Promise<Envelope<SystemConfigDto>> {
    return { success: true, data: await this.configs.getConfig() };
  }

  @Get('agents')
  @Roles(...ACCESS.configuration)
  @Contract({ summary: 'List the agents (keys masked)', data: [AgentConfigSchema] })
  async listAgents(): Promise<Envelope<AgentConfigDto[]>> {
    return { success: true, data: (await this.configs.getConfig()).agents };
  }

  @Post('agents')
  @Roles(...ACCESS.configuration)
  @Audit('agent.create', { target: 'agent', idFrom: (reply: Envelope<AgentConfigDto>) => reply.data.agentId })
  @Contract({ summary: 'Create an agent', body: AgentCreateSchema, data: AgentConfigSchema, status: 201, errors: [409] })
  async createAgent(@Body() input: z.output<typeof AgentCreateSchema>): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.createAgent(input) };
  }

  @Get('agents/:id')
  @Roles(...ACCESS.configuration)
  @Contract({ summary: 'Read an agent (key masked)', data: AgentConfigSchema, errors: [404] })
  async getAgent(@Param('id') id: string): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.getAgent(id) };
  }

  @Put('agents/:id')
  @Roles(...ACCESS.configuration)
  @Audit('agent.update', { target: 'agent' })
  @Contract({
    summary: 'Change an agent',
    description: 'Any subset of the fields. `llmConfig.apiKey`: absent, empty or the mask keeps the stored key; null removes it.',
    body: AgentUpdateSchema,
    data: AgentConfigSchema,
    errors: [404],
  })
  async updateAgent(@Param('id') id: string, @Body() input: z.output<typeof AgentUpdateSchema>): Promise<Envelope<AgentConfigDto>> {
    return { success: true, data: await this.configs.updateAgent(id, input) };
  }

  @Delete('agents/:id')
  @Roles(...ACCESS.configuration)
  @Audit('agent.delete', { target: 'agent' })
  @Contract({ summary: 'Delete an agent', data: AgentDeletedSchema, errors: [404] })
  async deleteAgent(@Param('id') id: string): Promise<Envelope<{ agentId: string }>> {
    return { success: true, data: await this.configs.deleteAgent(id) };
  }

  @Put('global')
  @Roles(...ACCESS.configuration)
  @Audit('settings.update', { target: 'settings', id: 'global' })
  @Contract({ summary: 'Change the global settings', body: GlobalSettingsUpdateSchema, data: GlobalSettingsSchema })
  async updateGlobal(@Body() update: z.output<typeof GlobalSettingsUpdateSchema>): Promise<Envelope<GlobalSettings>> {
    return { success: true, data: await this.configs.updateGlobal(update) };
  }

  @Post('test-api-key')
  @Roles(...ACCESS.configuration)
  @Audit('agent.key-test')
  @Contract({
    summary: 'Test an API key',
    description: "Lists the provider's models with the key (a real call). Send {provider, apiKey, model}, or {agentId} to test the stored key.",
    body: KeyTestRequestSchema,
    data: KeyTestResultSchema,
    status: 200,
    errors: [404],
  })
  async testApiKey(@Body() input: KeyTestInput): Promise<Envelope<KeyTestResult>> {
    return { success: true, data: await this.configs.testApiKey(input) };
  }

  @Get('validate')
  @Roles(...ACCESS.configuration)
  @Contract({ summary: 'Check the whole configuration', data: ValidationReportSchema })
  async validate(): Promise<Envelope<ValidationReport>> {
    return { success: true, data: await this.configs.validate() };
  }

  /** The whole configuration without secrets, as a file download. */
  @Get('export')
  @Roles(...ACCESS.configuration)
  @Header('Cache-Control', 'no-store')
  @Contract({ summary: 'Download the configuration without secrets', response: ConfigExportSchema })
  async export(@Res({ passthrough: true }) res: Response): Promise<unknown> {
    const file = await this.configs.exportConfig();
    res.setHeader('Content-Disposition', `attachment; filename="support-assistant-config-${file.exportedAt.slice(0, 10)}.json"`);
    return file;
  }
}
