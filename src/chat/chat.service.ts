import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { AgentRegistryService } from '../agents/agent-registry.service';
import type { AgentDefinition } from '../agents/agent.types';
import { newUsageEventId } from '../analytics/usage-event-id';
import { UsageRecorderService } from '../analytics/usage-recorder.service';
import type { UsageChannel } from '../analytics/usage-event.entity';
import { AppError } from '../common/app-error';
import { databaseUnavailableError, isDatabaseUnavailable } from '../common/database-unavailable';
import { ShutdownState } from '../common/shutdown-state';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { LlmService } from '../llm/llm.service';
import { LlmError, LlmPassage, LlmUsage, type LlmTool } from '../llm/llm.types';
import { ConversationsService, type Turn, type TurnOutcome } from '../conversations/conversations.service';
import { ReplyStreamService, type ReplyProducer, type TakeoverJob } from '../conversations/reply-streams';
import type { Visitor } from '../conversations/visitor-identity';
import { smallTalkOf } from '../llm/adapters/small-talk';
import { priceFor } from '../shared/catalog/providers';
import { BudgetService, estimatePromptTokens, worstCaseCost, type BudgetAdmission } from '../limits/budget.service';
import type { ReplySlot } from '../limits/chat-limits.service';
import { getVertical, KNOWLEDGE_VERTICAL_IDS } from '../shared/catalog/verticals';
import type { ReplyData } from '../shared/contracts/chat';
import { chatRequestOf, type ChatRequest, type TurnSpec } from './chat-request';
import { FrameCoalescer } from './frame-coalescer';
import { LOCAL_AGENT } from './local-agent';
import { buildPrompt } from './prompt-builder';
import { describeFailure, errorBody, HANDOFF_STOP_MESSAGE, type StopCause } from './reply-failure';
import { replyUsageEvent, type ReplyUsageFacts } from './reply-usage';
import { SearchRewriteService } from './search-rewrite.service';
import { describeJurisdiction } from '../retrieval/jurisdiction';
import type { RewriteResult } from '../retrieval/question-rewrite';
import { withLogFields } from '../common/log-context';
import { HandoffService } from '../handoff/handoff.service';
import { asksForPerson } from '../handoff/handoff-phrases';
import { applyUnansweredRule, holdForPerson } from './held-replies';
import { streamProviderReply, toolsFor, type StreamedReply } from './provider-stream';
import { armReplyLimits } from './reply-limits';

/** Items cited per answer, and passages per item placed in the prompt. */
const SOURCE_LIMIT = 4;
const FRAME_INTERVAL_MS = 30;
/** Longest a finished reply waits for its conversation write before chat:done goes out. */
const STORE_WAIT_MS = 100;

export interface ChatRunOptions {
  requestId: string;
  channel: UsageChannel;
  /** Who asked: the reply is saved in their conversation, and only they can follow or stop it. */
  visitor: Visitor;
  /** The visitor's concurrent-reply slot (ChatLimitsService), given back when the reply ends. */
  slot?: ReplySlot;
  /** The widget the question came through (usage events name it, for Analytics' requests per widget). */
  widgetId?: string;
}

/** The ids a turn keeps when it is asked again by another server (a takeover). */
interface TurnIds {
  userMessageId: string;
  startedAt: number;
  /** Asked again after a takeover: the question may already be stored. */
  resumed: boolean;
}

/** A reply to run: the request, who asked and how, its stream, what stops it, and its turn's ids. */
interface ReplyRun {
  request: ChatRequest;
  options: ChatRunOptions;
  producer: ReplyProducer;
  /** Settles when the visitor, a time limit, a shutdown, a handoff or a takeover stops the reply. */
  stopped: Promise<StopCause>;
  ids: TurnIds;
}

/** A reply that failed or was stopped, and what it had got to. */
interface FailedReply {
  turn: Turn;
  producer: ReplyProducer;
  error: unknown;
  /** The text the visitor already got (kept in the conversation). */
  text: string;
  /** performance.now() when the visitor asked. */
  started: number;
  ttftMs: number | null;
  agent?: AgentDefinition;
}

