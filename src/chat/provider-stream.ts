/**
 * The provider's reply, streamed: deltas go through the frame coalescer as they come, the first
 * one's time is the reply's time to first token, and a call of the request_human tool is noted.
 */
import { handoffNotice } from '../handoff/handoff-phrases';
import { LlmError, type LlmProvider, type LlmRequest, type LlmTool, type LlmUsage } from '../llm/llm.types';
import type { FrameCoalescer } from './frame-coalescer';
import type { ReplyLimits } from './reply-limits';

/**
 * The tool an LLM agent calls to hand the conversation to a person (the visitor asks for one, or
 * the model cannot help). Offered to the vendors whose tool calling the adapters read.
 */
export const REQUEST_HUMAN_TOOL: LlmTool = {
  name: 'request_human',
  description:
    'Hand this conversation to a person from the support team. Call it when the visitor asks for a human, or when you cannot help with the knowledge you have. Tell the visitor in one short sentence that a person will join.',
  parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why a person is needed, in a few words.' } } },
};
const TOOL_PROVIDERS = new Set(['openai', 'azure', 'anthropic']);

/** The tools offered to a provider's model (none where the adapter does not read tool calls). */
export function toolsFor(provider: string): LlmTool[] | undefined {
  return TOOL_PROVIDERS.has(provider) ? [REQUEST_HUMAN_TOOL] : undefined;
}

/** What has streamed so far: kept when the call fails or is stopped (what the visitor got stays). */
export interface StreamedReply {
  text: string;
  /** ms from when the visitor asked to the first text; null until then. */
  ttftMs: number | null;
  usage?: LlmUsage;
  /** The model asked for a person through the request_human tool. */
  humanRequested: boolean;
}

export interface ProviderStreamInput {
  provider: LlmProvider;
  request: LlmRequest;
  limits: ReplyLimits;
  coalescer: FrameCoalescer;
  /** performance.now() when the visitor asked. */
  started: number;
  /** The visitor's language code (what they are told when the model only calls the tool). */
  language: string;
}

/**
 * Streams the provider's reply into `into` (updated as it comes, so a caller that catches still
 * has the text so far). Throws when stopped, or when the reply is empty.
 */
export async function streamProviderReply(input: ProviderStreamInput, into: StreamedReply): Promise<void> {
  const { provider, request, limits, coalescer, started, language } = input;
  for await (const chunk of provider.stream(request, limits.signal)) {
    if (limits.signal.aborted) break;
    if (chunk.type === 'delta') {
      if (into.ttftMs === null) into.ttftMs = Math.round(performance.now() - started);
      into.text += chunk.text;
      coalescer.push(chunk.text);
      limits.touch();
    } else if (chunk.type === 'tool') {
      if (chunk.name === REQUEST_HUMAN_TOOL.name) into.humanRequested = true;
      limits.touch();
    } else {
      into.usage = chunk.usage;
    }
  }
  if (limits.signal.aborted) throw new LlmError('cancelled', 'The request was cancelled.');
  // A tool call without text: the visitor is told a person will join (in their language).
  if (into.humanRequested && into.text.trim() === '') {
    into.text = handoffNotice(language, { kind: 'waiting', position: 1, waitMinutes: 3 });
    if (into.ttftMs === null) into.ttftMs = Math.round(performance.now() - started);
    coalescer.push(into.text);
  }
  if (into.text.trim() === '') throw new LlmError('bad_response', 'The AI provider returned an empty reply.');
}
