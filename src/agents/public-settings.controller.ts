import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { Contract } from '../common/contract';
import { VERTICALS } from '../shared/catalog/verticals';
import { PublicSettingsSchema, type PublicSettings } from '../shared/contracts/config';
import { AgentRegistryService } from './agent-registry.service';

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
    const verticals = VERTICALS.map((v) => ({ id: v.id, enabled: v.enabled && global.verticals[v.id as keyof typeof global.verticals] !== false }));
    return {
      success: true,
      data: { defaultLanguage: global.defaultLanguage, verticals, enabledVerticals: verticals.filter((v) => v.enabled).map((v) => v.id) },
    };
  }
}