/** A reply that has started: follow its frames by `replyId` (ReplyStreamService); `result` settles when it ends. */
export interface StartedReply {
  replyId: string;
  /** The reply data, or the AppError it ended with (a cancel: code `cancelled`). */
  result: Promise<ReplyData>;
}

/** What the knowledge gave for the question: passages above the floor, sources, confidence. */
type Retrieval = Awaited<ReturnType<KnowledgeService['retrieve']>>;

/** Everything a reply is made from once the conversation, the agent and the knowledge are read. */
interface ReplyJob {
  /** The request, its history replaced by the server's copy of the conversation. */
  request: ChatRequest;
  options: ChatRunOptions;
  producer: ReplyProducer;
  /** Settles when the visitor, a time limit, a shutdown or a takeover stops the reply. */
  stopped: Promise<StopCause>;
  turn: Turn;
  agent: AgentDefinition;
  retrieval: Retrieval;
  /** When the visitor asked (epoch ms), and the same moment on performance.now()'s clock. */
  startedAt: number;
  started: number;
  rewrite?: RewriteResult;
}

/**
 * The chat pipeline shared by the socket gateway and POST /interact: load the visitor's
 * conversation (the server's copy of the history) alongside retrieval and the agent, build the
 * prompt, stream the provider's reply through a frame coalescer under the agent and chat time
 * limits into the reply's resumable stream, save the exchange in the conversation, and record
 * exactly one usage event per call.
 *
 * A reply belongs to no connection: whoever asked follows its stream, and a lost connection only
 * ends that follow. The reply keeps streaming into the conversation until it ends, until an
 * explicit stop (`chat:cancel`, POST /interact/replies/{id}/cancel), or at the latest at the agent
 * time-out (a silent provider) or CHAT_TIMEOUT_MS: that bounds what a reply nobody watches costs.
 */
