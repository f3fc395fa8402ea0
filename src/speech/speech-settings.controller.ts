import { Body, Controller, Get, Put } from '@nestjs/common';
import type { z } from 'zod';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { Contract } from '../common/contract';
import { ACCESS } from '../shared/contracts/roles';
import { SpeechSettingsSchema, SpeechSettingsUpdateSchema, type SpeechSettings } from '../shared/contracts/speech';
import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';
import { SpeechService } from './speech.service';

/** The speech-to-text provider of the microphone fallback: the Configuration tab's section (owners and admins). */
@Controller('api/config/speech')
@Roles(...ACCESS.configuration)
export class SpeechSettingsController {
  constructor(private readonly speech: SpeechService) {}

  @Get()
  @Contract({ summary: 'The speech-to-text settings (key masked)', data: SpeechSettingsSchema })
  async get(): Promise<Envelope<SpeechSettings>> {
    return { success: true, data: await this.speech.get() };
  }

  @Put()
  @Audit('speech.update', { target: 'speech', id: 'settings' })
  @Contract({
    summary: 'Change the speech-to-text settings',
    description:
      'Any subset of the fields. `apiKey`: absent, empty or the mask keeps the stored key; null removes it (the audit log records only that it changed). Switching on Azure without an endpoint, or an OpenAI-compatible server without a base URL, is a 400.',
    body: SpeechSettingsUpdateSchema,
    data: SpeechSettingsSchema,
  })
  async update(@Body() input: z.output<typeof SpeechSettingsUpdateSchema>): Promise<Envelope<SpeechSettings>> {
    return { success: true, data: await this.speech.update(input) };
  }
}
