/**
 * Visitors' conversations: the chat pipeline's side (load the server's copy of the history before
 * a reply, save the exchange as it happens, keep track of this server's turns until they are
 * written) and the visitor's "New chat", delete and votes. Reading them back after a reload is
 * VisitorConversationReadsService; the SQL of the turns' writes is turn-batch-writes.ts.
 *
 * - One open conversation per visitor, vertical and scope (for legal the jurisdiction and
 *   sub-region; '' elsewhere). The first question in a scope opens it; "New chat" closes it.
 * - A turn is saved in two writes (ConversationWriter, batched, never on the chat path): the
 *   question and a `streaming` reply once the first frame is out (and, within START_HOLD_MS,
 *   once no reply of this server is waiting for its first frame), then the reply's text, reply
 *   data, timings and status when it ends. Until then the reply's frames live in the reply stream.
 *   The starts and ends of a batch are written together (writeTurns).
 * - The prompt's history is the server's copy. `conversationHistory` in the request is only used
 *   by a caller that sent no visitor cookie and whose conversation has nothing stored yet (a
 *   stateless API call): it is that caller's own context, and can never replace a stored one.
 */
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { newUsageEventId } from '../analytics/usage-event-id';
import { APP_CONFIG, AppConfig, soleServer } from '../config/app-config';
import { changedRows, portableSql, readQuery } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import type { MessageStatus, NewChatRequest } from '../shared/contracts/conversations';
import type { MessageRow } from './conversation-rows';
import { jurisdictionScopeOf, scopeKeyOf, scopeOf, type StoredVote, type Turn, type TurnOutcome, type TurnScope } from './conversation-turn';
import { ConversationWriter, type WriteGroup, type WriteOp } from './conversation-writer';
import { ConversationsClock } from './conversations-clock';
import { MAX_HISTORY_ENTRIES, trimHistory, type HistoryEntry } from './history';
import { HistoryMirror, type HistoryRow } from './history-mirror';
import { writeVote } from './reply-votes';
import { ReplyStreamService } from './reply-streams';
import { ensureConversation, writeEnd, writeStart, writeTurns, type TurnWrite } from './turn-batch-writes';
import type { Visitor } from './visitor-identity';

// The turn's and the rows' types and helpers, where the chat pipeline, handoff and the console import them from.
export { handoffInfoOf, MESSAGE_COLUMNS, replyDataOf, type HandoffColumns, type MessageRow } from './conversation-rows';
export { jurisdictionScopeOf, scopeOf, type StoredVote, type Turn, type TurnOutcome, type TurnScope } from './conversation-turn';


/** Rows read for the history (some may be skipped: empty or failed replies). */
const HISTORY_ROWS = MAX_HISTORY_ENTRIES * 2;
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

/** A turn's start or end, as queued for the writer. */
interface TurnWriteOp extends WriteOp {
  write: TurnWrite;
}


@Injectable()
export class ConversationsService implements OnApplicationShutdown {
  private readonly logger = new Logger('Conversations');
  readonly writer: ConversationWriter;
  /** Turns of this server not yet fully written, by reply id (New chat and delete reach them). */
  private readonly turns = new Map<string, Turn>();
  /** The same turns by visitor, vertical and scope (openTurn looks up a conversation's queued turns there). */
  private readonly turnsByScope = new Map<string, Set<Turn>>();
  /** Replies of this server still waiting for their first frame: reply id -> when the turn began opening (clock.elapsed()). */
  private readonly awaitingFirstFrame = new Map<string, number>();
  private readonly writtenListeners = new Set<(turn: Turn, outcome: TurnOutcome) => void>();
  private readonly voteListeners = new Set<(vote: StoredVote) => void>();
  private readonly deletedListeners = new Set<(replyIds: string[]) => Promise<void>>();
  /** The embedded mode's conversations history in memory (this server writes all of it): openTurn reads no statement. */
  private readonly mirror: HistoryMirror | undefined;
  /** The turns' starts and ends of a batch, written together (writeTurns). */
  private readonly turnWrites: WriteGroup = { runAll: (m, ops) => writeTurns(this.dataSource, m, ops.map((op) => (op as TurnWriteOp).write)) };

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly streams: ReplyStreamService,
    private readonly adminEvents: AdminEventsService,
    private readonly clock: ConversationsClock,
  ) {
    this.writer = new ConversationWriter(dataSource, () => this.firstFramesAwaited(), {
      now: () => this.clock.elapsed(),
      set: (fire, ms, unref) => this.clock.setTimer(fire, ms, unref),
      clear: (timer) => this.clock.clearTimer(timer),
    });
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
        stored = await writeVote(this.dataSource, m, replyId, vote);
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
    this.awaitingFirstFrame.set(ids.replyId, this.clock.elapsed());
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
      run: (m) => writeStart(this.dataSource, m, turn),
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
        if (!turn.known) await ensureConversation(this.dataSource, m, turn);
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
    const stale = this.clock.elapsed() - FIRST_FRAME_WAIT_MS;
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
      run: (m) => writeEnd(this.dataSource, m, turn, outcome, at),
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