/**
 * Visitors' conversations: the chat pipeline's side (load the server's copy of the history before
 * a reply, save the exchange as it happens) and the visitor's (read them back after a reload,
 * "New chat", delete them).
 *
 * - One open conversation per visitor, vertical and scope (for legal the jurisdiction and
 *   sub-region; '' elsewhere). The first question in a scope opens it; "New chat" closes it.
 * - A turn is saved in two writes (ConversationWriter, batched, never on the chat path): the
 *   question and a `streaming` reply once the first frame is out (and, within START_HOLD_MS,
 *   once no reply of this server is waiting for its first frame), then the reply's text, reply
 *   data, timings and status when it ends. Until then the reply's frames live in the reply stream.
 *   The starts and ends of a batch are written by three set-based statements whatever their
 *   number (messages inserted, replies updated, conversations' counters updated); only a turn
 *   whose conversation was not stored yet when it opened is written on its own.
 * - The prompt's history is the server's copy. `conversationHistory` in the request is only used
 *   by a caller that sent no visitor cookie and whose conversation has nothing stored yet (a
 *   stateless API call): it is that caller's own context, and can never replace a stored one.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { newUsageEventId } from '../analytics/usage-event-id';
import { APP_CONFIG, AppConfig, soleServer } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { changedRows, portableSql, readQuery } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import type { EnabledVerticalId } from '../shared/catalog/verticals';
import { findSubRegion, getJurisdiction } from '../shared/catalog/jurisdictions';
import type { ReplyData } from '../shared/contracts/chat';
import {
  VISITOR_MESSAGE_LIMIT,
  type MessageStatus,
  type NewChatRequest,
  type ReplyStatus,
  type VisitorConversation,
  type VisitorMessage,
} from '../shared/contracts/conversations';
import { HANDOFF_STATES, type HandoffInfo } from '../shared/contracts/handoff';
import { ConversationWriter, type WriteGroup, type WriteOp } from './conversation-writer';
import { ConversationsClock } from './conversations-clock';
import { MAX_HISTORY_ENTRIES, trimHistory, type HistoryEntry } from './history';
import { HistoryMirror, type HistoryRow } from './history-mirror';
import { ReplyStreamService } from './reply-streams';
import type { Visitor } from './visitor-identity';

/** Rows read for the history (some may be skipped: empty or failed replies). */
const HISTORY_ROWS = MAX_HISTORY_ENTRIES * 2;
const TITLE_CHARS = 200;
/**
 * How long a turn's start may wait for others to join its batch: replies starting together (a
 * burst) are written by one transaction after their first frames rather than one each among
 * them (each commit also costs the read connections their page cache). A turn's end, and any
 * read of the conversations (which flushes), writes it at once.
 */
const START_DEFER_MS = 50;
/**
 * After that, a start also waits while any reply of this server is still waiting for its first
 * frame (its transaction would compete with those first tokens for the CPU), this long after its
 * own first frame at the latest: the bound on how long a question being answered can be missing
 * from the database. A read of the conversations on this server writes it at once; one on another
 * server (a reload landing there) does not see it within that window, so it stays short: a few
 * times the spread of a burst's first frames (docs/architecture.md has the figures).
 */
export const START_HOLD_MS = 300;
/** A reply waiting longer than this for its first frame no longer holds the starts (one whose pipeline failed before its turn opened is forgotten too). */
const FIRST_FRAME_WAIT_MS = 10_000;
/** Open conversations the chat page gets back (one per vertical and legal jurisdiction). */
const VISITOR_CONVERSATION_LIMIT = 50;


/** What a chat turn is about: the vertical and, for legal, the jurisdiction. */
export interface TurnScope {
  vertical: EnabledVerticalId;
  jurisdiction?: { code: string; subRegion?: string };
}

/** A turn of a conversation: the question and its reply, from start to end. */
export interface Turn {
  replyId: string;
  userMessageId: string;
  requestId: string;
  visitorKey: string;
  conversationId: string;
  vertical: string;
  scope: string;
  jurisdiction: string | null;
  subJurisdiction: string | null;
  channel: string;
  language: string;
  question: string;
  startedAt: number;
  /** The server's copy of the conversation before this question, oldest first (for the prompt). */
  history: HistoryEntry[];
  /** Nothing is stored yet in this conversation (a new one). */
  fresh: boolean;
  /** The conversation's row was read from the database when the turn opened (it is stored). */
  known: boolean;
  /** The question and the streaming reply were handed to the writer. */
  saved: boolean;
  /** "New chat" was pressed while the turn ran: if the turn opens the conversation, it opens it closed. */
  closedAt?: number;
  /** The visitor deleted their conversations while the turn ran: nothing more is written. */
  deleted?: boolean;
  /** How the reply ended (once it has). */
  outcome?: TurnOutcome;
  /** Asked again after a takeover: the server that stopped may have stored the question and the streaming reply. */
  resumed?: boolean;
}

/** How a reply ended, as the message stores it. */
export interface TurnOutcome {
  status: Exclude<MessageStatus, 'streaming'>;
  text: string;
  data?: ReplyData;
  answered?: boolean;
  confidence?: number;
  agentId?: string;
  provider?: string;
  model?: string;
  executionMs: number;
  ttftMs: number | null;
  error?: { code: string; message: string };
}

/** A vote on a stored reply, with the question it answered. */
export interface StoredVote {
  replyId: string;
  conversationId: string;
  vertical: string;
  question: string;
  /** When the question was asked (epoch ms). */
  askedAt: number;
  vote: 'up' | 'down' | null;
  previous: 'up' | 'down' | null;
}

interface ConversationRow extends HandoffColumns {
  id: string;
  vertical: string;
  jurisdiction: string | null;
  sub_jurisdiction: string | null;
  language: string | null;
  created_at: string | number;
  updated_at: string | number;
  queue_position: string | number | null;
}

