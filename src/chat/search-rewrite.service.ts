import { Inject, Injectable, Logger } from '@nestjs/common';
import { AgentRegistryService } from '../agents/agent-registry.service';
import type { AgentDefinition } from '../agents/agent.types';
import type { UsageChannel } from '../analytics/usage-event.entity';
import { UsageRecorderService } from '../analytics/usage-recorder.service';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { BudgetService, estimatePromptTokens, worstCaseCost } from '../limits/budget.service';
import { LlmService } from '../llm/llm.service';
import { REWRITE_MAX_TOKENS, rewriteLanguageOf, rewriteMessages, rewriteQuestion, type RewriteResult } from '../retrieval/question-rewrite';
import { costUsd, priceFor } from '../shared/catalog/providers';
import type { ChatRequest } from './chat-request';

/**
 * The question rewritten into the knowledge base's language for the search, by one short call
 * to the agent's provider (REWRITE_TIMEOUT_MS at most), held against the budgets like a reply and
 * recorded as a usage event of kind 'rewrite' with its tokens, cost and time.
 */
@Injectable()
export class SearchRewriteService {
  private readonly logger = new Logger(SearchRewriteService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly agents: AgentRegistryService,
    private readonly llm: LlmService,
    private readonly usage: UsageRecorderService,
    private readonly budgets: BudgetService,
  ) {}

  /**
   * Undefined when there is nothing to rewrite: the offline responder (or an agent that cannot be
   * used) answers, or the question is already in the knowledge base's language. A failed or late
   * rewrite leaves the question as asked.
   */
  async rewrite(request: ChatRequest, agent: AgentDefinition, context: { requestId: string; channel: UsageChannel }, signal: AbortSignal): Promise<RewriteResult | undefined> {
    if (agent.connection.provider === 'local' || agent.unavailable) return undefined;
    const fromLanguage = rewriteLanguageOf(request.query, request.language.code);
    if (!fromLanguage) return undefined;
    // Held against the budgets like a reply (its worst case), so a capped month pays for no rewrite.
    const worstCase = worstCaseCost(priceFor(agent.connection.provider, agent.model), estimatePromptTokens(rewriteMessages(request.query, fromLanguage)), REWRITE_MAX_TOKENS);
    const hold = await this.budgets.holdExtra(agent.agentId, request.vertical, worstCase);
    if (!hold) return undefined;
    const startedAt = Date.now();
    const result = await rewriteQuestion(this.llm.providerFor(agent.connection), request.query, {
      model: agent.model,
      fromLanguage,
      timeoutMs: this.config.rewriteTimeoutMs,
      signal,
    });
    if (result.outcome !== 'rewritten') this.logger.debug(`Question rewrite ${result.outcome} after ${result.ms} ms: searching the question as asked`);
    // Its cost counts against the budgets (before the event is stored, like a reply's).
    await hold.settle(costUsd(agent.connection.provider, agent.model, result.promptTokens, result.completionTokens));
    if (this.agents.usageRecordingEnabled()) {
      // Not awaited: the search goes on at once (the recorder stores it, or journals it).
      void this.usage.record({
        createdAt: startedAt,
        requestId: context.requestId,
        agentId: agent.agentId,
        vertical: request.vertical,
        provider: agent.connection.provider,
        model: agent.model,
        channel: context.channel,
        kind: 'rewrite',
        status: result.outcome === 'rewritten' ? 'success' : result.error?.code === 'cancelled' ? 'cancelled' : 'error',
        errorCode: result.error?.code.slice(0, 40) ?? null,
        errorMessage: result.error?.message.slice(0, 500) ?? null,
        promptTokens: result.promptTokens,
        completionTokens: result.completionTokens,
        costUsd: costUsd(agent.connection.provider, agent.model, result.promptTokens, result.completionTokens),
        latencyMs: result.ms,
        ttftMs: null,
        language: fromLanguage,
        answered: null,
      });
    }
    return result;
  }
}
