/**
 * The chat request and reply shapes, shared by POST /interact, its SSE variant and the socket's
 * `chat:send` / `chat:done` events.
 */
import type { ProviderId } from '../catalog/providers';
import type { VerticalId } from '../catalog/verticals';
import type { ErrorEnvelope, SuccessEnvelope } from './http';

/** One prior message of the conversation, oldest first. */
export interface ChatHistoryEntry {
  type: 'user' | 'agent';
  content: string;
  /** ISO timestamp. */
  timestamp?: string;
}

export interface InteractContext {
  preferredLanguage?: string;
  /** true when replying in English, so no translation step is needed. */
  skipTranslation?: boolean;
  /** Legal: display name of the chosen jurisdiction. */
  jurisdictionName?: string;
  /** Legal: the chosen jurisdiction's legal system. */
  legalSystem?: string;
}

/** POST /interact body. Fields are validated on the server; `vertical` is a VerticalId when valid. */
export interface InteractRequest {
  query: string;
  vertical: VerticalId | string;
  userId?: string;
  conversationHistory?: ChatHistoryEntry[];
  /** English name of the reply language, e.g. 'Spanish'. */
  preferredLanguage?: string;
  detectedLanguage?: string;
  /** Legal: jurisdiction code, e.g. 'US'. */
  jurisdiction?: string;
  /** Legal: sub-region, e.g. 'California'. */
  subJurisdiction?: string;
  context?: InteractContext;
}

/** A knowledge item the answer drew on. */
export interface ReplySource {
  id: string;
  title: string;
  /** Retrieval score; higher is better. Sources are listed best first. */
  score: number;
}

export interface ReplyUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
  provider: ProviderId;
  model: string;
}

export interface ReplyOptimization {
  /** The reply came from a cache rather than a fresh model call. */
  cacheHit?: boolean;
  /** Knowledge passages placed in the prompt. */
  passages: number;
  /** Streaming frames sent after coalescing deltas. */
  coalescedFrames?: number;
}

/** The `data` of a successful /interact and of `chat:done`. */
export interface ReplyData {
  response: string;
  /** Milliseconds from accepting the request to the end of the reply. */
  executionTime: number;
  /**
   * 0-1: the estimated probability that the first source answers the question (calibrated on the
   * retrieval evaluation, see src/retrieval/relevance.ts); low when nothing matched.
   */
  confidence: number;
  vertical: VerticalId;
  agentsInvolved: string[];
  a2aCompliant: boolean;
  optimization: ReplyOptimization;
  /** Only the knowledge items the reply used (those that cleared the relevance floor), best first. */
  sources: ReplySource[];
  /**
   * Whether the reply was answered from the knowledge base: false when nothing cleared the
   * relevance floor (the reply then says so and suggests next steps). Optional so replies built
   * elsewhere (tests, older servers) stay valid.
   */
  answered?: boolean;
  /**
   * When not answered: another vertical whose knowledge matches the question ("This looks like
   * an Employee Support question"); the chat page offers to ask it there.
   */
  suggestedVertical?: VerticalId;
  /**
   * The reply's id (its usage event's id): what POST /api/feedback rates. Always sent by the
   * server; optional so replies built elsewhere (tests, older servers) stay valid.
   */
  replyId?: string;
  usage: ReplyUsage;
}

export type InteractSuccess = SuccessEnvelope<ReplyData>;

export type InteractResponse = InteractSuccess | ErrorEnvelope;
