import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import type { z } from 'zod';
import { Contract } from '../common/contract';
import { Audit } from '../audit/audit.decorator';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import {
  EmbeddingConfigSchema,
  EmbeddingKeyTestRequestSchema,
  EmbeddingKeyTestResultSchema,
  EmbeddingSettingsUpdateSchema,
  EmbeddingStatusSchema,
  type EmbeddingConfig,
  type EmbeddingKeyTestInput,
  type EmbeddingKeyTestResult,
  type EmbeddingStatus,
} from '../shared/contracts/embeddings';
import { EmbeddingsService } from './embeddings.service';

import type { SuccessEnvelope as Envelope } from '../shared/contracts/http';

/** Embeddings for hybrid retrieval: the Configuration tab's section and the Knowledge tab's progress line (admin only). */
@Controller('api')
export class EmbeddingsController {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @Get('config/embeddings')
  @Roles(...ACCESS.configuration)
  @Contract({ summary: 'The embeddings settings (key masked) and how far the vectors are', data: EmbeddingConfigSchema })
  async get(): Promise<Envelope<EmbeddingConfig>> {
    return { success: true, data: await this.embeddings.current() };
  }

  @Put('config/embeddings')
  @Roles(...ACCESS.configuration)
  @Audit('embeddings.update', { target: 'embeddings', id: 'settings' })
  @Contract({
    summary: 'Change the embeddings settings',
    description: 'Any subset of the fields. `apiKey`: absent, empty or the mask keeps the stored key; null removes it. Turning them on, or changing the model, starts a backfill.',
    body: EmbeddingSettingsUpdateSchema,
    data: EmbeddingConfigSchema,
  })
  async update(@Body() input: z.output<typeof EmbeddingSettingsUpdateSchema>): Promise<Envelope<EmbeddingConfig>> {
    return { success: true, data: await this.embeddings.update(input) };
  }

  @Post('config/embeddings/test')
  @Roles(...ACCESS.configuration)
  @Audit('embeddings.key-test')
  @Contract({
    summary: 'Test the embeddings settings and key',
    description:
      'One embeddings call of a short text (a real call, within API_KEY_TEST_TIMEOUT_MS) with the settings as sent; a field left out is the saved one, and so is the key when empty or masked (null: no key).',
    body: EmbeddingKeyTestRequestSchema,
    data: EmbeddingKeyTestResultSchema,
    status: 200,
    errors: [404],
  })
  async test(@Body() input: EmbeddingKeyTestInput): Promise<Envelope<EmbeddingKeyTestResult>> {
    return { success: true, data: await this.embeddings.testKey(input) };
  }

  @Get('config/embeddings/status')
  @Roles(...ACCESS.knowledgeRead)
  @Contract({ summary: 'How many chunks have a vector of the current embedding model (the backfill progress)', data: EmbeddingStatusSchema })
  async status(): Promise<Envelope<EmbeddingStatus>> {
    return { success: true, data: await this.embeddings.status() };
  }
}
