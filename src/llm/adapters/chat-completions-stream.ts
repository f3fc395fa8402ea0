/**
 * Streams one request through an OpenAI-style chat completions endpoint (OpenAI, Azure OpenAI and
 * OpenAI-compatible servers all speak it) and translates it to the provider port's chunks.
 *
 * Tolerant of what real servers do: chunks without choices (Azure's content-filter preamble, the
 * usage chunk), usage on every chunk or on none, and a choice list that is null.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { LlmChunk, LlmMessage, LlmRequest } from '../llm.types';
import { abortError, throwIfAborted, toLlmError } from './provider-errors';
import { usageReport, type VendorCounts } from './usage-report';

export interface ChatCompletionsDialect {
  /**
   * The field that caps the reply length. OpenAI deprecated `max_tokens` and its reasoning models
   * refuse it; OpenAI-compatible servers and older Azure API versions only know `max_tokens`.
   */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

export async function* streamChatCompletions(
  client: OpenAI,
  request: LlmRequest,
  signal: AbortSignal,
  dialect: ChatCompletionsDialect,
): AsyncGenerator<LlmChunk, void, undefined> {
  throwIfAborted(signal);
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: request.messages.map(toChatMessage),
    stream: true,
    stream_options: { include_usage: true },
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { [dialect.maxTokensField]: request.maxTokens } : {}),
    ...(request.tools?.length ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
  };
  // Tool calls stream in pieces (the name in the first, the arguments after): each is reported once, by its index.
  const called = new Set<number>();

  let reply = '';
  const counts: VendorCounts = {};
  try {
    const stream = await client.chat.completions.create(params, { signal, maxRetries: 0 });
    for await (const chunk of stream) {
      if (signal.aborted) break;
      if (chunk.usage) {
        counts.promptTokens = chunk.usage.prompt_tokens;
        counts.completionTokens = chunk.usage.completion_tokens;
      }
      for (const choice of chunk.choices ?? []) {
        for (const call of (choice.index === 0 ? choice.delta?.tool_calls : undefined) ?? []) {
          const name = call.function?.name;
          if (name && !called.has(call.index)) {
            called.add(call.index);
            yield { type: 'tool', name };
          }
        }
        const text = choice.index === 0 ? choice.delta?.content : undefined;
        if (text) {
          reply += text;
          yield { type: 'delta', text };
        }
      }
    }
  } catch (error) {
    throw toLlmError(error, signal);
  }
  // The SDK ends the iteration quietly when the request is aborted mid-stream.
  if (signal.aborted) throw abortError(signal);
  yield { type: 'usage', usage: usageReport(counts, request.messages, reply) };
}

function toChatMessage(message: LlmMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'assistant':
      return { role: 'assistant', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
  }
}
