/**
 * OpenAI through the official `openai` SDK: streamed chat completions with usage
 * (`stream_options.include_usage`), abort through the request's signal, no SDK retries.
 */
import type OpenAI from 'openai';
import type { LlmChunk, LlmProvider, LlmRequest, ProviderConnection } from '../llm.types';
import { streamChatCompletions } from './chat-completions-stream';
import { createOpenAiClient } from './sdk-clients';

export class OpenAiAdapter implements LlmProvider {
  readonly provider = 'openai' as const;
  private client?: OpenAI;

  constructor(private readonly connection: ProviderConnection) {}

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    return this.run(request, signal);
  }

  private async *run(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk, void, undefined> {
    // Built on first use so that a configuration error surfaces as an LlmError from the stream.
    this.client ??= createOpenAiClient(this.connection);
    yield* streamChatCompletions(this.client, request, signal, { maxTokensField: 'max_completion_tokens' });
  }
}
