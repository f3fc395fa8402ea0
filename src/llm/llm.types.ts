/**
 * The provider port. Every LLM backend (the vendors' SDKs and the offline responder) implements
 * `LlmProvider`: it streams text deltas for one request, honours the AbortSignal, and ends with
 * one usage report. Errors are thrown as `LlmError` so the chat pipeline can tell them apart.
 */
import type { ProviderId } from '../shared/catalog/providers';

export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A knowledge passage handed to the model (and used directly by the offline responder). */
export interface LlmPassage {
  itemId: string;
  title: string;
  text: string;
  score: number;
}

/** A function the model may call (the vendors' tool calling); the pipeline acts on the call, the model gets no result back. */
export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  messages: LlmMessage[];
  /** Tools offered to the model (OpenAI, Azure and Anthropic; other providers get none). */
  tools?: LlmTool[];
  temperature?: number;
  maxTokens?: number;
  /** What the visitor asked, plus the retrieved passages; the offline responder answers from these. */
  grounding?: {
    query: string;
    passages: LlmPassage[];
    /** English name of the reply language, e.g. 'Spanish'. */
    language: string;
    vertical: string;
    /** When no passage cleared the relevance floor: another vertical whose knowledge matches. */
    suggestedVertical?: { id: string; name: string };
    /**
     * A legal question answered from general items only: the visitor's jurisdiction ("California,
     * United States"), which the reply says it found nothing specific to.
     */
    generalOnlyFor?: string;
  };
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  /** true when the vendor reported the counts; false when we counted them ourselves. */
  reported: boolean;
}

/** `tool`: the model called one of the request's tools (once per call). */
export type LlmChunk = { type: 'delta'; text: string } | { type: 'usage'; usage: LlmUsage } | { type: 'tool'; name: string };

export interface LlmProvider {
  readonly provider: ProviderId;
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk>;
}

/** How to reach a provider: what an agent configuration resolves to. */
export interface ProviderConnection {
  provider: ProviderId;
  apiKey?: string;
  /** openai-compatible base URL, or an override of a vendor's base URL (tests, proxies). */
  baseUrl?: string;
  /** azure: https://<resource>.openai.azure.com */
  endpoint?: string;
  /** azure: API version, e.g. 2024-10-21 */
  apiVersion?: string;
  /** Per-request upper bound used by the SDK client; the pipeline also aborts on its own timers. */
  timeoutMs?: number;
}

export type LlmErrorKind =
  | 'rate_limited'
  | 'upstream_error'
  | 'timeout'
  | 'auth'
  | 'bad_response'
  | 'cancelled'
  | 'unreachable';

export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}