@Injectable()
export class ChatService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ChatService.name);
  private readonly running = new Map<string, { stop: (reason: StopCause) => void; done: Promise<unknown>; conversationId?: string }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly agents: AgentRegistryService,
    private readonly knowledge: KnowledgeService,
    private readonly llm: LlmService,
    private readonly usage: UsageRecorderService,
    private readonly shutdown: ShutdownState,
    private readonly conversations: ConversationsService,
    private readonly streams: ReplyStreamService,
    private readonly budgets: BudgetService,
    private readonly rewriter: SearchRewriteService,
    private readonly handoff: HandoffService,
  ) {
    // With REDIS_URL: replies of a server that stopped are asked again here (ReplyStreamService).
    streams.onTakeover({ accepting: () => !this.shutdown.draining, take: (job) => this.takeOver(job) });
    // A person was asked for (on any server): the conversation's replies running here stop.
    handoff.onStop((conversationId) => {
      for (const reply of this.running.values()) if (reply.conversationId === conversationId) reply.stop('handoff');
    });
  }

  get activeCount(): number {
    return this.running.size;
  }

  /** Refuses new chats once shutdown started. */
  assertAccepting(): void {
    if (this.shutdown.draining) throw new AppError('server_restarting', 'The server is restarting; it will be back in a moment');
  }

  /**
   * Whether a checked request may start now: the server is not shutting down and its vertical is
   * not switched off in the global settings (kept current on every server by config:changed).
   */
  admit(request: ChatRequest): void {
    this.assertAccepting();
    if (!this.agents.isVerticalEnabled(request.vertical)) {
      throw new AppError('vertical_disabled', `${getVertical(request.vertical)?.name ?? request.vertical} is not available right now.`);
    }
  }

  /**
   * Starts a reply and returns its id at once: the reply's stream is registered before this
   * returns, so a follower that subscribes now gets every frame.
   */
  start(request: ChatRequest, options: ChatRunOptions): StartedReply {
    this.admit(request);
    const replyId = newUsageEventId();
    let stop!: (reason: StopCause) => void;
    const stopped = new Promise<StopCause>((resolve) => (stop = resolve));
    const ids: TurnIds = { userMessageId: newUsageEventId(), startedAt: Date.now(), resumed: false };
    // With REDIS_URL the turn goes with the stream's start: another server asks it again if this one stops.
    const spec = this.streams.distributed ? JSON.stringify(this.specOf(request, options, ids)) : undefined;
    const producer = this.streams.begin(replyId, { visitorKey: options.visitor.key }, (reason) => stop(reason), spec);
    const result = withLogFields({ requestId: options.requestId, replyId }, () => this.execute({ request, options, producer, stopped, ids }));
    if (options.slot) void result.finally(() => options.slot?.release()).catch(() => undefined);
    this.track(`${options.channel}:${replyId}`, stop, result);
    return { replyId, result };
  }

  private track(key: string, stop: (reason: StopCause) => void, result: Promise<ReplyData>): void {
    this.running.set(key, { stop, done: result.catch(() => undefined) });
    void result.then(
      () => this.running.delete(key),
      () => this.running.delete(key),
    );
  }

  private specOf(request: ChatRequest, options: ChatRunOptions, ids: TurnIds): TurnSpec {
    return {
      query: request.query,
      vertical: request.vertical,
      userId: request.userId,
      language: request.language.code,
      ...(request.jurisdiction ? { jurisdiction: { code: request.jurisdiction.code, ...(request.jurisdiction.subRegion ? { subRegion: request.jurisdiction.subRegion } : {}) } } : {}),
      history: request.history,
      requestId: options.requestId,
      channel: options.channel,
      returning: options.visitor.returning,
      userMessageId: ids.userMessageId,
      startedAt: ids.startedAt,
      ...(options.widgetId ? { widgetId: options.widgetId } : {}),
    };
  }

  /**
   * A reply of a server that stopped (kill -9), claimed by this one: asked again from its stored
   * turn (the history read again from the conversation), written into the same reply's stream
   * after a restart frame. Its usage event and message are written once, when it ends here.
   */
  private takeOver(job: TakeoverJob): boolean {
    let spec: TurnSpec;
    try {
      spec = JSON.parse(job.spec) as TurnSpec;
    } catch {
      return false;
    }
    if (typeof spec?.query !== 'string' || !KNOWLEDGE_VERTICAL_IDS.includes(spec.vertical)) return false;
    let stop!: (reason: StopCause) => void;
    const stopped = new Promise<StopCause>((resolve) => (stop = resolve));
    const producer = this.streams.resume(job, (reason) => stop(reason));
    const options: ChatRunOptions = { requestId: spec.requestId, channel: spec.channel, visitor: { key: job.visitorKey, returning: spec.returning }, widgetId: spec.widgetId };
    const result = withLogFields({ requestId: spec.requestId, replyId: job.replyId }, () =>
      this.execute({ request: chatRequestOf(spec), options, producer, stopped, ids: { userMessageId: spec.userMessageId, startedAt: spec.startedAt, resumed: true } }),
    );
    this.track(`${options.channel}:${job.replyId}`, stop, result);
    return true;
  }

  /** Runs a reply to its end (for callers that only want the result). */
  run(request: ChatRequest, options: ChatRunOptions): Promise<ReplyData> {
    return this.start(request, options).result;
  }

  private async execute(run: ReplyRun): Promise<ReplyData> {
    const { request, options, producer, stopped, ids } = run;
    // A reply taken over counts from when the visitor asked (its timings, and the chat time limit).
    const startedAt = ids.resumed ? Math.min(ids.startedAt, Date.now()) : Date.now();
    const started = performance.now() - (Date.now() - startedAt);
    let turn: Turn | undefined;
    let opening: Promise<Turn> | undefined;
    try {
      // The conversation (the server's copy of the history), the agent and the knowledge are
      // independent: read them at the same time.
      const elsewhere = KNOWLEDGE_VERTICAL_IDS.filter((id) => id !== request.vertical && this.agents.isVerticalEnabled(id));
      const jurisdiction = request.vertical === 'legal' ? (request.jurisdiction ? { code: request.jurisdiction.code, subRegion: request.jurisdiction.subRegion } : null) : undefined;
      // A cancel before the reply starts also stops a question rewrite under way.
      const early = new AbortController();
      void stopped.then(() => early.abort());
      opening = this.conversations.openTurn(
        options.visitor,
        { vertical: request.vertical, jurisdiction: request.jurisdiction && { code: request.jurisdiction.code, subRegion: request.jurisdiction.subRegion } },
        { replyId: producer.replyId, requestId: options.requestId, channel: options.channel, language: request.language.code, question: request.query, claimedHistory: request.history, ...ids },
      );
      const [opened, found] = await Promise.all([
        opening,
        this.agents.pick(request.vertical).then(async (picked) => {
          // With an LLM agent, a question in another language than the knowledge is rewritten into it for the search.
          const rewrite = await this.rewriter.rewrite(request, picked ?? LOCAL_AGENT, options, early.signal);
          // A legal question reads its jurisdiction's items and general ones, never another jurisdiction's.
          const retrieval = await this.knowledge.retrieve(rewrite?.query ?? request.query, { vertical: request.vertical, limit: SOURCE_LIMIT, elsewhere, jurisdiction });
          return { picked, retrieval, rewrite };
        }),
      ]);
      turn = opened;
      const tracked = this.running.get(`${options.channel}:${producer.replyId}`);
      if (tracked) tracked.conversationId = turn.conversationId;
      // A person has the conversation (or is asked for now, in words): the assistant stays quiet.
      const hold = await this.handoff.holdFor(turn);
      if (hold.quiet) return await holdForPerson(this.conversations, this.handoff, { turn, request, channel: options.channel, producer, started, handoff: hold.handoff });
      if (asksForPerson(request.query, request.language.code)) {
        await this.conversations.saveQuestionOnly(turn);
        const handoff = await this.handoff.requestForTurn({ ...turn, known: true }, 'words');
        return await holdForPerson(this.conversations, this.handoff, { turn, request, channel: options.channel, producer, started, handoff, asked: true });
      }
      return await this.reply({
        request: { ...request, history: turn.history },
        options,
        producer,
        stopped,
        turn,
        agent: found.picked ?? LOCAL_AGENT,
        retrieval: found.retrieval,
        startedAt,
        started,
        rewrite: found.rewrite,
      });
    } catch (caught) {
      // The conversation, the agent or the knowledge could not be read: a 503 the caller can
      // retry, never a 500. The reply still ends (its stream gets the error frame).
      const error = !(caught instanceof AppError) && isDatabaseUnavailable(caught) ? databaseUnavailableError() : caught;
      // A turn opened while the agent or the knowledge failed ends failed too: it was left among
      // the server's running turns, and the question was never stored.
      if (!turn && opening) turn = await opening.catch(() => undefined);
      if (turn && !producer.ended) this.finishFailed({ turn, producer, error, text: '', started, ttftMs: null });
      else if (!producer.ended) producer.end({ kind: 'error', ...errorBody(error) });
      throw error;
    }
  }

  private async reply(job: ReplyJob): Promise<ReplyData> {
    const { request, options, producer, stopped, turn, agent, retrieval, started, rewrite } = job;
    const provider = this.llm.providerFor(agent.connection);
    const model = agent.model;

    // Only passages above the relevance floor reach the prompt; when none do, the (enabled)
    // vertical whose knowledge matches is suggested.
    const passages: LlmPassage[] = retrieval.passages.map((p) => ({ itemId: p.itemId, title: p.title, text: p.text, score: p.score }));
    const suggested = retrieval.suggestedVertical ? getVertical(retrieval.suggestedVertical) : undefined;
    const suggestedVertical = suggested ? { id: suggested.id, name: suggested.name } : undefined;
    const generalOnlyFor = retrieval.generalOnly && request.jurisdiction ? describeJurisdiction(request.jurisdiction) : undefined;
    const messages = buildPrompt(agent, request, passages, { suggestedVertical, generalOnlyFor });
    // Small talk ("hi", "thanks!") asks nothing of the knowledge: counted neither answered nor
    // unanswered (Analytics' answered rate, the Conversations filter).
    const answered = !retrieval.answered && smallTalkOf(request.query) ? undefined : retrieval.answered;

    // Budgets (src/limits): a paid reply holds its worst-case cost before the call; at a hard cap
    // it is refused (budget_exhausted, in the visitor's language) or answered offline.
    let budget: BudgetAdmission | undefined;
    if (agent.connection.provider !== 'local') {
      budget = await this.budgets.admit({
        agent,
        vertical: request.vertical,
        visitorKey: options.visitor.key,
        language: request.language.code,
        channel: options.channel,
        worstCaseUsd: worstCaseCost(priceFor(agent.connection.provider, model), estimatePromptTokens(messages), agent.maxTokens),
      });
      if (budget.offline) return this.reply({ ...job, agent: LOCAL_AGENT, rewrite: undefined });
    }

    // Checked again just before the provider call: a person may have been asked for meanwhile.
    if ((await this.handoff.holdFor(turn, false)).quiet) {
      await budget?.settle(0, 0);
      this.finishFailed({ turn, producer, error: new AppError('cancelled', HANDOFF_STOP_MESSAGE), text: '', started, ttftMs: null, agent });
      throw new AppError('cancelled', HANDOFF_STOP_MESSAGE);
    }

    const limits = armReplyLimits(stopped, this.config.chatTimeoutMs, agent.timeout, started);
    const coalescer = new FrameCoalescer((frame) => {
      producer.delta(frame);
      // Stored once the visitor has the first frame, so the write never delays it.
      if (!turn.saved) this.conversations.saveStart(turn);
    }, FRAME_INTERVAL_MS);
    const streamed: StreamedReply = { text: '', ttftMs: null, humanRequested: false };
    try {
      if (agent.unavailable) throw new AppError('provider_error', agent.unavailable);
      const tools = toolsFor(agent.connection.provider);
      await streamProviderReply(
        {
          provider,
          request: { model, messages, temperature: agent.temperature, maxTokens: agent.maxTokens, ...(tools ? { tools } : {}), grounding: { query: request.query, passages, language: request.language.name, vertical: request.vertical, suggestedVertical, generalOnlyFor } },
          limits,
          coalescer,
          started,
          language: request.language.code,
        },
        streamed,
      );
    } catch (error) {
      if (limits.stopReason === 'taken_over') {
        // Another server took the reply over while this one stalled: it writes the usage event and the message.
        await budget?.settle(0, 0);
        this.conversations.dropTurn(turn);
        throw new AppError('reply_interrupted', 'The reply was taken over by another server.');
      }
      // What the visitor already got stays: a stopped reply keeps its text.
      coalescer.flush();
      const failure = describeFailure(error, limits.stopReason, this.logger);
      if (failure.status !== 'cancelled') this.logger.warn(`Reply failed (${failure.error.code}): ${failure.error.message}`);
      await this.recordUsage({ ...this.usageFacts(job, messages, streamed.text, streamed.ttftMs), usage: undefined, answered, status: failure.status, error: failure.error }, budget);
      this.finishFailed({ turn, producer, error: failure.error, text: streamed.text, started, ttftMs: streamed.ttftMs, agent });
      throw failure.error;
    } finally {
      limits.clear();
    }
    const { text, ttftMs, usage, humanRequested } = streamed;
    // The last text goes out in its turn (at most one frame per interval), while the usage event is stored.
    const drained = coalescer.drain();

    // Stored before the final frame (chat:done, the /interact reply): a reply the visitor got always has its usage event.
    const event = await this.recordUsage({ ...this.usageFacts(job, messages, text, ttftMs), usage, answered, status: 'success' }, budget);
    await drained;
    const executionTime = Math.round(performance.now() - started);
    const data: ReplyData = {
      response: text,
      executionTime,
      // Confidence = the estimated probability that the first source answers the question
      // (src/retrieval/relevance.ts, calibrated by `npm run eval`); for "not found", that of the
      // best item below the relevance floor. It says how well grounded the answer is, not how fluent.
      confidence: Math.round(retrieval.confidence * 100) / 100,
      vertical: request.vertical,
      agentsInvolved: [agent.agentId],
      // Served through the A2A endpoint: the reply is an A2A task's artifact.
      a2aCompliant: options.channel === 'a2a',
      optimization: {
        cacheHit: false,
        passages: passages.length,
        coalescedFrames: coalescer.frames,
        ...(rewrite ? { questionRewrite: { outcome: rewrite.outcome, ms: rewrite.ms } } : {}),
        ...(retrieval.mode ? { retrieval: retrieval.mode } : {}),
      },
      sources: retrieval.sources,
      ...(answered === undefined ? {} : { answered }),
      ...(suggested ? { suggestedVertical: suggested.id } : {}),
      ...(generalOnlyFor ? { generalOnly: true } : {}),
      replyId: producer.replyId,
      conversationId: turn.conversationId,
      usage: {
        promptTokens: event.promptTokens,
        completionTokens: event.completionTokens,
        totalTokens: event.promptTokens + event.completionTokens,
        costUsd: event.costUsd,
        provider: agent.connection.provider,
        model,
      },
    };
    // Checked again before the reply is stored: a person asked for while it was written has the
    // conversation, and the assistant's reply does not join it (what streamed stays, as stopped).
    if ((await this.handoff.holdFor(turn, false)).quiet) {
      this.finishFailed({ turn, producer, error: new AppError('cancelled', HANDOFF_STOP_MESSAGE), text, started, ttftMs, agent });
      throw new AppError('cancelled', HANDOFF_STOP_MESSAGE);
    }
    // In the conversation before the visitor gets chat:done (a reload right after shows it, a
    // crash after it loses nothing), unless the database takes longer than STORE_WAIT_MS.
    await this.conversations.saveEnd(turn, {
      status: 'complete',
      text,
      data,
      answered,
      confidence: data.confidence,
      agentId: agent.agentId,
      provider: agent.connection.provider,
      model,
      executionMs: executionTime,
      ttftMs,
    }, STORE_WAIT_MS);
    // The model called request_human: the conversation goes to a person (after this reply is stored).
    if (humanRequested) {
      try {
        data.handoff = (await this.handoff.requestForTurn({ ...turn, known: true }, 'tool')).state;
      } catch (error) {
        this.logger.warn(`The request_human tool could not hand the conversation over: ${(error as Error).message}`);
      }
    }
    // The rule: after this many questions in a row the knowledge had no answer to, a person is asked for.
    else if (answered === false) await applyUnansweredRule(this.handoff, turn, data, this.logger);
    producer.end({ kind: 'done', data });
    return data;
  }

  /** Ends a reply that failed or was stopped: its stream gets the error frame, its message what arrived (stored in the background). */
  private finishFailed(failed: FailedReply): void {
    const { turn, producer, error, text, started, ttftMs, agent } = failed;
    const body = errorBody(error);
    const outcome: TurnOutcome = {
      status: body.code === 'cancelled' ? 'stopped' : 'error',
      text,
      agentId: agent?.agentId,
      provider: agent?.connection.provider,
      model: agent?.model,
      executionMs: Math.round(performance.now() - started),
      ttftMs,
      error: body,
    };
    void this.conversations.saveEnd(turn, outcome);
    producer.end({ kind: 'error', ...body });
  }

  private usageFacts(job: ReplyJob, messages: ReplyUsageFacts['messages'], text: string, ttftMs: number | null): Omit<ReplyUsageFacts, 'usage' | 'answered' | 'status'> {
    const { producer, request, agent, options, startedAt, started } = job;
    return { replyId: producer.replyId, request, agent, requestId: options.requestId, channel: options.channel, startedAt, started, ttftMs, messages, text, widgetId: options.widgetId };
  }

  /**
   * One usage event per call, resolved once it is stored (database, or the recorder's journal
   * during a database outage).
   */
  private async recordUsage(facts: ReplyUsageFacts, budget: BudgetAdmission | undefined) {
    const event = replyUsageEvent(facts);
    // The reply's budget hold becomes what it cost (before the event is stored: a month's spend is
    // read from the stored events once, and this one must not count twice).
    await budget?.settle(event.costUsd, event.promptTokens + event.completionTokens);
    // Global setting Enable Analytics: when off, no usage events are recorded.
    if (this.agents.usageRecordingEnabled()) await this.usage.record(event);
    return event;
  }

  /**
   * Graceful shutdown: refuse new chats, let running ones finish within the grace period, end
   * the rest with "server restarting", then write every pending usage event and conversation write.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.shutdown.begin();
    if (this.running.size > 0) {
      this.logger.log(`Shutting down: waiting for ${this.running.size} running chats`);
      const all = Promise.all([...this.running.values()].map((r) => r.done));
      const grace = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), this.config.shutdownGraceMs).unref());
      if ((await Promise.race([all, grace])) === 'timeout') {
        for (const r of this.running.values()) r.stop('shutdown');
        await all;
      }
    }
    await Promise.all([this.usage.flush(), this.conversations.writer.flush()]);
  }
}
