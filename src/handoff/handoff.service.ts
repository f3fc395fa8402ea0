/**
 * Conversations handed to a person: the one place their handoff state changes. Every transition
 * (bot -> waiting -> open -> resolved, and back to bot or waiting on the next visitor message) is
 * one UPDATE guarded by the version the caller read (`WHERE handoff_version = $v`): of two members
 * taking one conversation at once, one write changes the row and the other changes nothing and is
 * told 409. Each transition is written to the audit log and pushed live: `inbox:changed` to the
 * consoles of agents, admins and owners, `chat:handoff` to the visitor's sockets (any server).
 *
 * While a conversation is waiting or open the assistant stays quiet (ChatService asks
 * `holdFor`); a reply streaming when a person is asked for is stopped on whichever server writes
 * it (`onStop` listeners, told through the cluster channel).
 */
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { AuditService, memberActor, type AuditActor } from '../audit/audit.service';
import { AppError } from '../common/app-error';
import { ClusterChannel } from '../common/cluster-channel';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { changedRows, portableSql } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { ConversationsService, handoffInfoOf, jurisdictionScopeOf, scopeOf, type HandoffColumns, type Turn } from '../conversations/conversations.service';
import type { Visitor } from '../conversations/visitor-identity';
import { KnowledgeGapsService } from '../conversations/knowledge-gaps.service';
import { ACCESS, type Role } from '../shared/contracts/roles';
import {
  type HandoffInfo,
  type HandoffReason,
  type HandoffRequest,
  type HandoffRequestResult,
  type HandoffState,
  type HumanMessage,
  type Inbox,
  type InboxConversation,
  type InboxItem,
  type InboxMessage,
  type InboxMessageInput,
} from '../shared/contracts/handoff';
import { formatOpening, hoursStatus } from './business-hours';
import { HandoffClock } from './handoff-clock';
import { handoffNotice } from './handoff-phrases';
import { HandoffNotifier } from './handoff-notifier';
import { HandoffSettingsService } from './handoff-settings.service';

/** Waiting and open conversations the inbox lists (each list). */
const INBOX_LIMIT = 200;
const TRANSCRIPT_LIMIT = 500;
/** Expected wait per place in the queue when no conversation was taken recently. */
const DEFAULT_WAIT_SECONDS = 180;
/** Recent takes the expected wait is averaged over. */
const WAIT_SAMPLE = 20;

/** The member acting in the inbox. */
export interface Member {
  id: string;
  name: string;
  email: string;
  role: Role;
}

interface ConversationRow extends HandoffColumns {
  id: string;
  visitor_key: string;
  vertical: string;
  scope: string;
  title: string;
  language: string | null;
  handoff_id: string | null;
  visitor_email: string | null;
  message_count: string | number;
  updated_at: string | number;
  closed_at: string | number | null;
}

interface InboxRow extends ConversationRow {
  reason: string | null;
  question: string | null;
  within_hours: string | number | null;
  unread: string | number | null;
}

type ClusterSignal = { t: 'stop'; c: string };

const CONVERSATION_COLUMNS =
  'c.id, c.visitor_key, c.vertical, c.scope, c.title, c.language, c.handoff_state, c.handoff_version, c.handoff_id, c.assignee_id, c.assignee_name, c.handoff_requested_at, c.visitor_email, c.message_count, c.updated_at, c.closed_at';

const iso = (ms: string | number) => new Date(Number(ms)).toISOString();
const NOT_FOUND = 'That conversation was not found.';

/** What the chat pipeline does with a visitor message: answer it, or keep quiet (a person has the conversation). */
export type Hold = { quiet: false } | { quiet: true; handoff: HandoffInfo };

/** How long a handoff waits for the knowledge gap of the unanswered question to be stored. */
const GAP_WAIT_MS = 2_000;

