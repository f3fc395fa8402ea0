import { Body, Controller, Get, Put } from '@nestjs/common';
import type { z } from 'zod';
import { Contract } from '../../common/contract';
import { EmbeddingConfigSchema, EmbeddingSettingsUpdateSchema, EmbeddingStatusSchema, type EmbeddingConfig, type EmbeddingStatus } from '../../shared/contracts/embeddings';
import { EmbeddingsService } from './embeddings.service';

type Envelope<T> = { success: true; data: T };

/** Embeddings for hybrid retrieval: the Configuration tab's section and the Knowledge tab's progress line (admin only). */
@Controller('api')
export class EmbeddingsController {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @Get('config/embeddings')
  @Contract({ summary: 'The embeddings settings (key masked) and how far the vectors are', data: EmbeddingConfigSchema })
  async get(): Promise<Envelope<EmbeddingConfig>> {
    return { success: true, data: await this.embeddings.current() };
  }

  @Put('config/embeddings')
  @Contract({
    summary: 'Change the embeddings settings',
    description: 'Any subset of the fields. `apiKey`: absent, empty or the mask keeps the stored key; null removes it. Turning them on, or changing the model, starts a backfill.',
    body: EmbeddingSettingsUpdateSchema,
    data: EmbeddingConfigSchema,
  })
  async update(@Body() input: z.output<typeof EmbeddingSettingsUpdateSchema>): Promise<Envelope<EmbeddingConfig>> {
    return { success: true, data: await this.embeddings.update(input) };
  }

  @Get('config/embeddings/status')
  @Contract({ summary: 'How many chunks have a vector of the current embedding model (the backfill progress)', data: EmbeddingStatusSchema })
  async status(): Promise<Envelope<EmbeddingStatus>> {
    return { success: true, data: await this.embeddings.status() };
  }
}
