/**
 * The A2A 1.0 methods, on the chat pipeline: a message is one question, answered as one reply
 * (the task id is the reply id), in the conversation its `contextId` names. What the pipeline
 * does for any chat applies: the rate limits (per key and IP), the budgets, the usage event (channel
 * `a2a`), the conversation (visible in the console).
 *
 * - The task's answer is one artifact (`answer`): the reply's text as text parts, then its sources
 *   as a data part (`{ "sources": [...] }`). Streamed, each text piece is an artifact update
 *   appended to it, each tagged with its frame number (`metadata.seq`).
 * - A task's frames are the reply's resumable stream: SubscribeToTask, GetTask and CancelTask
 *   work on any server of the cluster (with REDIS_URL), while the reply runs and after.
 * - The caller (an API key) owns its tasks: another key's tasks do not exist for it. A context
 *   is a conversation of that key; each (key, context) is its own visitor, so two contexts never
 *   share a history.
 * - The vertical comes from the message's (or the request's) metadata: `skillId` (a skill of the
 *   agent card: one per vertical) or `vertical`; for legal also `jurisdiction` and, where laws
 *   differ inside it, `subJurisdiction`. `language` names the reply language.
 */
import { Injectable } from '@nestjs/common';
import { A2AError, JsonRpcTransportError } from '@a2a-js/sdk/errors';
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import {
  Role,
  TaskState,
  type AgentCard,
  type Artifact,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { AgentRegistryService } from '../agents/agent-registry.service';
import { newUsageEventId } from '../analytics/usage-event-id';
import { AppError } from '../common/app-error';
import { VisitorConversationReadsService } from '../conversations/visitor-conversation-reads.service';
import { isFinal, ReplyStreamService, textOf, type ReplyFrame } from '../conversations/reply-streams';
import { visitorKeyOf, type Visitor } from '../conversations/visitor-identity';
import { ChatLimitsService } from '../limits/chat-limits.service';
import { ENABLED_VERTICAL_IDS, KNOWLEDGE_VERTICAL_IDS } from '../shared/catalog/verticals';
import { InteractRequestSchema, type ReplyData } from '../shared/contracts/chat';
import { firstProblem } from '../shared/contracts/rules';
import { toChatRequest } from '../chat/chat-request';
import { ChatService } from '../chat/chat.service';
import type { MachineCaller } from '../protocols/json-rpc-gate';
import { JSON_RPC_ERRORS } from '../protocols/json-rpc-gate';
import type { A2aTask } from './a2a-task.entity';
import { A2aTasksService, cursorOf, LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from './a2a-tasks.service';

const BAD_PAGE_TOKEN = 'The pageToken is not one this server gave: start again without it.';
/** ListTasks with a state filter counts the matching tasks among this many of the latest. */
const STATE_COUNT_MAX = 1000;
import { agentCard } from './agent-card';

/** The id of the answer artifact of every task. */
export const ANSWER_ARTIFACT = 'answer';
const CONTEXT_ID = /^[A-Za-z0-9._:-]{1,100}$/;
/** Longest a CancelTask waits for the reply to end before answering with its state then. */
const CANCEL_WAIT_MS = 10_000;

/** The A2A user of a request: the key the JSON-RPC gate authenticated. */
export class A2aCaller implements User {
  constructor(readonly caller: MachineCaller) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.caller.apiKey.id;
  }
}

function callerOf(context: ServerCallContext): MachineCaller {
  const user = context.user;
  if (!(user instanceof A2aCaller)) throw new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code: JSON_RPC_ERRORS.serverError, message: 'An API key is required.' } });
  return user.caller;
}

/** The visitor a context is for its key: the conversation's owner. */
export function contextVisitor(apiKeyId: string, contextId: string): Visitor {
  return { key: visitorKeyOf(`a2a:${apiKeyId}:${contextId}`), returning: true };
}

/**
 * An error of the chat pipeline before the reply started, as the SDK's error. The SDK sends a
 * JSON-RPC error without its data, so an AppError refusal is also noted on the caller: A2aHttp
 * adds its code (and a rate limit's wait, as 429 with Retry-After) to the response.
 */
function rpcError(error: unknown, caller: MachineCaller): Error {
  if (error instanceof A2AError) return error;
  if (error instanceof AppError) {
    if (error.status === 400 || error.code === 'vertical_disabled') return new RequestMalformedError(error.message);
    caller.refusal = error;
    return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code: JSON_RPC_ERRORS.serverError, message: error.message } });
  }
  return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code: JSON_RPC_ERRORS.serverError, message: 'The assistant could not take the message. Please try again.' } });
}

