import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { Contract } from '../common/contract';
import { PublicSettingsSchema, type PublicSettings } from '../shared/contracts/config';
import { AgentRegistryService } from './agent-registry.service';
import { publicSettingsOf } from './global-settings';

export type { PublicSettings };

/** Public: the chat page reads which verticals are switched on and its initial language. */
@Public()
@Controller('api/public')
export class PublicSettingsController {
  constructor(private readonly registry: AgentRegistryService) {}

  @Get('settings')
  @Contract({ summary: 'What the chat page needs: verticals switched on, default language', data: PublicSettingsSchema })
  async settings(): Promise<{ success: true; data: PublicSettings }> {
    const { global } = await this.registry.current();
    return { success: true, data: publicSettingsOf(global) };
  }
}