@Injectable()
export class HandoffService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Handoff');
  private readonly stopListeners = new Set<(conversationId: string) => void>();
  private readonly channel: ClusterChannel<ClusterSignal>;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly conversations: ConversationsService,
    private readonly knowledgeGaps: KnowledgeGapsService,
    private readonly adminEvents: AdminEventsService,
    private readonly audit: AuditService,
    private readonly settings: HandoffSettingsService,
    private readonly clock: HandoffClock,
    private readonly notifier: HandoffNotifier,
  ) {
    this.channel = new ClusterChannel<ClusterSignal>({
      redisUrl: config.redisUrl,
      redisPrefix: config.redisPrefix,
      name: 'handoff',
      onMessage: (message) => {
        if (message?.t === 'stop' && typeof message.c === 'string') this.stopLocal(message.c);
      },
    });
  }

  async onModuleInit(): Promise<void> {
    await this.channel.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.channel.close();
  }

  private sql(text: string): string {
    return portableSql(this.dataSource, text);
  }

  /** Called with a conversation handed to a person: stop its replies running on this server (ChatService). */
  onStop(listener: (conversationId: string) => void): () => void {
    this.stopListeners.add(listener);
    return () => this.stopListeners.delete(listener);
  }

  private stopLocal(conversationId: string): void {
    for (const listener of this.stopListeners) {
      try {
        listener(conversationId);
      } catch (error) {
        this.logger.warn(`Stopping the replies of ${conversationId} failed: ${(error as Error).message}`);
      }
    }
  }

  /** Stops the conversation's running replies on every server. */
  private async stopReplies(conversationId: string): Promise<void> {
    this.stopLocal(conversationId);
    await this.channel.publish({ t: 'stop', c: conversationId });
  }

  private async row(conversationId: string): Promise<ConversationRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(conversationId)) return undefined;
    const rows: ConversationRow[] = await this.dataSource.query(this.sql(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.id = $1`), [conversationId.toLowerCase()]);
    return rows[0];
  }

  private async requireRow(conversationId: string): Promise<ConversationRow> {
    await this.conversations.writer.flush();
    const row = await this.row(conversationId);
    if (!row) throw new AppError('not_found', NOT_FOUND);
    return row;
  }

  /** The conversation's handoff (bot for a conversation not stored yet). */
  async infoOf(conversationId: string): Promise<HandoffInfo> {
    const row = await this.row(conversationId);
    if (!row) return handoffInfoOf({ handoff_state: 'bot', handoff_version: 0, assignee_id: null, assignee_name: null, handoff_requested_at: null });
    return this.withQueue(row);
  }

  private async withQueue(row: ConversationRow): Promise<HandoffInfo> {
    if (row.handoff_state !== 'waiting') return handoffInfoOf(row);
    const [position, wait] = await Promise.all([this.queuePosition(row), this.waitPerPlace()]);
    return handoffInfoOf(row, position, position * wait);
  }

  private async queuePosition(row: ConversationRow): Promise<number> {
    const rows: { n: string | number }[] = await this.dataSource.query(
      this.sql(`SELECT COUNT(*) AS n FROM conversations WHERE handoff_state = 'waiting' AND handoff_requested_at <= $1`),
      [Number(row.handoff_requested_at ?? this.clock.now())],
    );
    return Math.max(1, Number(rows[0]?.n ?? 1));
  }

  /** Seconds per place in the queue: the average time to take a conversation over the recent takes. */
  private async waitPerPlace(): Promise<number> {
    const rows: { taken_at: string | number; requested_at: string | number }[] = await this.dataSource.query(
      this.sql(`SELECT taken_at, requested_at FROM handoffs WHERE taken_at IS NOT NULL ORDER BY taken_at DESC LIMIT ${WAIT_SAMPLE}`),
    );
    if (rows.length === 0) return DEFAULT_WAIT_SECONDS;
    const total = rows.reduce((sum, r) => sum + Math.max(0, Number(r.taken_at) - Number(r.requested_at)), 0);
    return Math.max(30, Math.round(total / rows.length / 1000));
  }

  // --- transitions ----------------------------------------------------------------------------

  /**
   * Moves the conversation from the version the caller read to `to`, with the other columns in
   * `set` (`$n` parameters numbered from 4). Refused with 409 when another transition came first.
   */
  private async transition(row: ConversationRow, to: HandoffState, set: Record<string, unknown>, conflict: string): Promise<ConversationRow> {
    const columns = Object.keys(set);
    const assignments = ['handoff_state = $3', 'handoff_version = handoff_version + 1', ...columns.map((c, i) => `${c} = $${i + 4}`)];
    const changed = await queuedWrite(this.dataSource, () =>
      changedRows(this.dataSource, `UPDATE conversations SET ${assignments.join(', ')} WHERE id = $1 AND handoff_version = $2`, [row.id, Number(row.handoff_version), to, ...columns.map((c) => set[c])]),
    );
    if (changed === 0) throw new AppError('conflict', conflict);
    return { ...row, ...(set as Partial<ConversationRow>), handoff_state: to, handoff_version: Number(row.handoff_version) + 1 };
  }

  private async record(action: string, actor: AuditActor, row: ConversationRow, changes: { field: string; before: unknown; after: unknown }[]): Promise<void> {
    try {
      await this.audit.record({ action, actor, target: { kind: 'conversation', id: row.id, title: row.title || null }, changes: changes as never });
    } catch (error) {
      this.logger.warn(`Could not write ${action} to the audit log: ${(error as Error).message}`);
    }
  }

  private async announce(row: ConversationRow, event: string): Promise<HandoffInfo> {
    const info = await this.withQueue(row);
    this.adminEvents.emit('inbox:changed', { conversationId: row.id, state: info.state, version: info.version, event });
    this.adminEvents.emitToVisitor(row.visitor_key, 'chat:handoff', { conversationId: row.id, handoff: info });
    return info;
  }

  /**
   * Hands the conversation to a person (bot or resolved -> waiting): a new handoff row with the
   * question the knowledge had no answer to, replies running in it stopped, the inbox and the
   * visitor told, the members on duty and the webhook notified. A conversation already waiting
   * or open stays as it is.
   */
  private async handToPerson(row: ConversationRow, reason: HandoffReason, actor: AuditActor, withinHours: boolean): Promise<ConversationRow> {
    if (row.handoff_state === 'waiting' || row.handoff_state === 'open') return row;
    const now = this.clock.now();
    const handoffId = randomUUID();
    const gap = await this.lastGap(row.id);
    const moved = await this.transition(
      row,
      'waiting',
      { handoff_id: handoffId, assignee_id: null, assignee_name: null, handoff_requested_at: now },
      'The conversation changed meanwhile. Try again.',
    );
    await queuedWrite(this.dataSource, () =>
      this.dataSource.query(
        this.sql(`INSERT INTO handoffs (id, conversation_id, vertical, reason, question, gap_id, within_hours, requested_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
        [handoffId, row.id, row.vertical, reason, gap?.question?.slice(0, 500) ?? null, gap?.gapId ?? null, withinHours ? 1 : 0, now],
      ),
    );
    await this.stopReplies(row.id);
    await this.record('handoff.request', actor, moved, [
      { field: 'state', before: row.handoff_state, after: 'waiting' },
      { field: 'reason', before: null, after: reason },
    ]);
    await this.announce(moved, 'requested');
    void this.notifier.handedOff({ conversationId: row.id, vertical: row.vertical, reason, title: row.title, question: gap?.question ?? null, requestedAt: now, withinHours, visitorEmail: moved.visitor_email });
    return moved;
  }

  /** The newest question of the conversation the knowledge had no answer to, and its knowledge gap. */
  private async lastGap(conversationId: string): Promise<{ question: string; gapId: string | null } | undefined> {
    const rows: { id: string; seq: string | number }[] = await this.dataSource.query(
      this.sql(`SELECT id, seq FROM conversation_messages WHERE conversation_id = $1 AND role = 'agent' AND answered = 0 ORDER BY seq DESC LIMIT 1`),
      [conversationId],
    );
    const reply = rows[0];
    if (!reply) return undefined;
    // The gap of that reply is recorded after the reply was sent: wait for it, a short while at most.
    await Promise.race([this.knowledgeGaps.settled(), new Promise((resolve) => setTimeout(resolve, GAP_WAIT_MS).unref())]);
    const [question, gap] = await Promise.all([
      this.dataSource.query(this.sql(`SELECT content FROM conversation_messages WHERE conversation_id = $1 AND role = 'user' AND seq < $2 ORDER BY seq DESC LIMIT 1`), [conversationId, reply.seq]) as Promise<{ content: string }[]>,
      this.dataSource.query(this.sql('SELECT gap_id FROM knowledge_gap_questions WHERE reply_id = $1'), [reply.id]) as Promise<{ gap_id: string }[]>,
    ]);
    if (!question[0]) return undefined;
    return { question: question[0].content, gapId: gap[0]?.gap_id ?? null };
  }

  /**
   * The visitor asks for a person (the "Talk to a person" button): in their open conversation of
   * the vertical (and jurisdiction), or a new one when they have none (a message left out of
   * hours starts one). The message and email they leave are kept with it.
   */
  async requestByVisitor(visitor: Visitor, request: HandoffRequest): Promise<HandoffRequestResult> {
    const scope = scopeOf({ vertical: request.vertical, jurisdiction: jurisdictionScopeOf(request.jurisdiction, request.subJurisdiction) });
    await this.conversations.writer.flush();
    const now = this.clock.now();
    const openOne = async (): Promise<ConversationRow | undefined> =>
      (
        (await this.dataSource.query(
          this.sql(`SELECT ${CONVERSATION_COLUMNS} FROM conversations c WHERE c.visitor_key = $1 AND c.vertical = $2 AND c.scope = $3 AND c.closed_at IS NULL ORDER BY c.updated_at DESC LIMIT 1`),
          [visitor.key, request.vertical, scope],
        )) as ConversationRow[]
      )[0];
    let row = await openOne();
    if (!row) {
      const id = randomUUID();
      const jurisdiction = request.vertical === 'legal' ? jurisdictionScopeOf(request.jurisdiction, request.subJurisdiction) : undefined;
      const title = (request.message ?? 'Asked for a person').slice(0, 200);
      // A first message on another server may store the scope's open conversation between the
      // look-up and this insert: the unique index on open conversations (visitor, vertical, scope)
      // keeps it one, the insert does nothing and the request joins that conversation.
      await queuedWrite(this.dataSource, () =>
        this.dataSource.query(
          this.sql(`INSERT INTO conversations (id, visitor_key, vertical, scope, jurisdiction, sub_jurisdiction, language, channel, title,
                                               message_count, unanswered_count, up_votes, down_votes, created_at, updated_at, closed_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, 'rest', $8, 0, 0, 0, 0, $9, $9, NULL)
                    ON CONFLICT DO NOTHING`),
          [id, visitor.key, request.vertical, scope, jurisdiction?.code ?? null, jurisdiction?.subRegion ?? null, request.language ?? null, title, now],
        ),
      );
      row = (await this.row(id)) ?? (await openOne());
      if (!row) throw new Error('the conversation to hand over was neither stored nor found');
    }
    if (request.message) await this.addVisitorMessage(row, request.message, request.language ?? null, now);
    if (request.email && request.email !== row.visitor_email) {
      const conversationId = row.id;
      await queuedWrite(this.dataSource, () => this.dataSource.query(this.sql('UPDATE conversations SET visitor_email = $2 WHERE id = $1'), [conversationId, request.email]));
      row = { ...row, visitor_email: request.email };
    }
    this.conversations.forgetHistory(visitor.key, row.vertical, row.scope);
    const { hours } = await this.settings.get();
    const schedule = hours[row.vertical];
    const status = hoursStatus(schedule, now);
    const moved = await this.handToPerson(row, 'visitor', { kind: 'anonymous', name: 'Visitor' }, status.open);
    if (moved === row && request.message) this.adminEvents.emit('inbox:changed', { conversationId: row.id, state: row.handoff_state as HandoffState, version: Number(row.handoff_version), event: 'message' });
    const info = await this.withQueue(moved);
    const language = request.language ?? row.language ?? 'en';
    const opening = status.nextOpening === null ? null : formatOpening(status.nextOpening, language, request.timeZone && isZone(request.timeZone) ? request.timeZone : (schedule?.timeZone ?? 'UTC'));
    const message = !status.open
      ? handoffNotice(language, { kind: 'closed', opening })
      : info.state === 'open'
        ? handoffNotice(language, { kind: 'open' })
        : handoffNotice(language, { kind: 'waiting', position: info.queuePosition ?? 1, waitMinutes: Math.max(1, Math.round((info.expectedWaitSeconds ?? DEFAULT_WAIT_SECONDS) / 60)) });
    return { conversationId: row.id, handoff: info, withinHours: status.open, nextOpening: status.nextOpening === null ? null : iso(status.nextOpening), message };
  }

  private async addVisitorMessage(row: ConversationRow, text: string, language: string | null, at: number): Promise<void> {
    await queuedWrite(this.dataSource, () =>
      this.dataSource.transaction(async (m) => {
        await m.query(
          this.sql(`INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at) VALUES ($1, $2, 'user', $3, 'complete', $4, NULL, $5)`),
          [randomUUID(), row.id, text, language, at],
        );
        await m.query(this.sql("UPDATE conversations SET message_count = message_count + 1, updated_at = $2, title = CASE WHEN title = '' THEN $3 ELSE title END WHERE id = $1"), [row.id, at, text.slice(0, 200)]);
      }),
    );
  }

  /**
   * The chat pipeline asks a person for the visitor (words, the unanswered rule, the LLM's
   * request_human tool) in the turn's conversation. Its conversation must be stored (the
   * pipeline stores the question first).
   */
  async requestForTurn(turn: Turn, reason: HandoffReason): Promise<HandoffInfo> {
    const row = await this.requireRow(turn.conversationId);
    const { hours } = await this.settings.get();
    const moved = await this.handToPerson(row, reason, { kind: 'system', name: reason === 'tool' ? 'Assistant (request_human)' : 'Assistant' }, hoursStatus(hours[row.vertical], this.clock.now()).open);
    return this.withQueue(moved);
  }

  /** The unanswered-in-a-row rule's count (0: off). */
  async unansweredRule(): Promise<number> {
    return (await this.settings.get()).rules.unansweredInARow;
  }

  /** Whether the conversation's newest `count` replies (this one, `replyId`, included) all found nothing in the knowledge. */
  async unansweredInARow(conversationId: string, replyId: string, count: number): Promise<boolean> {
    if (count <= 1) return count === 1;
    await this.conversations.writer.flush();
    const rows: { id: string; answered: number | null }[] = await this.dataSource.query(
      this.sql(`SELECT id, answered FROM conversation_messages WHERE conversation_id = $1 AND role IN ('agent', 'human') AND id <> $2 AND status = 'complete' ORDER BY seq DESC LIMIT ${count - 1}`),
      [conversationId, replyId],
    );
    return rows.length === count - 1 && rows.every((r) => r.answered !== null && Number(r.answered) === 0);
  }

  /**
   * Before the assistant answers a visitor message (and again before the provider call and
   * before the reply is stored): quiet while a person has the conversation. After `resolved`,
   * the message goes back to the assistant, or reopens the conversation when the setting says so.
   */
  async holdFor(turn: Pick<Turn, 'conversationId' | 'known'>, transitions = true): Promise<Hold> {
    // A conversation not stored when the turn opened has no handoff yet; the checks later in the
    // turn (transitions off) read it anyway: a person may have been asked for meanwhile.
    if (!turn.known && transitions) return { quiet: false };
    const row = await this.row(turn.conversationId);
    if (!row) return { quiet: false };
    if (row.handoff_state === 'waiting' || row.handoff_state === 'open') return { quiet: true, handoff: await this.withQueue(row) };
    if (row.handoff_state !== 'resolved' || !transitions) return { quiet: false };
    const { rules, hours } = await this.settings.get();
    try {
      if (rules.reopenOnMessage) {
        const moved = await this.handToPerson(row, 'message', { kind: 'system', name: 'Visitor message' }, hoursStatus(hours[row.vertical], this.clock.now()).open);
        return { quiet: true, handoff: await this.withQueue(moved) };
      }
      const moved = await this.transition(row, 'bot', { assignee_id: null, assignee_name: null }, 'The conversation changed meanwhile.');
      await this.record('handoff.return', { kind: 'system', name: 'Visitor message' }, moved, [{ field: 'state', before: 'resolved', after: 'bot' }]);
      await this.announce(moved, 'returned');
    } catch (error) {
      // Another message or member moved it first: what it is now decides.
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      return this.holdFor(turn, false);
    }
    return { quiet: false };
  }

  /** A visitor message kept for the person (the assistant stayed quiet): the inbox is told. */
  visitorMessageHeld(conversationId: string, handoff: HandoffInfo): void {
    this.adminEvents.emit('inbox:changed', { conversationId, state: handoff.state, version: handoff.version, event: 'message' });
  }

  // --- the inbox ------------------------------------------------------------------------------

  private async memberById(id: string): Promise<Member | undefined> {
    const rows: { id: string; name: string; email: string; role: Role; disabled_at: string | number | null }[] = await this.dataSource.query(
      this.sql('SELECT id, name, email, role, disabled_at FROM admin_users WHERE id = $1'),
      [id],
    );
    const m = rows[0];
    if (!m || m.disabled_at !== null) return undefined;
    return { id: m.id, name: m.name, email: m.email, role: m.role };
  }

  /** Take a waiting conversation (or, with `assigneeId`, assign a waiting or open one to that member). */
  async take(member: Member, conversationId: string, options: { version?: number; assigneeId?: string }): Promise<HandoffInfo> {
    const row = await this.requireRow(conversationId);
    if (options.version !== undefined && options.version !== Number(row.handoff_version)) throw new AppError('conflict', 'The conversation changed meanwhile (someone else acted on it). Reload the inbox.');
    let assignee: Member = member;
    if (options.assigneeId !== undefined && options.assigneeId !== member.id) {
      const found = await this.memberById(options.assigneeId);
      if (!found || !ACCESS.conversationsAnswer.includes(found.role)) throw new AppError('not_found', 'That member was not found (or may not answer conversations).');
      assignee = found;
    }
    if (row.handoff_state === 'open' && row.assignee_id === assignee.id) return this.withQueue(row);
    if (row.handoff_state === 'open' && options.assigneeId === undefined) throw new AppError('conflict', `${row.assignee_name || 'Another member'} already took this conversation.`);
    if (row.handoff_state !== 'waiting' && row.handoff_state !== 'open') throw new AppError('conflict', row.handoff_state === 'resolved' ? 'This conversation is resolved.' : 'Nobody asked for a person in this conversation.');
    const moved = await this.transition(row, 'open', { assignee_id: assignee.id, assignee_name: assignee.name.slice(0, 100) || assignee.email }, 'Someone else took this conversation first.');
    const now = this.clock.now();
    if (row.handoff_id) {
      await queuedWrite(this.dataSource, () =>
        this.dataSource.query(this.sql('UPDATE handoffs SET taken_at = COALESCE(taken_at, $2), assignee_id = $3 WHERE id = $1'), [row.handoff_id, now, assignee.id]),
      );
    }
    const assigned = assignee.id !== member.id;
    await this.record(assigned ? 'handoff.assign' : 'handoff.take', memberActor(member), moved, [
      { field: 'state', before: row.handoff_state, after: 'open' },
      { field: 'assignee', before: row.assignee_name, after: moved.assignee_name },
    ]);
    return this.announce(moved, assigned ? 'assigned' : 'taken');
  }

  /** Resolve a waiting or open conversation. */
  async resolve(member: Member, conversationId: string, options: { version?: number }): Promise<HandoffInfo> {
    const row = await this.requireRow(conversationId);
    if (options.version !== undefined && options.version !== Number(row.handoff_version)) throw new AppError('conflict', 'The conversation changed meanwhile (someone else acted on it). Reload the inbox.');
    if (row.handoff_state !== 'waiting' && row.handoff_state !== 'open') throw new AppError('conflict', row.handoff_state === 'resolved' ? 'This conversation is already resolved.' : 'Nobody asked for a person in this conversation.');
    const moved = await this.transition(row, 'resolved', {}, 'The conversation changed meanwhile. Reload the inbox.');
    if (row.handoff_id) {
      await queuedWrite(this.dataSource, () => this.dataSource.query(this.sql('UPDATE handoffs SET resolved_at = $2 WHERE id = $1'), [row.handoff_id, this.clock.now()]));
    }
    await this.record('handoff.resolve', memberActor(member), moved, [{ field: 'state', before: row.handoff_state, after: 'resolved' }]);
    return this.announce(moved, 'resolved');
  }

  /**
   * A member's reply to the visitor (stored, pushed live as `chat:human` to the visitor's sockets
   * on every server, mailed when the visitor left an address and has no page open), or an
   * internal note (stored, shown only in the inbox). A reply to a waiting conversation takes it.
   */
  async postMessage(member: Member, conversationId: string, input: InboxMessageInput): Promise<InboxMessage> {
    let row = await this.requireRow(conversationId);
    if (!input.internal) {
      if (row.handoff_state === 'resolved') throw new AppError('conflict', 'This conversation is resolved: the visitor is back with the assistant.');
      if (row.handoff_state === 'bot') throw new AppError('conflict', 'Nobody asked for a person in this conversation.');
      if (row.handoff_state === 'waiting') {
        await this.take(member, row.id, { version: Number(row.handoff_version) });
        row = (await this.row(row.id))!;
      }
    }
    const now = this.clock.now();
    const id = randomUUID();
    const role = input.internal ? 'note' : 'human';
    const author = member.name.slice(0, 100) || member.email;
    await queuedWrite(this.dataSource, () =>
      this.dataSource.transaction(async (m) => {
        await m.query(
          this.sql(`INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at, author_id, author_name)
                    VALUES ($1, $2, $3, $4, 'complete', $5, NULL, $6, $7, $8)`),
          [id, row.id, role, input.text, row.language, now, member.id, author],
        );
        if (!input.internal) await m.query(this.sql('UPDATE conversations SET message_count = message_count + 1, updated_at = $2 WHERE id = $1'), [row.id, now]);
        if (!input.internal && row.handoff_id) await m.query(this.sql('UPDATE handoffs SET first_reply_at = COALESCE(first_reply_at, $2) WHERE id = $1'), [row.handoff_id, now]);
      }),
    );
    this.conversations.forgetHistory(row.visitor_key, row.vertical, row.scope);
    await this.record(input.internal ? 'handoff.note' : 'handoff.reply', memberActor(member), row, [{ field: 'characters', before: null, after: input.text.length }]);
    const message: HumanMessage = { id, content: input.text, createdAt: iso(now), author: { name: author } };
    if (!input.internal) {
      this.adminEvents.emitToVisitor(row.visitor_key, 'chat:human', { conversationId: row.id, message });
      this.adminEvents.emitToVisitor(row.visitor_key, 'chat:human-typing', { conversationId: row.id, typing: false, author: { name: author } });
      if (row.visitor_email) void this.notifier.humanReplied({ conversationId: row.id, visitorKey: row.visitor_key, to: row.visitor_email, author, text: input.text, language: row.language });
    }
    this.adminEvents.emit('inbox:changed', { conversationId: row.id, state: row.handoff_state as HandoffState, version: Number(row.handoff_version), event: input.internal ? 'note' : 'reply' });
    this.adminEvents.emit('conversation:message', { conversationId: row.id, messageId: id, role: 'agent', vertical: row.vertical, status: 'complete', at: iso(now) });
    return { id, role, content: input.text, createdAt: iso(now), status: 'complete', author: { id: member.id, name: author }, confidence: null, answered: null, sources: [] };
  }

  /** The member is typing (or stopped): the visitor's sockets see it. */
  async typing(member: Member, conversationId: string, typing: boolean): Promise<void> {
    const row = await this.requireRow(conversationId);
    if (row.handoff_state !== 'waiting' && row.handoff_state !== 'open') throw new AppError('conflict', 'Nobody is waiting for a person in this conversation.');
    this.adminEvents.emitToVisitor(row.visitor_key, 'chat:human-typing', { conversationId: row.id, typing, author: { name: member.name.slice(0, 100) || member.email } });
  }

  /** Waiting conversations (longest first) and open ones (the member's own first, then by last activity). */
  async inbox(member: Member): Promise<Inbox> {
    await this.conversations.writer.flush();
    const select = (state: 'waiting' | 'open', order: string) =>
      this.dataSource.query(
        this.sql(`SELECT ${CONVERSATION_COLUMNS}, h.reason, h.question, h.within_hours,
                         (SELECT COUNT(*) FROM conversation_messages u WHERE u.conversation_id = c.id AND u.role = 'user'
                             AND u.seq > COALESCE((SELECT MAX(r.seq) FROM conversation_messages r WHERE r.conversation_id = c.id AND r.role = 'human'), 0)) AS unread
                    FROM conversations c LEFT JOIN handoffs h ON h.id = c.handoff_id
                   WHERE c.handoff_state = '${state}'
                   ORDER BY ${order} LIMIT ${INBOX_LIMIT}`),
        state === 'open' ? [member.id] : [],
      ) as Promise<InboxRow[]>;
    const [waiting, open, wait] = await Promise.all([
      select('waiting', 'c.handoff_requested_at ASC'),
      select('open', `CASE WHEN c.assignee_id = $1 THEN 0 ELSE 1 END, c.updated_at DESC`),
      this.waitPerPlace(),
    ]);
    return {
      waiting: waiting.map((r, i) => this.itemOf(r, handoffInfoOf(r, i + 1, (i + 1) * wait))),
      open: open.map((r) => this.itemOf(r, handoffInfoOf(r))),
    };
  }

  private itemOf(r: InboxRow, handoff: HandoffInfo): InboxItem {
    return {
      conversationId: r.id,
      vertical: r.vertical,
      title: r.title,
      language: r.language,
      handoff,
      reason: r.reason,
      question: r.question,
      visitorEmail: r.visitor_email,
      withinHours: r.within_hours === null || r.within_hours === undefined ? true : Number(r.within_hours) === 1,
      messageCount: Number(r.message_count),
      unread: Number(r.unread ?? 0),
      updatedAt: iso(r.updated_at),
    };
  }

  /** A conversation of the inbox with its transcript (notes included), oldest first. */
  async conversation(conversationId: string): Promise<InboxConversation> {
    await this.conversations.writer.flush();
    if (!/^[0-9a-f-]{36}$/i.test(conversationId)) throw new AppError('not_found', NOT_FOUND);
    const rows: InboxRow[] = await this.dataSource.query(
      this.sql(`SELECT ${CONVERSATION_COLUMNS}, h.reason, h.question, h.within_hours, 0 AS unread
                  FROM conversations c LEFT JOIN handoffs h ON h.id = c.handoff_id WHERE c.id = $1`),
      [conversationId.toLowerCase()],
    );
    const row = rows[0];
    if (!row) throw new AppError('not_found', NOT_FOUND);
    const messages: {
      id: string;
      role: InboxMessage['role'];
      content: string;
      status: string;
      created_at: string | number;
      confidence: number | null;
      answered: number | null;
      reply: string | null;
      author_id: string | null;
      author_name: string | null;
    }[] = await this.dataSource.query(
      this.sql(`SELECT * FROM (SELECT id, role, content, status, created_at, confidence, answered, reply, author_id, author_name, seq
                                 FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT ${TRANSCRIPT_LIMIT}) AS recent ORDER BY seq`),
      [row.id],
    );
    return {
      item: this.itemOf(row, await this.withQueue(row)),
      messages: messages.map((m) => {
        let sources: InboxMessage['sources'] = [];
        if (m.reply) {
          try {
            sources = (JSON.parse(m.reply) as { sources?: InboxMessage['sources'] }).sources ?? [];
          } catch {
            sources = [];
          }
        }
        return {
          id: m.id,
          role: m.role,
          content: m.content,
          createdAt: iso(m.created_at),
          status: m.status,
          author: m.author_id ? { id: m.author_id, name: m.author_name ?? '' } : null,
          confidence: m.confidence === null ? null : Number(m.confidence),
          answered: m.answered === null ? null : Number(m.answered) === 1,
          sources,
        };
      }),
    };
  }
}

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