/** Where a task stands: its text so far and how it ended. */
interface TaskView {
  state: TaskState;
  text: string;
  data?: ReplyData;
  error?: { code: string; message: string };
  /** The last frame it is made of (0 when read from the stored message). */
  seq: number;
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function stateOfError(code: string): TaskState {
  return code === 'cancelled' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
}

function viewOfFrames(frames: readonly ReplyFrame[]): TaskView {
  const last = frames[frames.length - 1];
  const seq = last?.seq ?? 0;
  if (last?.kind === 'done') return { state: TaskState.TASK_STATE_COMPLETED, text: last.data.response, data: last.data, seq };
  if (last?.kind === 'error') return { state: stateOfError(last.code), text: textOf(frames), error: { code: last.code, message: last.message }, seq };
  return { state: TaskState.TASK_STATE_WORKING, text: textOf(frames), seq };
}

@Injectable()
export class A2aRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly chat: ChatService,
    private readonly streams: ReplyStreamService,
    private readonly conversations: VisitorConversationReadsService,
    private readonly limits: ChatLimitsService,
    private readonly agents: AgentRegistryService,
    private readonly tasks: A2aTasksService,
  ) {}

  /** The card for version checks (the served card names this server's URL: A2aHttp). */
  async getAgentCard(): Promise<AgentCard> {
    return agentCard('http://localhost', this.enabledVerticals());
  }

  enabledVerticals() {
    return ENABLED_VERTICAL_IDS.filter((id) => KNOWLEDGE_VERTICAL_IDS.includes(id) && this.agents.isVerticalEnabled(id));
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('This agent has no extended card: the public card says everything.');
  }

  // --- messages ---------------------------------------------------------------------------------

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    const begun = await this.begin(params, callerOf(context));
    if (params.configuration?.returnImmediately) return this.taskOf(begun.record, { state: TaskState.TASK_STATE_WORKING, text: '', seq: 0 });
    try {
      const data = await begun.result;
      return this.taskOf(begun.record, { state: TaskState.TASK_STATE_COMPLETED, text: data.response, data, seq: 0 });
    } catch (error) {
      const body = error instanceof AppError ? { code: error.code, message: error.message } : { code: 'internal_error', message: 'The assistant could not produce a reply.' };
      const view = await this.view(begun.record);
      return this.taskOf(begun.record, { ...view, state: stateOfError(body.code), error: body });
    }
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerOf(context);
    const begun = await this.begin(params, caller);
    yield { payload: { $case: 'task', value: this.taskOf(begun.record, { state: TaskState.TASK_STATE_WORKING, text: '', seq: 0 }) } };
    yield* this.events(begun.record, 0, false, caller.gone);
  }

  /** Checks the message, admits it (limits), starts the reply and records the task. */
  private async begin(params: SendMessageRequest, caller: MachineCaller): Promise<{ record: A2aTask; result: Promise<ReplyData> }> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('Send the question as params.message: a message with role ROLE_USER and a text part.');
    if (message.role !== Role.ROLE_USER) throw new RequestMalformedError('The message must have the role ROLE_USER.');
    if (message.taskId) {
      throw new UnsupportedOperationError('Each message is answered as a new task: to continue the conversation, send the next message with the same contextId and no taskId.');
    }
    if (message.parts.some((p) => p.content?.$case === 'raw' || p.content?.$case === 'url')) {
      throw new ContentTypeNotSupportedError('Files are not read: send the question as text parts.');
    }
    const query = message.parts
      .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
      .filter((t) => t.trim() !== '')
      .join('\n');
    const contextId = message.contextId || newUsageEventId();
    if (!CONTEXT_ID.test(contextId)) throw new RequestMalformedError('The contextId must be 1 to 100 letters, digits or . _ : -');
    const meta: Record<string, unknown> = { ...(isObject(params.metadata) ? params.metadata : {}), ...(isObject(message.metadata) ? message.metadata : {}) };
    const enabled = this.enabledVerticals();
    const named = meta.skillId ?? meta.skill ?? meta.vertical;
    const vertical = named ?? (enabled.includes('customer-service') ? 'customer-service' : enabled[0]);
    const parsed = InteractRequestSchema.safeParse({
      query,
      vertical,
      jurisdiction: meta.jurisdiction,
      subJurisdiction: meta.subJurisdiction,
      preferredLanguage: meta.language,
    });
    if (!parsed.success) throw new RequestMalformedError(firstProblem(parsed.error).message);
    const request = toChatRequest(parsed.data);
    const visitor = contextVisitor(caller.apiKey.id, contextId);
    let started: ReturnType<ChatService['start']>;
    try {
      this.chat.admit(request);
      const slot = await this.limits.admitMessage({ channel: 'a2a', ip: caller.ip, visitorKey: visitor.key, apiKeyId: caller.apiKey.id });
      started = this.chat.start(request, { requestId: caller.requestId, channel: 'a2a', visitor, slot });
    } catch (error) {
      throw rpcError(error, caller);
    }
    // The result is read from the frames (or awaited by SendMessage).
    started.result.catch(() => undefined);
    const record = {
      id: started.replyId,
      apiKeyId: caller.apiKey.id,
      contextId,
      vertical: request.vertical,
      question: request.query,
      messageId: (message.messageId || newUsageEventId()).slice(0, 100),
      createdAt: Date.now(),
    } satisfies A2aTask;
    try {
      await this.tasks.record(record);
    } catch (error) {
      // Not recorded: nobody could read or stop it as a task, so it does not run.
      await this.streams.cancel(started.replyId, visitor.key).catch(() => undefined);
      throw rpcError(error, caller);
    }
    return { record, result: started.result };
  }

  /**
   * The task's events after frame `after`, until it ends or the caller goes away (which ends only
   * this stream: the reply goes on, and SubscribeToTask picks it up). `appending`: the caller
   * already has some of the answer's text (a resubscribe's task), so the first piece is appended.
   */
  private async *events(record: A2aTask, after: number, appending: boolean, gone: AbortSignal): AsyncGenerator<StreamResponse, void, undefined> {
    const queue = new FrameQueue();
    const visitor = contextVisitor(record.apiKeyId, record.contextId);
    const follow = await this.streams.follow(record.id, visitor.key, after, (frame) => queue.push(frame));
    if (!follow.ok) {
      // The stream expired between the task and now: its stored state ends the stream.
      const view = await this.view(record);
      yield { payload: { $case: 'statusUpdate', value: this.statusUpdate(record, view) } };
      return;
    }
    const stop = () => queue.close();
    gone.addEventListener('abort', stop);
    let append = appending;
    try {
      for (;;) {
        const frame = await queue.next();
        if (!frame) return;
        const ids = { taskId: record.id, contextId: record.contextId };
        switch (frame.kind) {
          case 'delta':
            yield { payload: { $case: 'artifactUpdate', value: { ...ids, artifact: answerArtifact([textPart(frame.text)]), append, lastChunk: false, metadata: { seq: frame.seq } } } };
            append = true;
            break;
          case 'restart':
            // Another server took the reply over and writes it again: the answer so far is replaced.
            yield { payload: { $case: 'artifactUpdate', value: { ...ids, artifact: answerArtifact([textPart('')]), append: false, lastChunk: false, metadata: { seq: frame.seq, restart: frame.attempt } } } };
            append = true;
            break;
          case 'done':
            yield { payload: { $case: 'artifactUpdate', value: { ...ids, artifact: answerArtifact([dataPart({ sources: frame.data.sources })]), append: true, lastChunk: true, metadata: { seq: frame.seq } } } };
            yield { payload: { $case: 'statusUpdate', value: this.statusUpdate(record, { state: TaskState.TASK_STATE_COMPLETED, text: frame.data.response, data: frame.data, seq: frame.seq }) } };
            return;
          case 'error':
            yield { payload: { $case: 'statusUpdate', value: this.statusUpdate(record, { state: stateOfError(frame.code), text: '', error: { code: frame.code, message: frame.message }, seq: frame.seq }) } };
            return;
        }
      }
    } finally {
      gone.removeEventListener('abort', stop);
      follow.stop();
    }
  }

  // --- tasks ------------------------------------------------------------------------------------

  private async own(id: unknown, context: ServerCallContext): Promise<A2aTask> {
    // A 0.3 request's params reach here as sent: the id may be missing or not a string.
    if (typeof id !== 'string' || id === '') throw new RequestMalformedError('Name the task: params.id must be the task id (a string).');
    const record = await this.tasks.find(id, callerOf(context).apiKey.id);
    if (!record) throw new TaskNotFoundError(`There is no task ${id.slice(0, 100)} for this API key.`);
    return record;
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const record = await this.own(params.id, context);
    return this.taskOf(record, await this.view(record));
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const caller = callerOf(context);
    const pageSize = params.pageSize === undefined || params.pageSize === 0 ? LIST_PAGE_DEFAULT : params.pageSize;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIST_PAGE_MAX) throw new RequestMalformedError(`The pageSize must be 1 to ${LIST_PAGE_MAX}.`);
    if (params.contextId && !CONTEXT_ID.test(params.contextId)) throw new RequestMalformedError('The contextId must be 1 to 100 letters, digits or . _ : -');
    const contextId = params.contextId || undefined;
    if (params.status) return this.listTasksInState(caller.apiKey.id, { contextId, state: params.status, pageSize, pageToken: params.pageToken || undefined });
    const page = await this.tasks.list(caller.apiKey.id, { contextId, pageSize, pageToken: params.pageToken || undefined });
    if (!page) throw new RequestMalformedError(BAD_PAGE_TOKEN);
    const tasks = await Promise.all(page.rows.map(async (record) => this.taskOf(record, await this.view(record))));
    return { tasks, nextPageToken: page.next, pageSize, totalSize: page.total };
  }

  /**
   * ListTasks with a state filter. A task's state lives with its reply, not in the task list, so
   * the list is read in order from the cursor until the page holds pageSize tasks in that state:
   * pages are full and the next cursor continues after the last task shown. totalSize counts the
   * tasks in that state among the latest STATE_COUNT_MAX of the key (or context).
   */
  private async listTasksInState(
    apiKeyId: string,
    options: { contextId?: string; state: TaskState; pageSize: number; pageToken?: string },
  ): Promise<ListTasksResponse> {
    const inState = async (records: A2aTask[]) =>
      (await Promise.all(records.map(async (record) => ({ record, task: this.taskOf(record, await this.view(record)) })))).filter(({ task }) => task.status?.state === options.state);
    const shown: Array<{ record: A2aTask; task: Task }> = [];
    let token = options.pageToken;
    let more = false;
    for (;;) {
      const batch = await this.tasks.list(apiKeyId, { contextId: options.contextId, pageSize: LIST_PAGE_MAX, pageToken: token });
      if (!batch) throw new RequestMalformedError(BAD_PAGE_TOKEN);
      shown.push(...(await inState(batch.rows)));
      if (shown.length > options.pageSize) {
        more = true;
        break;
      }
      if (!batch.next) break;
      token = batch.next;
    }
    const page = shown.slice(0, options.pageSize);
    let totalSize = 0;
    for (let cursor: string | undefined, read = 0; read < STATE_COUNT_MAX; ) {
      const batch = await this.tasks.list(apiKeyId, { contextId: options.contextId, pageSize: LIST_PAGE_MAX, pageToken: cursor });
      if (!batch) break;
      totalSize += (await inState(batch.rows)).length;
      read += batch.rows.length;
      if (!batch.next) break;
      cursor = batch.next;
    }
    return {
      tasks: page.map(({ task }) => task),
      nextPageToken: more ? cursorOf(page[page.length - 1].record) : '',
      pageSize: options.pageSize,
      totalSize,
    };
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const record = await this.own(params.id, context);
    const visitor = contextVisitor(record.apiKeyId, record.contextId);
    const live = await this.streams.read(record.id, visitor.key);
    const last = typeof live === 'object' ? live.frames[live.frames.length - 1] : undefined;
    if (typeof live !== 'object' || (last && isFinal(last))) {
      const view = typeof live === 'object' ? viewOfFrames(live.frames) : await this.view(record);
      throw new TaskNotCancelableError(`The task has already ended (${TaskState[view.state]}).`);
    }
    // The stop reaches the server writing the reply (here or, with REDIS_URL, any other); the
    // provider's call is aborted there and the reply ends with its `cancelled` frame.
    const ended = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CANCEL_WAIT_MS);
      void this.streams
        .follow(record.id, visitor.key, last?.seq ?? 0, (frame) => {
          if (isFinal(frame)) {
            clearTimeout(timer);
            resolve();
          }
        })
        .then((follow) => {
          if (!follow.ok) resolve();
          else void ended.then(() => follow.stop());
        });
    });
    await this.streams.cancel(record.id, visitor.key);
    await ended;
    return this.taskOf(record, await this.view(record));
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerOf(context);
    const record = await this.own(params.id, context);
    const visitor = contextVisitor(record.apiKeyId, record.contextId);
    const live = await this.streams.read(record.id, visitor.key);
    const view = typeof live === 'object' ? viewOfFrames(live.frames) : await this.view(record);
    if (view.state !== TaskState.TASK_STATE_WORKING) {
      throw new UnsupportedOperationError(`The task has ended (${TaskState[view.state]}): read it with GetTask.`);
    }
    // The task as it stands (its text up to frame `seq`), then each later frame once.
    yield { payload: { $case: 'task', value: this.taskOf(record, view) } };
    if (typeof live !== 'object') return;
    yield* this.events(record, view.seq, view.text !== '', caller.gone);
  }

  // --- push notifications: not offered (the card says so) ---------------------------------------

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported: stream the task or read it with GetTask.');
  }
  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported.');
  }
  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported.');
  }
  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported.');
  }

  // --- views ------------------------------------------------------------------------------------

  /** The task's state: its live stream, else its stored message. */
  private async view(record: A2aTask): Promise<TaskView> {
    const visitor = contextVisitor(record.apiKeyId, record.contextId);
    const live = await this.streams.read(record.id, visitor.key);
    if (typeof live === 'object') return viewOfFrames(live.frames);
    const stored = await this.conversations.storedReply(record.id, visitor.key);
    if (!stored) {
      return { state: TaskState.TASK_STATE_FAILED, text: '', error: { code: 'reply_interrupted', message: 'The reply is no longer available. Please ask again.' }, seq: 0 };
    }
    switch (stored.status) {
      case 'complete':
        return { state: TaskState.TASK_STATE_COMPLETED, text: stored.text, data: stored.data ?? undefined, seq: 0 };
      case 'streaming':
        return { state: TaskState.TASK_STATE_WORKING, text: stored.text, seq: 0 };
      case 'stopped':
        return { state: TaskState.TASK_STATE_CANCELED, text: stored.text, error: stored.error ?? { code: 'cancelled', message: 'The request was cancelled.' }, seq: 0 };
      default:
        return { state: TaskState.TASK_STATE_FAILED, text: stored.text, error: stored.error ?? { code: 'reply_interrupted', message: 'The reply was interrupted. Please ask again.' }, seq: 0 };
    }
  }

  private taskOf(record: A2aTask, view: TaskView): Task {
    const parts: Part[] = [];
    if (view.text) parts.push(textPart(view.text));
    if (view.data) parts.push(dataPart({ sources: view.data.sources }));
    const question: Message = {
      messageId: record.messageId,
      contextId: record.contextId,
      taskId: record.id,
      role: Role.ROLE_USER,
      parts: [textPart(record.question)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    return {
      id: record.id,
      contextId: record.contextId,
      status: this.status(record, view),
      artifacts: parts.length > 0 ? [answerArtifact(parts)] : [],
      history: [question],
      metadata: this.metadata(record, view),
    };
  }

  private status(record: A2aTask, view: TaskView): Task['status'] {
    const message: Message | undefined = view.error
      ? {
          messageId: `${record.id}:status`,
          contextId: record.contextId,
          taskId: record.id,
          role: Role.ROLE_AGENT,
          parts: [textPart(view.error.message)],
          metadata: { code: view.error.code },
          extensions: [],
          referenceTaskIds: [],
        }
      : undefined;
    return { state: view.state, message, timestamp: new Date().toISOString() };
  }

  private statusUpdate(record: A2aTask, view: TaskView) {
    return { taskId: record.id, contextId: record.contextId, status: this.status(record, view), metadata: this.metadata(record, view) };
  }

  /** The reply's data (without its text, which is the artifact) and that it was served over A2A. */
  private metadata(record: A2aTask, view: TaskView): Record<string, unknown> {
    const { response: _text, ...reply } = view.data ?? ({} as Partial<ReplyData>);
    return {
      vertical: record.vertical,
      a2aCompliant: true,
      ...(view.seq ? { seq: view.seq } : {}),
      ...(view.data ? { reply } : {}),
      ...(view.error ? { error: view.error } : {}),
    };
  }
}

function answerArtifact(parts: Part[]): Artifact {
  return { artifactId: ANSWER_ARTIFACT, name: 'answer', description: 'The answer, then its sources as a data part.', parts, metadata: undefined, extensions: [] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Frames handed from the stream's listener to the event generator, in order. */
class FrameQueue {
  private readonly frames: ReplyFrame[] = [];
  private waiting: ((frame: ReplyFrame | undefined) => void) | undefined;
  private closed = false;

  push(frame: ReplyFrame): void {
    if (this.closed) return;
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = undefined;
      wake(frame);
    } else this.frames.push(frame);
  }

  close(): void {
    this.closed = true;
    this.waiting?.(undefined);
    this.waiting = undefined;
  }

  next(): Promise<ReplyFrame | undefined> {
    const frame = this.frames.shift();
    if (frame || this.closed) return Promise.resolve(frame);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}
