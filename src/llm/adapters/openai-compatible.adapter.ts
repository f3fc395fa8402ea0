/**
 * OpenAI-compatible servers (Ollama, vLLM, llama.cpp server, LM Studio...) through the `openai`
 * SDK pointed at their base URL. The key is optional, `max_tokens` is used (these servers know
 * it; few know `max_completion_tokens`), and a server that reports no usage is counted locally.
 */
import type OpenAI from 'openai';
import type { LlmChunk, LlmProvider, LlmRequest, ProviderConnection } from '../llm.types';
import { streamChatCompletions } from './chat-completions-stream';
import { createCompatibleClient } from './sdk-clients';

export class OpenAiCompatibleAdapter implements LlmProvider {
  readonly provider = 'openai-compatible' as const;
  private client?: OpenAI;

  constructor(private readonly connection: ProviderConnection) {}

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    return this.run(request, signal);
  }

  private async *run(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk, void, undefined> {
    this.client ??= createCompatibleClient(this.connection);
    yield* streamChatCompletions(this.client, request, signal, { maxTokensField: 'max_tokens' });
  }
}
