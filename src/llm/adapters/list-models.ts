/**
 * Lists the model ids a connection can use, through the vendor's own SDK. It doubles as the
 * "test this API key" check: a refused key throws LlmError kind 'auth', an unreachable address
 * kind 'unreachable', and so on, with the same visitor-safe messages as streaming.
 *
 * Azure lists the models of the resource (`GET /openai/models`), not its deployments, which the
 * data-plane API cannot list. The offline `local` provider has no remote models: an empty list.
 */
import type OpenAI from 'openai';
import { LlmError, type ProviderConnection } from '../llm.types';
import { throwIfAborted, toLlmError } from './provider-errors';
import {
  createAnthropicClient,
  createAzureClient,
  createCompatibleClient,
  createOpenAiClient,
} from './sdk-clients';

/** Stops paging after this many ids; no real account comes near it. */
const MAX_MODEL_IDS = 1000;

export async function listModels(conn: ProviderConnection, signal: AbortSignal): Promise<string[]> {
  throwIfAborted(signal);
  try {
    switch (conn.provider) {
      case 'openai':
        return await openAiModelIds(createOpenAiClient(conn), signal);
      case 'openai-compatible':
        return await openAiModelIds(createCompatibleClient(conn), signal);
      case 'azure':
        return await openAiModelIds(createAzureClient(conn), signal);
      case 'anthropic': {
        const ids: string[] = [];
        for await (const model of createAnthropicClient(conn).models.list({ limit: 100 }, { signal })) {
          ids.push(model.id);
          if (ids.length >= MAX_MODEL_IDS) break;
        }
        return ids;
      }
      case 'local':
        return [];
      default:
        throw new LlmError('upstream_error', 'This AI provider is not supported.');
    }
  } catch (error) {
    throw toLlmError(error, signal);
  }
}

async function openAiModelIds(client: OpenAI, signal: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of client.models.list({ signal })) {
    ids.push(model.id);
    if (ids.length >= MAX_MODEL_IDS) break;
  }
  return ids;
}
