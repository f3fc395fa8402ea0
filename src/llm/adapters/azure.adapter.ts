/**
 * Azure OpenAI through the `openai` SDK's `AzureOpenAI` client. The request's `model` is the
 * deployment name: the SDK turns it into `/openai/deployments/{model}/chat/completions` with the
 * connection's `api-version`, and authenticates with the `api-key` header.
 */
import type { AzureOpenAI } from 'openai';
import type { LlmChunk, LlmProvider, LlmRequest, ProviderConnection } from '../llm.types';
import { streamChatCompletions, type ChatCompletionsDialect } from './chat-completions-stream';
import { azureApiVersion, createAzureClient } from './sdk-clients';

/** The first API version (2024-09-01-preview) that accepts `max_completion_tokens`. */
const MAX_COMPLETION_TOKENS_SINCE = '2024-09-01';

export class AzureAdapter implements LlmProvider {
  readonly provider = 'azure' as const;
  private client?: AzureOpenAI;
  private readonly dialect: ChatCompletionsDialect;

  constructor(private readonly connection: ProviderConnection) {
    // API versions are ISO dates (optionally "-preview"), so they compare as strings.
    this.dialect = {
      maxTokensField:
        azureApiVersion(connection) >= MAX_COMPLETION_TOKENS_SINCE ? 'max_completion_tokens' : 'max_tokens',
    };
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    return this.run(request, signal);
  }

  private async *run(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk, void, undefined> {
    this.client ??= createAzureClient(this.connection);
    yield* streamChatCompletions(this.client, request, signal, this.dialect);
  }
}
