/**
 * Anthropic through the official `@anthropic-ai/sdk`: `messages.create({ stream: true })`, read as
 * raw server-sent events. System messages go to the top-level `system` field (joined in order),
 * `max_tokens` is always sent (the API requires it), and usage comes from `message_start`
 * (input) and `message_delta` (cumulative output).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { LlmChunk, LlmProvider, LlmRequest, ProviderConnection } from '../llm.types';
import { abortError, throwIfAborted, toLlmError } from './provider-errors';
import { createAnthropicClient } from './sdk-clients';
import { usageReport, type VendorCounts } from './usage-report';

/** Reply cap when the request names none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

export class AnthropicAdapter implements LlmProvider {
  readonly provider = 'anthropic' as const;
  private client?: Anthropic;

  constructor(private readonly connection: ProviderConnection) {}

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    return this.run(request, signal);
  }

  private async *run(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk, void, undefined> {
    throwIfAborted(signal);
    this.client ??= createAnthropicClient(this.connection);

    let reply = '';
    const counts: VendorCounts = {};
    try {
      const stream = await this.client.messages.create(toMessageParams(request), { signal, maxRetries: 0 });
      for await (const event of stream) {
        if (signal.aborted) break;
        switch (event.type) {
          case 'message_start':
            counts.promptTokens = inputTokens(event.message.usage) ?? counts.promptTokens;
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') yield { type: 'tool', name: event.content_block.name };
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta' && event.delta.text) {
              reply += event.delta.text;
              yield { type: 'delta', text: event.delta.text };
            }
            break;
          case 'message_delta':
            counts.promptTokens = inputTokens(event.usage) ?? counts.promptTokens;
            counts.completionTokens = numberOrUndefined(event.usage?.output_tokens) ?? counts.completionTokens;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      throw toLlmError(error, signal);
    }
    // The SDK ends the iteration quietly when the request is aborted mid-stream.
    if (signal.aborted) throw abortError(signal);
    yield { type: 'usage', usage: usageReport(counts, request.messages, reply) };
  }
}

/** The Messages API body: system prompt apart, empty turns dropped (the API refuses them). */
export function toMessageParams(request: LlmRequest): MessageCreateParamsStreaming {
  const system = request.messages
    .filter((m) => m.role === 'system' && m.content.trim() !== '')
    .map((m) => m.content)
    .join('\n\n');
  const messages: MessageParam[] = request.messages
    .filter((m): m is typeof m & { role: 'user' | 'assistant' } => m.role !== 'system')
    .filter((m) => m.content.trim() !== '')
    .map((m) => (m.role === 'user' ? { role: 'user', content: m.content } : { role: 'assistant', content: m.content }));
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
    ...(system ? { system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.tools?.length ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.parameters, type: 'object' as const } })) } : {}),
    stream: true,
  };
}

type UsageFields = {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
};

/** Total prompt tokens: plain input plus cache writes and reads, when the event carries them. */
function inputTokens(usage: UsageFields | null | undefined): number | undefined {
  const input = numberOrUndefined(usage?.input_tokens);
  if (input === undefined) return undefined;
  return input + (usage?.cache_creation_input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0);
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