/** A conversation's handoff columns, as read with raw SQL. */
export interface HandoffColumns {
  handoff_state: string;
  handoff_version: string | number;
  assignee_id: string | null;
  assignee_name: string | null;
  handoff_requested_at: string | number | null;
}

/** The columns' HandoffInfo (queue position and wait as given: only a waiting conversation has them). */
export function handoffInfoOf(row: HandoffColumns, queuePosition: number | null = null, expectedWaitSeconds: number | null = null): HandoffInfo {
  const state = (HANDOFF_STATES as readonly string[]).includes(row.handoff_state) ? (row.handoff_state as HandoffInfo['state']) : 'bot';
  return {
    state,
    version: Number(row.handoff_version ?? 0),
    assignee: row.assignee_id ? { id: row.assignee_id, name: row.assignee_name ?? '' } : null,
    requestedAt: row.handoff_requested_at === null || row.handoff_requested_at === undefined || state === 'bot' ? null : new Date(Number(row.handoff_requested_at)).toISOString(),
    queuePosition: state === 'waiting' ? queuePosition : null,
    expectedWaitSeconds: state === 'waiting' ? expectedWaitSeconds : null,
  };
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: 'user' | 'agent' | 'human' | 'note';
  content: string;
  status: MessageStatus;
  language: string | null;
  request_id: string | null;
  created_at: string | number;
  confidence: number | null;
  answered: number | null;
  feedback: 'up' | 'down' | null;
  reply: string | null;
  agent_id: string | null;
  provider: string | null;
  model: string | null;
  execution_ms: string | number | null;
  ttft_ms: string | number | null;
  error_code: string | null;
  error_message: string | null;
  author_name: string | null;
}

export const MESSAGE_COLUMNS =
  'id, conversation_id, role, content, status, language, request_id, created_at, confidence, answered, feedback, reply, agent_id, provider, model, execution_ms, ttft_ms, error_code, error_message, author_name';

/** A turn's start or end, as queued for the writer (written with the others of its batch: writeTurns). */
type TurnWrite = { kind: 'start'; turn: Turn } | { kind: 'end'; turn: Turn; outcome: TurnOutcome; at: number };
interface TurnWriteOp extends WriteOp {
  write: TurnWrite;
}

const scopeKeyOf = (visitorKey: string, vertical: string, scope: string): string => `${visitorKey}\u0000${vertical}\u0000${scope}`;

export function scopeOf(scope: TurnScope): string {
  if (scope.vertical !== 'legal' || !scope.jurisdiction) return '';
  return scope.jurisdiction.subRegion ? `${scope.jurisdiction.code}/${scope.jurisdiction.subRegion}` : scope.jurisdiction.code;
}

/** The scope's jurisdiction as a chat names it: the catalog's code and sub-region spelling ("gb", "sct" -> UK/Scotland). */
export function jurisdictionScopeOf(code: string | undefined, subRegion: string | undefined): TurnScope['jurisdiction'] {
  if (!code) return undefined;
  const known = getJurisdiction(code);
  if (!known) return { code: code.toUpperCase(), subRegion };
  return { code: known.code, subRegion: findSubRegion(known, subRegion) ?? subRegion };
}

const iso = (ms: string | number) => new Date(Number(ms)).toISOString();
/** Rows as one array per column (Postgres unnest parameters). */
const columnsOf = (rows: unknown[][], width: number): unknown[][] => Array.from({ length: width }, (_, i) => rows.map((row) => row[i]));
const numberOrNull = (v: string | number | null) => (v === null || v === undefined ? null : Number(v));

/** The reply data a stored reply carries (its text is the message's content). */
export function replyDataOf(row: Pick<MessageRow, 'reply' | 'content' | 'id'>): ReplyData | null {
  if (!row.reply) return null;
  try {
    return { ...(JSON.parse(row.reply) as Omit<ReplyData, 'response'>), response: row.content, replyId: row.id };
  } catch {
    return null;
  }
}

/** The values of a reply's end, in the order of conversation_messages' end columns (id first). */
function endRowOf(turn: Turn, outcome: TurnOutcome): unknown[] {
  return [
    turn.replyId,
    outcome.text,
    outcome.status,
    outcome.confidence ?? null,
    outcome.answered === undefined ? null : outcome.answered ? 1 : 0,
    outcome.data ? JSON.stringify({ ...outcome.data, response: undefined }) : null,
    outcome.agentId ?? null,
    outcome.provider ?? null,
    outcome.model ?? null,
    outcome.executionMs,
    outcome.ttftMs,
    outcome.error?.code ?? null,
    outcome.error ? outcome.error.message.slice(0, 500) : null,
  ];
}

