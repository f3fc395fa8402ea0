import { Body, Controller, Get, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import {
  AuditEntrySchema,
  AuditExportQuerySchema,
  AuditListQuerySchema,
  AuditPageSchema,
  AuditSettingsSchema,
  AuditSettingsUpdateSchema,
  type AuditExportQuery,
  type AuditListQuery,
  type AuditPage,
  type AuditSettings,
} from '../shared/contracts/audit';
import { ACCESS } from '../shared/contracts/roles';
import { Audit } from './audit.decorator';
import { AuditService } from './audit.service';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/** The audit log for owners and admins: read, filter, export. No route edits or deletes an entry. */
@Controller('api/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Roles(...ACCESS.audit)
  @Contract({
    summary: 'Audit entries, newest first, filtered by member, action, target and dates',
    description: 'Each entry: who (member, role), action, target (kind, id, title), time, IP, user agent, request id and the field-level before/after. Secrets are never recorded: a changed one shows as `{field, secret: true}`.',
    query: AuditListQuerySchema,
    data: AuditPageSchema,
  })
  async list(@Query() query: AuditListQuery): Promise<Envelope<AuditPage>> {
    return { success: true, data: await this.audit.list(query) };
  }

  @Get('export')
  @Roles(...ACCESS.audit)
  @Contract({
    summary: 'Download the audit entries the filters match',
    query: AuditExportQuerySchema,
    content: {
      'application/json': { schema: AuditEntrySchema, description: 'format=json (default): a JSON array of these entries, oldest first (streamed).' },
      'text/csv': { description: 'format=csv: a header line, then one line per entry (changes as JSON).' },
    },
  })
  async export(@Query() query: AuditExportQuery, @Res() res: Response): Promise<void> {
    await this.audit.export(query, query.format, res);
  }

  @Get('settings')
  @Roles(...ACCESS.audit)
  @Contract({ summary: 'How long audit entries are kept', data: AuditSettingsSchema })
  async settings(): Promise<Envelope<AuditSettings>> {
    return { success: true, data: await this.audit.getSettings() };
  }

  @Put('settings')
  @Roles(...ACCESS.auditRetention)
  @Audit('audit.retention-update', { target: 'audit-settings', id: 'retention' })
  @Contract({ summary: 'Change how long audit entries are kept (owners)', description: 'Entries older than this are deleted by the daily purge.', body: AuditSettingsUpdateSchema, data: AuditSettingsSchema })
  async updateSettings(@Body() body: AuditSettings): Promise<Envelope<AuditSettings>> {
    return { success: true, data: await this.audit.updateSettings(body) };
  }
}
