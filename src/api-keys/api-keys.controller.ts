import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import type { z } from 'zod';
import { Audit } from '../audit/audit.decorator';
import { CurrentAdmin } from '../auth/current-admin.decorator';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import type { AdminAuth } from '../auth/session.service';
import { Contract } from '../common/contract';
import { ApiKeyCreateSchema, ApiKeyInfoSchema, IssuedApiKeySchema, RevokedApiKeySchema } from '../shared/contracts/api-keys';
import { ApiKeysService } from './api-keys.service';

/** The console's API keys: list, issue (the key is in this one answer), revoke. */
@Controller('api/api-keys')
@Roles(...ACCESS.apiKeys)
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get()
  @Contract({ summary: 'Every API key (never the keys themselves: their prefixes)', data: [ApiKeyInfoSchema] })
  async list() {
    return { success: true, data: await this.keys.list() };
  }

  @Post()
  @Audit('api-key.create', { idFrom: (reply) => reply.data?.apiKey?.id })
  @Contract({ summary: 'Issue an API key: the answer holds the key, shown this once', body: ApiKeyCreateSchema, data: IssuedApiKeySchema, status: 201 })
  async issue(@CurrentAdmin() admin: AdminAuth, @Body() body: z.output<typeof ApiKeyCreateSchema>) {
    return { success: true, data: await this.keys.issue(body, admin.user) };
  }

  @Delete(':id')
  @Audit('api-key.revoke')
  @Contract({ summary: 'Revoke an API key: refused on every server from the next request', data: RevokedApiKeySchema, errors: [404] })
  async revoke(@Param('id') id: string) {
    return { success: true, data: await this.keys.revoke(id) };
  }
}
