import { Body, Controller, Get, Put } from '@nestjs/common';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { HandoffSettingsSchema, HandoffSettingsUpdateSchema, type HandoffSettingsUpdate } from '../shared/contracts/handoff';
import { ACCESS } from '../shared/contracts/roles';
import { HandoffSettingsService } from './handoff-settings.service';

/** Business hours per vertical, the handoff webhook and the handoff rules (owners and admins). */
@Controller('api/config/handoff')
@Roles(...ACCESS.configuration)
export class HandoffSettingsController {
  constructor(private readonly settings: HandoffSettingsService) {}

  @Get()
  @Contract({ summary: 'The handoff settings: business hours, webhook (the secret is never sent back), rules, members on duty', data: HandoffSettingsSchema })
  async get() {
    return { success: true, data: await this.settings.get() };
  }

  @Put()
  @Audit('handoff-settings.update', { target: 'handoff-settings', id: 'handoff' })
  @Contract({
    summary: 'Change the handoff settings (what is left out stays)',
    description: 'A webhook URL on a private, loopback or link-local address is refused (400) unless `webhook.allowPrivateAddresses` is true.',
    body: HandoffSettingsUpdateSchema,
    data: HandoffSettingsSchema,
  })
  async update(@Body() body: HandoffSettingsUpdate) {
    return { success: true, data: await this.settings.update(body) };
  }
}