@Injectable()
export class ConversationsService implements OnApplicationShutdown {
  private readonly logger = new Logger('Conversations');
  readonly writer: ConversationWriter;
  /** Turns of this server not yet fully written, by reply id (New chat and delete reach them). */
  private readonly turns = new Map<string, Turn>();
  /** The same turns by visitor, vertical and scope (openTurn looks up a conversation's queued turns there). */
  private readonly turnsByScope = new Map<string, Set<Turn>>();
  /** Replies of this server still waiting for their first frame: reply id -> when the turn began opening (performance.now()). */
  private readonly awaitingFirstFrame = new Map<string, number>();
  private readonly writtenListeners = new Set<(turn: Turn, outcome: TurnOutcome) => void>();
  private readonly voteListeners = new Set<(vote: StoredVote) => void>();
  private readonly deletedListeners = new Set<(replyIds: string[]) => Promise<void>>();
  /** The embedded mode's conversations history in memory (this server writes all of it): openTurn reads no statement. */
  private readonly mirror: HistoryMirror | undefined;
  /** The turns' starts and ends of a batch, written together (writeTurns). */
  private readonly turnWrites: WriteGroup = { runAll: (m, ops) => this.writeTurns(m, ops.map((op) => (op as TurnWriteOp).write)) };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly streams: ReplyStreamService,
    private readonly adminEvents: AdminEventsService,
    private readonly clock: ConversationsClock,
  ) {
    this.writer = new ConversationWriter(dataSource, () => this.firstFramesAwaited());
    this.mirror = soleServer(config) && !streams.distributed ? new HistoryMirror(HISTORY_ROWS) : undefined;
    streams.onVisitorGone((visitorKey) => this.forgetVisitorTurns(visitorKey));
    streams.onScopeClosed((visitorKey, vertical, scope, at) => this.closeTurns(visitorKey, vertical, scope, at));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.writer.close();
  }

  private sql(text: string): string {
    return portableSql(this.dataSource, text);
  }

  /** Called after a turn's end is stored (knowledge gaps hook in here). */
  onTurnWritten(listener: (turn: Turn, outcome: TurnOutcome) => void): () => void {
    this.writtenListeners.add(listener);
    return () => this.writtenListeners.delete(listener);
  }

  /** Called with the reply ids of conversations a visitor deleted (knowledge gaps forget their wording). */
  onVisitorDeleted(listener: (replyIds: string[]) => Promise<void>): () => void {
    this.deletedListeners.add(listener);
    return () => this.deletedListeners.delete(listener);
  }

  /** Called after a visitor's vote on a stored reply is stored (knowledge gaps hook in here). */
  onVote(listener: (vote: StoredVote) => void): () => void {
    this.voteListeners.add(listener);
    return () => this.voteListeners.delete(listener);
  }

  /**
   * The visitor key of the conversation a reply belongs to: only that visitor may rate it. A turn
   * this server has not written yet (the database was slow when the reply ended) answers from
   * memory; otherwise the stored message says. Undefined for an unknown or deleted reply.
   */
  async replyOwner(replyId: string): Promise<string | undefined> {
    const pending = this.turns.get(replyId);
    if (pending) return pending.deleted ? undefined : pending.visitorKey;
    const rows: { visitor_key: string }[] = await readQuery(
      this.dataSource,
      this.sql(`SELECT c.visitor_key FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
                 WHERE m.id = $1 AND m.role = 'agent'`),
      [replyId],
    );
    return rows[0]?.visitor_key;
  }

  /**
   * The visitor's vote on a reply, kept on its message and in its conversation's counters (the
   * console's feedback filter; the chat page shows it again after a reload). Queued behind this
   * server's pending writes of the reply itself. A reply that is in no conversation (deleted)
   * changes nothing.
   */
  async recordVote(replyId: string, vote: 'up' | 'down' | null): Promise<void> {
    let stored: StoredVote | undefined;
    await this.writer.enqueue({
      run: async (m) => {
        stored = undefined;
        const sql = (text: string) => this.sql(text);
        const rows: { conversation_id: string; feedback: 'up' | 'down' | null; seq: string | number; created_at: string | number; vertical: string }[] = await m.query(
          sql(`SELECT m.conversation_id, m.feedback, m.seq, m.created_at, c.vertical
                 FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
                WHERE m.id = $1 AND m.role = 'agent'`),
          [replyId],
        );
        const reply = rows[0];
        if (!reply) return;
        const previous = reply.feedback;
        if (previous !== vote) {
          const delta = (which: 'up' | 'down') => (vote === which ? 1 : 0) - (previous === which ? 1 : 0);
          await m.query(sql('UPDATE conversation_messages SET feedback = $2 WHERE id = $1'), [replyId, vote]);
          await m.query(sql('UPDATE conversations SET up_votes = up_votes + $2, down_votes = down_votes + $3 WHERE id = $1'), [reply.conversation_id, delta('up'), delta('down')]);
        }
        const question: { content: string }[] = await m.query(
          sql(`SELECT content FROM conversation_messages WHERE conversation_id = $1 AND role = 'user' AND seq < $2 ORDER BY seq DESC LIMIT 1`),
          [reply.conversation_id, reply.seq],
        );
        stored = {
          replyId,
          conversationId: reply.conversation_id,
          vertical: reply.vertical,
          question: question[0]?.content ?? '',
          askedAt: Number(reply.created_at),
          vote,
          previous,
        };
      },
    });
    if (!stored) return;
    for (const listener of this.voteListeners) listener(stored);
  }

  // --- the chat pipeline ------------------------------------------------------------------------

  /**
   * Starts a turn: finds the visitor's open conversation of the scope (or names a new one) and
   * reads its newest messages for the prompt. One indexed query; the pipeline runs it alongside
   * retrieval.
   */
  async openTurn(
    visitor: Visitor,
    scope: TurnScope,
    ids: {
      replyId: string;
      requestId: string;
      channel: string;
      language: string;
      question: string;
      claimedHistory: HistoryEntry[];
      userMessageId?: string;
      startedAt?: number;
      /** Asked again after a takeover: this turn's own messages may be stored already (they are not history). */
      resumed?: boolean;
    },
  ): Promise<Turn> {
    const key = scopeOf(scope);
    this.awaitingFirstFrame.set(ids.replyId, performance.now());
    const byScope = scopeKeyOf(visitor.key, scope.vertical, key);
    const read = () =>
      readQuery<HistoryRow[]>(
        this.dataSource,
        this.sql(`SELECT c.id AS cid, m.id, m.role, m.content, m.status
                    FROM conversations c LEFT JOIN conversation_messages m ON m.conversation_id = c.id AND m.role <> 'note'
                   WHERE c.visitor_key = $1 AND c.vertical = $2 AND c.scope = $3 AND c.closed_at IS NULL
                   ORDER BY m.seq DESC
                   LIMIT ${HISTORY_ROWS}`),
        [visitor.key, scope.vertical, key],
      );
    const rows: HistoryRow[] =
      this.mirror?.get(byScope) ??
      (await (this.mirror ? this.mirror.read(byScope, visitor.key, read) : read()).catch((error: unknown) => {
        this.firstFrameOut(ids.replyId);
        throw error;
      }));
    const own = new Set(ids.resumed && ids.userMessageId ? [ids.userMessageId, ids.replyId] : []);
    const stored = rows
      .filter((r) => r.role !== null && !own.has(r.id ?? ''))
      .reverse()
      .map((r) => {
        // A reply of this server that ended but whose end is still queued: its outcome, not the stored 'streaming'.
        const ended = r.status === 'streaming' ? this.turns.get(r.id ?? '')?.outcome : undefined;
        return { id: r.id ?? '', role: r.role!, content: ended?.text ?? r.content ?? '', status: ended?.status ?? r.status ?? '' };
      });
    // Turns of this conversation that ended here but whose writes are still queued.
    const storedIds = new Set(stored.map((r) => r.id));
    const pending = [...(this.turnsByScope.get(byScope) ?? [])].filter(
      (p) => p.closedAt === undefined && !p.deleted && !storedIds.has(p.userMessageId),
    );
    for (const p of pending.sort((a, b) => a.startedAt - b.startedAt)) {
      stored.push({ id: p.userMessageId, role: 'user', content: p.question, status: 'complete' });
      stored.push({ id: p.replyId, role: 'agent', content: p.outcome?.text ?? '', status: p.outcome?.status ?? 'streaming' });
    }
    const fresh = stored.length === 0;
    const history =
      fresh && !visitor.returning
        ? ids.claimedHistory
        : trimHistory(
            stored
              .filter((r) => r.status !== 'streaming' && r.status !== 'error' && r.content.trim() !== '')
              .map((r) => ({ role: r.role === 'user' ? ('user' as const) : ('assistant' as const), content: r.content })),
          );
    const turn: Turn = {
      replyId: ids.replyId,
      userMessageId: ids.userMessageId ?? newUsageEventId(),
      requestId: ids.requestId,
      visitorKey: visitor.key,
      conversationId: rows[0]?.cid ?? pending[0]?.conversationId ?? newUsageEventId(),
      vertical: scope.vertical,
      scope: key,
      jurisdiction: scope.vertical === 'legal' ? (scope.jurisdiction?.code ?? null) : null,
      subJurisdiction: scope.vertical === 'legal' ? (scope.jurisdiction?.subRegion ?? null) : null,
      channel: ids.channel,
      language: ids.language,
      question: ids.question,
      startedAt: ids.resumed && ids.startedAt !== undefined ? ids.startedAt : this.clock.now(),
      history,
      fresh,
      known: rows.length > 0,
      saved: false,
      ...(ids.resumed ? { resumed: true } : {}),
    };
    this.turns.set(turn.replyId, turn);
    let same = this.turnsByScope.get(byScope);
    if (!same) this.turnsByScope.set(byScope, (same = new Set()));
    same.add(turn);
    return turn;
  }

  /** A turn another server took over (it writes the turn): nothing more of it is written from here. */
  dropTurn(turn: Turn): void {
    this.forgetTurn(turn);
    this.mirror?.forget(scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope));
  }

  /** The question and the streaming reply, stored (batched) once the reply's first frame is out. */
  saveStart(turn: Turn): void {
    if (turn.saved) return;
    turn.saved = true;
    this.firstFrameOut(turn.replyId);
    let stored = false;
    const written = this.writer.enqueue({
      skip: () => turn.deleted === true,
      run: (m) => this.writeStart(m, turn),
      group: this.turnWrites,
      write: { kind: 'start', turn },
      written: () => {
        stored = true;
        this.mirrorStored(turn);
        this.adminEvents.emit('conversation:message', {
          conversationId: turn.conversationId,
          messageId: turn.userMessageId,
          role: 'user',
          vertical: turn.vertical,
          status: 'complete',
          at: new Date(turn.startedAt).toISOString(),
        });
      },
    } satisfies TurnWriteOp as WriteOp, START_DEFER_MS, START_HOLD_MS);
    // Skipped (the conversation was deleted) or given up: what the database holds is not known here.
    void written.then(() => {
      if (!stored) this.mirror?.forget(scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope));
    });
  }

  /**
   * A question the assistant does not answer (the conversation is handed to a person): only the
   * visitor's message is stored, at once (the inbox shows it). Resolves once stored.
   */
  async saveQuestionOnly(turn: Turn): Promise<void> {
    turn.saved = true;
    this.firstFrameOut(turn.replyId);
    let stored = false;
    await this.writer.enqueue({
      skip: () => turn.deleted === true,
      run: async (m) => {
        if (!turn.known) await this.ensureConversation(m, turn);
        await m.query(
          this.sql(`INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
                    VALUES ($1, $2, 'user', $3, 'complete', $4, $5, $6)`),
          [turn.userMessageId, turn.conversationId, turn.question, turn.language, turn.requestId, turn.startedAt],
        );
        await m.query(this.sql('UPDATE conversations SET message_count = message_count + 1, updated_at = $2, language = $3 WHERE id = $1'), [turn.conversationId, turn.startedAt, turn.language]);
      },
      written: () => {
        stored = true;
        this.adminEvents.emit('conversation:message', {
          conversationId: turn.conversationId,
          messageId: turn.userMessageId,
          role: 'user',
          vertical: turn.vertical,
          status: 'complete',
          at: new Date(turn.startedAt).toISOString(),
        });
      },
    });
    this.forgetTurn(turn);
    this.mirror?.forget(scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope));
    if (!stored && !turn.deleted) this.logger.warn(`A question for a person in conversation ${turn.conversationId} could not be stored`);
  }

  /** The conversation's messages changed outside a chat turn (a member's reply): the history in memory is read again. */
  forgetHistory(visitorKey: string, vertical: string, scope: string): void {
    this.mirror?.forget(scopeKeyOf(visitorKey, vertical, scope));
  }

  /** The reply's first frame is out (or it ended, or was dropped, without one): it holds the starts no longer. */
  private firstFrameOut(replyId: string): void {
    if (!this.awaitingFirstFrame.delete(replyId)) return;
    if (this.awaitingFirstFrame.size === 0) this.writer.release();
  }

  /** Whether a reply of this server is still waiting for its first frame (the writer holds starts meanwhile). */
  private firstFramesAwaited(): boolean {
    const stale = performance.now() - FIRST_FRAME_WAIT_MS;
    for (const [replyId, since] of this.awaitingFirstFrame) {
      if (since >= stale) return true;
      this.awaitingFirstFrame.delete(replyId);
    }
    return false;
  }

  /**
   * The reply's end, stored (batched): its text, data, timings and status. Resolves once stored,
   * or after `waitMs` at the latest (the database is slow or away: the write stays queued).
   */
  saveEnd(turn: Turn, outcome: TurnOutcome, waitMs = 0): Promise<void> {
    this.saveStart(turn);
    turn.outcome = outcome;
    const at = this.clock.now();
    let stored = false;
    const written = this.writer.enqueue({
      skip: () => turn.deleted === true,
      run: (m) => this.writeEnd(m, turn, outcome, at),
      group: this.turnWrites,
      write: { kind: 'end', turn, outcome, at },
      written: () => {
        stored = true;
        this.forgetTurn(turn);
        this.mirrorStored(turn, outcome);
        this.adminEvents.emit('conversation:message', {
          conversationId: turn.conversationId,
          messageId: turn.replyId,
          role: 'agent',
          vertical: turn.vertical,
          status: outcome.status,
          at: new Date(at).toISOString(),
        });
        for (const listener of this.writtenListeners) listener(turn, outcome);
      },
    } satisfies TurnWriteOp as WriteOp);
    // Also once skipped (the conversation was deleted) or given up: nothing of it is queued any more.
    void written.then(() => {
      this.forgetTurn(turn);
      if (!stored) this.mirror?.forget(scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope));
    });
    if (waitMs <= 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
    return Promise.race([written, late]).finally(() => clearTimeout(timer));
  }

  /** A turn's start, or its end with `outcome`, is stored: the history in memory takes it in (or forgets its scope when that conversation is not the open one). */
  private mirrorStored(turn: Turn, outcome?: TurnOutcome): void {
    if (!this.mirror) return;
    const byScope = scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope);
    // Starts of one batch are stored in queue order, except that those written alone go first:
    // with another turn of the scope under way, the order is not known here.
    const concurrent = (this.turnsByScope.get(byScope)?.size ?? 0) > 1;
    if (turn.closedAt !== undefined || turn.deleted || turn.resumed || (!outcome && concurrent)) this.mirror.forget(byScope);
    else if (outcome) this.mirror.ended(byScope, turn.replyId, outcome);
    else this.mirror.started(byScope, turn);
  }

  /** The conversations were purged (retention): the history in memory is read again. */
  forgetHistories(): void {
    this.mirror?.clear();
  }

  /**
   * A batch's turn starts and ends, in queue order: a start whose conversation was not stored
   * when the turn opened (or that was taken over from a stopped server) is written on its own (writeStart: it opens the conversation, or joins
   * the one another server opened meanwhile); the others' messages go in with one INSERT, the
   * ends with one UPDATE, and each conversation's counters, last activity, language and title
   * with one UPDATE for all (the values the writes one by one would leave). A conversation
   * deleted meanwhile by another server fails the INSERT: the batch is then written op by op.
   */
  private async writeTurns(m: EntityManager, writes: TurnWrite[]): Promise<void> {
    // Also alone: a turn asked again after a takeover (the stopped server may have stored its messages).
    const alone = (turn: Turn) => !turn.known || turn.resumed === true;
    for (const w of writes) if (w.kind === 'start' && alone(w.turn)) await this.writeStart(m, w.turn);
    const inserted: unknown[][] = [];
    const ended = new Map<string, unknown[]>();
    const counters = new Map<string, { messages: number; unanswered: number; at: number; language: string | null; title: string | null }>();
    const countersOf = (id: string) => {
      let c = counters.get(id);
      if (!c) counters.set(id, (c = { messages: 0, unanswered: 0, at: 0, language: null, title: null }));
      return c;
    };
    for (const w of writes) {
      const { turn } = w;
      if (w.kind === 'start') {
        if (alone(turn)) continue;
        inserted.push([turn.userMessageId, turn.conversationId, 'user', turn.question, 'complete', turn.language, null, turn.startedAt]);
        inserted.push([turn.replyId, turn.conversationId, 'agent', '', 'streaming', turn.language, turn.requestId, turn.startedAt]);
        const c = countersOf(turn.conversationId);
        c.messages += 2;
        c.at = turn.startedAt;
        c.language = turn.language;
        c.title ??= turn.question.slice(0, TITLE_CHARS);
      } else {
        const { outcome } = w;
        // A reply ended twice keeps its last end, as the writes one by one would.
        ended.delete(turn.replyId);
        ended.set(turn.replyId, endRowOf(turn, outcome));
        const c = countersOf(turn.conversationId);
        c.unanswered += outcome.status === 'complete' && outcome.answered === false ? 1 : 0;
        c.at = w.at;
      }
    }
    const sqlite = dialectOf(this.dataSource) === 'sqlite';
    if (inserted.length > 0) {
      await m.query(
        sqlite
          ? `INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
             SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7 FROM json_each(?) ORDER BY key`
          : `INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
             SELECT id, conversation_id, role, content, status, language, request_id, created_at
               FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::text[], $5::varchar[], $6::varchar[], $7::varchar[], $8::bigint[])
                    WITH ORDINALITY AS j(id, conversation_id, role, content, status, language, request_id, created_at, n)
              ORDER BY n`,
        sqlite ? [JSON.stringify(inserted)] : columnsOf(inserted, 8),
      );
    }
    if (ended.size > 0) {
      const rows = [...ended.values()];
      await m.query(
        sqlite
          ? `UPDATE conversation_messages
                SET content = j.content, status = j.status, confidence = j.confidence, answered = j.answered, reply = j.reply, agent_id = j.agent_id,
                    provider = j.provider, model = j.model, execution_ms = j.execution_ms, ttft_ms = j.ttft_ms, error_code = j.error_code, error_message = j.error_message
               FROM (SELECT value ->> 0 AS mid, value ->> 1 AS content, value ->> 2 AS status, value ->> 3 AS confidence, value ->> 4 AS answered,
                            value ->> 5 AS reply, value ->> 6 AS agent_id, value ->> 7 AS provider, value ->> 8 AS model, value ->> 9 AS execution_ms,
                            value ->> 10 AS ttft_ms, value ->> 11 AS error_code, value ->> 12 AS error_message FROM json_each(?)) AS j
              WHERE conversation_messages.id = j.mid`
          : `UPDATE conversation_messages AS m
                SET content = j.content, status = j.status, confidence = j.confidence, answered = j.answered, reply = j.reply, agent_id = j.agent_id,
                    provider = j.provider, model = j.model, execution_ms = j.execution_ms, ttft_ms = j.ttft_ms, error_code = j.error_code, error_message = j.error_message
               FROM unnest($1::varchar[], $2::text[], $3::varchar[], $4::float8[], $5::smallint[], $6::text[], $7::varchar[], $8::varchar[], $9::varchar[],
                           $10::bigint[], $11::bigint[], $12::varchar[], $13::varchar[])
                    AS j(id, content, status, confidence, answered, reply, agent_id, provider, model, execution_ms, ttft_ms, error_code, error_message)
              WHERE m.id = j.id`,
        sqlite ? [JSON.stringify(rows)] : columnsOf(rows, 13),
      );
    }
    if (counters.size > 0) {
      const rows = [...counters].map(([id, c]) => [id, c.messages, c.unanswered, c.at, c.language, c.title]);
      await m.query(
        sqlite
          ? `UPDATE conversations
                SET message_count = conversations.message_count + j.messages, unanswered_count = conversations.unanswered_count + j.unanswered, updated_at = j.at,
                    language = COALESCE(j.lang, conversations.language),
                    title = CASE WHEN conversations.title = '' AND j.heading IS NOT NULL THEN j.heading ELSE conversations.title END
               FROM (SELECT value ->> 0 AS cid, value ->> 1 AS messages, value ->> 2 AS unanswered, value ->> 3 AS at, value ->> 4 AS lang, value ->> 5 AS heading
                       FROM json_each(?)) AS j
              WHERE conversations.id = j.cid`
          : `UPDATE conversations AS c
                SET message_count = c.message_count + j.messages, unanswered_count = c.unanswered_count + j.unanswered, updated_at = j.at,
                    language = COALESCE(j.language, c.language), title = CASE WHEN c.title = '' AND j.title IS NOT NULL THEN j.title ELSE c.title END
               FROM unnest($1::varchar[], $2::int[], $3::int[], $4::bigint[], $5::varchar[], $6::varchar[]) AS j(id, messages, unanswered, at, language, title)
              WHERE c.id = j.id`,
        sqlite ? [JSON.stringify(rows)] : columnsOf(rows, 6),
      );
    }
  }

  private async writeStart(m: EntityManager, turn: Turn): Promise<void> {
    const sql = (text: string) => this.sql(text);
    if (turn.resumed) {
      // The stopped server stored them already: they stay (in their conversation) and count once.
      const mine: { conversation_id: string }[] = await m.query(sql('SELECT conversation_id FROM conversation_messages WHERE id = $1 OR id = $2'), [turn.userMessageId, turn.replyId]);
      if (mine.length > 0) {
        turn.conversationId = mine[0].conversation_id;
        return;
      }
    }
    await this.ensureConversation(m, turn);
    await m.query(
      sql(`INSERT INTO conversation_messages (id, conversation_id, role, content, status, language, request_id, created_at)
           VALUES ($1, $2, 'user', $3, 'complete', $4, NULL, $5), ($6, $2, 'agent', '', 'streaming', $4, $7, $5)`),
      [turn.userMessageId, turn.conversationId, turn.question, turn.language, turn.startedAt, turn.replyId, turn.requestId],
    );
    await m.query(
      sql(`UPDATE conversations
              SET message_count = message_count + 2, updated_at = $2, language = $3,
                  title = CASE WHEN title = '' THEN $4 ELSE title END
            WHERE id = $1`),
      [turn.conversationId, turn.startedAt, turn.language, turn.question.slice(0, TITLE_CHARS)],
    );
  }

  /** Stores the turn's conversation if it is not stored yet (or joins the scope's open one another server stored first). */
  private async ensureConversation(m: EntityManager, turn: Turn): Promise<void> {
    const sql = (text: string) => this.sql(text);
    const existing: { id: string }[] = await m.query(sql('SELECT id FROM conversations WHERE id = $1'), [turn.conversationId]);
    if (existing.length === 0) {
      await m.query(
        sql(`INSERT INTO conversations (id, visitor_key, vertical, scope, jurisdiction, sub_jurisdiction, language, channel, title,
                                        message_count, unanswered_count, up_votes, down_votes, created_at, updated_at, closed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, 0, 0, 0, $10, $10, $11)
             ON CONFLICT DO NOTHING`),
        [turn.conversationId, turn.visitorKey, turn.vertical, turn.scope, turn.jurisdiction, turn.subJurisdiction, turn.language, turn.channel, turn.question.slice(0, TITLE_CHARS), turn.startedAt, turn.closedAt ?? null],
      );
      // Another server opened this scope's conversation first: the turn joins it.
      const open: { id: string }[] = await m.query(
        sql(`SELECT id FROM conversations WHERE id = $1
             UNION ALL
             SELECT id FROM conversations WHERE visitor_key = $2 AND vertical = $3 AND scope = $4 AND closed_at IS NULL`),
        [turn.conversationId, turn.visitorKey, turn.vertical, turn.scope],
      );
      if (open[0]) turn.conversationId = open[0].id;
    }
  }

  private async writeEnd(m: EntityManager, turn: Turn, outcome: TurnOutcome, at: number): Promise<void> {
    await m.query(
      this.sql(`UPDATE conversation_messages
                   SET content = $2, status = $3, confidence = $4, answered = $5, reply = $6, agent_id = $7, provider = $8, model = $9,
                       execution_ms = $10, ttft_ms = $11, error_code = $12, error_message = $13
                 WHERE id = $1`),
      endRowOf(turn, outcome),
    );
    await m.query(
      this.sql('UPDATE conversations SET unanswered_count = unanswered_count + $2, updated_at = $3 WHERE id = $1'),
      [turn.conversationId, outcome.status === 'complete' && outcome.answered === false ? 1 : 0, at],
    );
  }

  /**
   * Conversations with a message between `from` and `to` (epoch ms) and their messages, all of
   * them (Analytics: conversations and messages per conversation). Reads the conversations' own
   * counters through the updated_at index.
   */
  async activity(from: number, to: number): Promise<{ conversations: number; messages: number }> {
    const rows: { n: string | number; messages: string | number | null }[] = await this.dataSource.query(
      this.sql('SELECT COUNT(*) AS n, SUM(message_count) AS messages FROM conversations WHERE updated_at >= $1 AND updated_at <= $2'),
      [from, to],
    );
    return { conversations: Number(rows[0]?.n ?? 0), messages: Number(rows[0]?.messages ?? 0) };
  }

  // --- the visitor ------------------------------------------------------------------------------

  /** The visitor's open conversations with their newest messages (the chat page after a reload). */
  async listForVisitor(visitorKey: string): Promise<VisitorConversation[]> {
    await this.writer.flush();
    const conversations: ConversationRow[] = await this.dataSource.query(
      this.sql(`SELECT c.id, c.vertical, c.jurisdiction, c.sub_jurisdiction, c.language, c.created_at, c.updated_at,
                       c.handoff_state, c.handoff_version, c.assignee_id, c.assignee_name, c.handoff_requested_at,
                       CASE WHEN c.handoff_state = 'waiting' THEN
                         (SELECT COUNT(*) FROM conversations w WHERE w.handoff_state = 'waiting' AND w.handoff_requested_at <= c.handoff_requested_at)
                       END AS queue_position
                  FROM conversations c WHERE c.visitor_key = $1 AND c.closed_at IS NULL
                 ORDER BY c.updated_at DESC LIMIT ${VISITOR_CONVERSATION_LIMIT}`),
      [visitorKey],
    );
    if (conversations.length === 0) return [];
    const ids = conversations.map((c) => c.id);
    const messages: (MessageRow & { rn: string | number; total: string | number })[] = await this.dataSource.query(
      this.sql(`SELECT * FROM (
                  SELECT ${MESSAGE_COLUMNS}, seq,
                         ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY seq DESC) AS rn,
                         COUNT(*) OVER (PARTITION BY conversation_id) AS total
                    FROM conversation_messages WHERE conversation_id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')}) AND role <> 'note'
                ) AS recent
                WHERE rn <= ${VISITOR_MESSAGE_LIMIT}
                ORDER BY conversation_id, seq`),
      ids,
    );
    const byConversation = new Map<string, typeof messages>();
    for (const m of messages) {
      let list = byConversation.get(m.conversation_id);
      if (!list) byConversation.set(m.conversation_id, (list = []));
      list.push(m);
    }
    return conversations.map((c) => {
      const rows = byConversation.get(c.id) ?? [];
      return {
        id: c.id,
        vertical: c.vertical as VisitorConversation['vertical'],
        jurisdiction: c.jurisdiction,
        subJurisdiction: c.sub_jurisdiction,
        language: c.language,
        createdAt: iso(c.created_at),
        updatedAt: iso(c.updated_at),
        messages: rows.map((row) => this.visitorMessage(row)),
        truncated: rows.length > 0 && Number(rows[0].total) > rows.length,
        handoff: handoffInfoOf(c, c.queue_position === null || c.queue_position === undefined ? null : Number(c.queue_position)),
      };
    });
  }

  /** "New chat": the scope's open conversation is closed; the next question opens another. */
  async newChat(visitorKey: string, request: NewChatRequest): Promise<number> {
    const scope = scopeOf({
      vertical: request.vertical,
      jurisdiction: jurisdictionScopeOf(request.jurisdiction, request.subJurisdiction),
    });
    // What is queued is written first (and then closed below); turns still running open their
    // conversation closed, here and on the other servers.
    await this.writer.flush();
    const at = this.clock.now();
    this.closeTurns(visitorKey, request.vertical, scope, at);
    await this.streams.announceScopeClosed(visitorKey, request.vertical, scope, at);
    const byScope = scopeKeyOf(visitorKey, request.vertical, scope);
    this.mirror?.forget(byScope);
    try {
      return await queuedWrite(this.dataSource, () =>
        changedRows(
          this.dataSource,
          'UPDATE conversations SET closed_at = $4 WHERE visitor_key = $1 AND vertical = $2 AND scope = $3 AND closed_at IS NULL',
          [visitorKey, request.vertical, scope, at],
        ),
      );
    } finally {
      this.mirror?.forget(byScope);
    }
  }

  /** Deletes the visitor's conversations (all, or one): running replies stop, nothing of them stays. */
  async deleteForVisitor(visitorKey: string, conversationId?: string): Promise<number> {
    if (conversationId === undefined) {
      // Every server stops the visitor's replies and drops their streams and queued writes.
      await this.streams.cancelVisitor(visitorKey);
      this.forgetVisitorTurns(visitorKey);
    } else {
      for (const turn of this.turns.values()) if (turn.visitorKey === visitorKey && turn.conversationId === conversationId) turn.deleted = true;
    }
    await this.writer.flush();
    const replies: { id: string }[] = await this.dataSource.query(
      conversationId === undefined
        ? this.sql(`SELECT m.id FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
                     WHERE c.visitor_key = $1 AND m.role = 'agent'`)
        : this.sql(`SELECT m.id FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
                     WHERE c.id = $2 AND c.visitor_key = $1 AND m.role = 'agent'`),
      conversationId === undefined ? [visitorKey] : [visitorKey, conversationId],
    );
    const replyIds = replies.map((r) => r.id);
    if (conversationId !== undefined) await this.streams.forget(replyIds, visitorKey);
    this.mirror?.forgetVisitor(visitorKey);
    // The questions that led to handoffs in them go too (the handoffs stay counted, without the wording).
    await queuedWrite(this.dataSource, () =>
      changedRows(
        this.dataSource,
        conversationId === undefined
          ? 'UPDATE handoffs SET question = NULL WHERE conversation_id IN (SELECT id FROM conversations WHERE visitor_key = $1)'
          : 'UPDATE handoffs SET question = NULL WHERE conversation_id IN (SELECT id FROM conversations WHERE visitor_key = $1 AND id = $2)',
        conversationId === undefined ? [visitorKey] : [visitorKey, conversationId],
      ),
    );
    const deleted = await queuedWrite(this.dataSource, () =>
      conversationId === undefined
        ? changedRows(this.dataSource, 'DELETE FROM conversations WHERE visitor_key = $1', [visitorKey])
        : changedRows(this.dataSource, 'DELETE FROM conversations WHERE visitor_key = $1 AND id = $2', [visitorKey, conversationId]),
    ).finally(() => this.mirror?.forgetVisitor(visitorKey));
    // Nothing of them stays: their questions' wording leaves the knowledge gaps too.
    if (replyIds.length > 0) await Promise.all([...this.deletedListeners].map((listener) => listener(replyIds)));
    return deleted;
  }

  /** A reply as stored, if it belongs to the visitor (GET /interact/replies/{id} once its stream expired). */
  async storedReply(replyId: string, visitorKey: string): Promise<ReplyStatus | undefined> {
    await this.writer.flush();
    const rows: MessageRow[] = await this.dataSource.query(
      this.sql(`SELECT ${MESSAGE_COLUMNS.split(', ').map((c) => `m.${c}`).join(', ')}
                  FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id
                 WHERE m.id = $1 AND m.role IN ('agent', 'human') AND c.visitor_key = $2`),
      [replyId, visitorKey],
    );
    const row = rows[0];
    if (!row) return undefined;
    const message = this.visitorMessage(row);
    return { replyId, status: message.status, text: row.content, seq: 0, data: message.reply, error: message.error };
  }

  private visitorMessage(row: MessageRow): VisitorMessage {
    return {
      id: row.id,
      role: row.role === 'note' ? 'human' : row.role,
      content: row.content,
      createdAt: iso(row.created_at),
      status: this.statusOf(row),
      language: row.language,
      requestId: row.request_id,
      reply: row.status === 'complete' ? replyDataOf(row) : null,
      feedback: row.feedback,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      ...(row.role === 'human' ? { author: { name: row.author_name ?? '' } } : {}),
    };
  }

  /** A reply still `streaming` long after any reply could have ended was cut off (its server stopped). */
  statusOf(row: Pick<MessageRow, 'status' | 'created_at'>): MessageStatus {
    if (row.status === 'streaming' && this.clock.now() - Number(row.created_at) > this.config.chatTimeoutMs + 120_000) return 'interrupted';
    return row.status;
  }

  /** A turn whose end is written (or will never be): no longer part of its conversation's queued turns. */
  private forgetTurn(turn: Turn): void {
    this.firstFrameOut(turn.replyId);
    if (this.turns.get(turn.replyId) !== turn) return;
    this.turns.delete(turn.replyId);
    const byScope = scopeKeyOf(turn.visitorKey, turn.vertical, turn.scope);
    const same = this.turnsByScope.get(byScope);
    same?.delete(turn);
    if (same?.size === 0) this.turnsByScope.delete(byScope);
  }

  private forgetVisitorTurns(visitorKey: string): void {
    for (const turn of this.turns.values()) if (turn.visitorKey === visitorKey) turn.deleted = true;
  }

  private closeTurns(visitorKey: string, vertical: string, scope: string, at: number): void {
    for (const turn of this.turns.values()) {
      if (turn.visitorKey === visitorKey && turn.vertical === vertical && turn.scope === scope) turn.closedAt = at;
    }
  }
}
