/**
 * The embeddings API (hybrid retrieval): settings for the Configuration tab's Embeddings section,
 * and the backfill progress the Knowledge tab shows. Shapes: src/shared/contracts/embeddings.ts.
 */
import {
  EmbeddingKeyTestRequestSchema,
  EmbeddingSettingsUpdateSchema,
  type EmbeddingConfig,
  type EmbeddingKeyTestRequest,
  type EmbeddingKeyTestResult,
  type EmbeddingSettingsUpdate,
  type EmbeddingStatus,
} from '@shared/contracts/embeddings';
import { apiRequest } from '../../../lib/api';

export type { EmbeddingConfig, EmbeddingKeyTestRequest, EmbeddingKeyTestResult, EmbeddingSettingsUpdate, EmbeddingStatus };

export const EMBEDDINGS_QUERY_KEY = ['embeddings'] as const;
export const EMBEDDING_STATUS_QUERY_KEY = ['embeddings', 'status'] as const;

import type { SuccessEnvelope as Data } from '@shared/contracts/http';

export const embeddingsApi = {
  async get(): Promise<EmbeddingConfig> {
    return (await apiRequest<Data<EmbeddingConfig>>('/api/config/embeddings')).data;
  },
  async update(update: EmbeddingSettingsUpdate): Promise<EmbeddingConfig> {
    return (await apiRequest<Data<EmbeddingConfig>>('/api/config/embeddings', { method: 'PUT', body: update, contract: EmbeddingSettingsUpdateSchema })).data;
  },
  /** One embeddings call with the settings as entered (the saved key when the field holds its mask). */
  async test(request: EmbeddingKeyTestRequest): Promise<EmbeddingKeyTestResult> {
    return (await apiRequest<Data<EmbeddingKeyTestResult>>('/api/config/embeddings/test', { method: 'POST', body: request, contract: EmbeddingKeyTestRequestSchema })).data;
  },
  async status(): Promise<EmbeddingStatus> {
    return (await apiRequest<Data<EmbeddingStatus>>('/api/config/embeddings/status')).data;
  },
};

/** The Knowledge tab's line: "n of N chunks embedded" (with the model), or why it is stuck. */
export function progressLine(status: EmbeddingStatus): string {
  const n = status.embedded.toLocaleString('en-US');
  const total = status.total.toLocaleString('en-US');
  const line = `Embeddings (${status.model}): ${n} of ${total} chunks embedded`;
  if (status.lastError && status.running) return `${line}. ${status.lastError}`;
  return status.running ? `${line}…` : line;
}
