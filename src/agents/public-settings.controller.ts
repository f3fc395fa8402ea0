import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { VERTICALS } from '../shared/catalog/verticals';
import { AgentRegistryService } from './agent-registry.service';

/** GET /api/public/settings `data`: what the public chat page needs from the global settings. */
export interface PublicSettings {
  /** The chat page's initial language (a language code, e.g. 'en'). */
  defaultLanguage: string;
  /** Every vertical of the catalogue with whether visitors can use it now. */
  verticals: Array<{ id: string; enabled: boolean }>;
  /** Ids of the verticals visitors can use now, in tab order. */
  enabledVerticals: string[];
}

/** Public: the chat page reads which verticals are switched on and its initial language. */
@Public()
@Controller('api/public')
export class PublicSettingsController {
  constructor(private readonly registry: AgentRegistryService) {}

  @Get('settings')
  async settings(): Promise<{ success: true; data: PublicSettings }> {
    const { global } = await this.registry.current();
    const verticals = VERTICALS.map((v) => ({ id: v.id, enabled: v.enabled && global.verticals[v.id as keyof typeof global.verticals] !== false }));
    return {
      success: true,
      data: { defaultLanguage: global.defaultLanguage, verticals, enabledVerticals: verticals.filter((v) => v.enabled).map((v) => v.id) },
    };
  }
}
