import type { AgentDefinition } from '../agents/agent.types';
import type { UsageChannel, UsageStatus } from '../analytics/usage-event.entity';
import type { AppError } from '../common/app-error';
import type { LlmMessage, LlmUsage } from '../llm/llm.types';
import { countMessageTokens, countTokens } from '../llm/token-counter';
import { costUsd } from '../shared/catalog/providers';
import type { ChatRequest } from './chat-request';

/** What a reply's usage event is made of. */
export interface ReplyUsageFacts {
  replyId: string;
  request: ChatRequest;
  agent: AgentDefinition;
  requestId: string;
  channel: UsageChannel;
  /** When the visitor asked (epoch ms). */
  startedAt: number;
  /** The same moment on performance.now()'s clock. */
  started: number;
  ttftMs: number | null;
  messages: LlmMessage[];
  text: string;
  usage: LlmUsage | undefined;
  answered: boolean | undefined;
  status: UsageStatus;
  error?: AppError;
  /** The widget the question came through, if any. */
  widgetId?: string;
}

/**
 * A reply's usage event. Tokens: the vendor's report when there is one; otherwise counted. A call
 * that failed before any text arrived is billed nothing, so it records zero tokens.
 */
export function replyUsageEvent(f: ReplyUsageFacts) {
  const anyOutput = f.text.length > 0 || f.usage !== undefined;
  const promptTokens = f.usage?.promptTokens ?? (anyOutput ? countMessageTokens(f.messages) : 0);
  const completionTokens = f.usage?.completionTokens ?? (anyOutput ? countTokens(f.text) : 0);
  return {
    // The usage event's id is also the reply's id (replyId), which reply feedback refers to.
    id: f.replyId,
    createdAt: f.startedAt,
    requestId: f.requestId,
    agentId: f.agent.agentId,
    vertical: f.request.vertical,
    provider: f.agent.connection.provider,
    model: f.agent.model,
    channel: f.channel,
    status: f.status,
    errorCode: f.error?.code ?? null,
    errorMessage: f.error ? f.error.message.slice(0, 500) : null,
    promptTokens,
    completionTokens,
    costUsd: costUsd(f.agent.connection.provider, f.agent.model, promptTokens, completionTokens),
    latencyMs: Math.round(performance.now() - f.started),
    ttftMs: f.ttftMs,
    language: f.request.language.code,
    // Answered from the knowledge base: a passage cleared the relevance floor.
    answered: f.answered,
    widgetId: f.widgetId ?? null,
  };
}
