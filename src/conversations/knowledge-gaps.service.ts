/**
 * Knowledge gaps: what visitors asked that the knowledge base did not answer well, for the admin
 * to add knowledge. A question counts when its reply found nothing ("not found": nothing cleared
 * the relevance floor), was answered with a confidence below GAP_LOW_CONFIDENCE, or got a
 * thumbs-down. Questions of a vertical that ask the same thing (GapMatcher: shared stemmed terms
 * by default) form one group with a count, the reasons and when it was last asked.
 *
 * A group marked resolved (the admin added knowledge) stays resolved until a question of it fails
 * again: then it is open again, with `reopenedAt`. Written off the chat path, after the reply is
 * stored (ConversationsService.onTurnWritten) or the vote is (onVote), one short transaction each.
 */
import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { AuditTargets } from '../audit/audit-targets';
import { newUsageEventId } from '../analytics/usage-event-id';
import { AppError } from '../common/app-error';
import { dialectOf } from '../database/data-source';
import { backgroundWrite } from '../database/background-writes';
import { changedRows, portableSql } from '../database/sql';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import { GAP_LOW_CONFIDENCE, type GapListQuery, type GapPage, type GapStatus, type KnowledgeGap } from '../shared/contracts/conversations';
import { ConversationsService, type StoredVote, type Turn, type TurnOutcome } from './conversations.service';
import { ConversationsClock } from './conversations-clock';
import { GAP_MATCHER, gapTerms, termGapMatcher, type GapCandidate, type GapMatcher } from './gap-terms';

export type GapReason = 'notFound' | 'lowConfidence' | 'thumbsDown';

const REASON_COLUMN: Record<GapReason, string> = { notFound: 'not_found', lowConfidence: 'low_confidence', thumbsDown: 'thumbs_down' };
const QUESTION_CHARS = 500;
/** Candidate groups read for one question (those sharing a term, most recently asked first). */
const MAX_CANDIDATES = 200;
const EXAMPLES = 5;

/** A failed reply to count. */
export interface GapQuestion {
  replyId: string;
  vertical: string;
  question: string;
  askedAt: number;
  reason: GapReason;
}

interface GapRow {
  id: string;
  vertical: string;
  question: string;
  terms: string;
  ask_count: number | string;
  not_found: number | string;
  low_confidence: number | string;
  thumbs_down: number | string;
  status: GapStatus;
  first_asked_at: number | string;
  last_asked_at: number | string;
  resolved_at: number | string | null;
  reopened_at: number | string | null;
}

const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** Why a stored reply counts as a gap, if it does. */
export function gapReasonOf(outcome: Pick<TurnOutcome, 'status' | 'answered' | 'confidence'>): GapReason | undefined {
  if (outcome.status !== 'complete') return undefined;
  if (outcome.answered === false) return 'notFound';
  if (outcome.answered === true && outcome.confidence !== undefined && outcome.confidence < GAP_LOW_CONFIDENCE) return 'lowConfidence';
  return undefined;
}

@Injectable()
export class KnowledgeGapsService implements OnModuleInit {
  private readonly logger = new Logger('KnowledgeGaps');
  private readonly matcher: GapMatcher;
  /** Recording in flight (tests and shutdown wait for it). */
  private pending = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly conversations: ConversationsService,
    private readonly adminEvents: AdminEventsService,
    private readonly clock: ConversationsClock,
    @Optional() @Inject(GAP_MATCHER) matcher?: GapMatcher,
    @Optional() auditTargets?: AuditTargets,
  ) {
    this.matcher = matcher ?? termGapMatcher;
    // Named by its vertical and stemmed terms: a visitor's own wording ends with the conversations'
    // retention, which the audit log's outlasts.
    auditTargets?.register('knowledge-gap', {
      snapshot: async (id) => {
        const gap = await this.get(id.toLowerCase()).catch(() => null);
        return gap && { title: `${gap.vertical}: ${gap.terms.slice(0, 6).join(' ')}`, fields: { status: gap.status } };
      },
    });
  }

  onModuleInit(): void {
    this.conversations.onTurnWritten((turn, outcome) => this.onReply(turn, outcome));
    this.conversations.onVote((vote) => this.onVote(vote));
    this.conversations.onVisitorDeleted((replyIds) => this.forgetReplies(replyIds));
  }

  private sql(text: string): string {
    return portableSql(this.dataSource, text);
  }

  private onReply(turn: Turn, outcome: TurnOutcome): void {
    const reason = gapReasonOf(outcome);
    if (!reason) return;
    this.track(() => this.record({ replyId: turn.replyId, vertical: turn.vertical, question: turn.question, askedAt: turn.startedAt, reason }));
  }

  private onVote(vote: StoredVote): void {
    if (vote.previous === 'down' && vote.vote !== 'down') {
      this.track(() => this.withdrawThumbsDown(vote.replyId));
      return;
    }
    if (vote.vote !== 'down' || vote.previous === 'down' || vote.question.trim() === '') return;
    this.track(() => this.record({ replyId: vote.replyId, vertical: vote.vertical, question: vote.question, askedAt: vote.askedAt, reason: 'thumbsDown' }));
  }

  /** Gap writes one after another (a vote taken back never overtakes the vote it takes back). */
  private chain: Promise<void> = Promise.resolve();

  /** Queued behind the gap writes before it; the database closes only after it (shutdown). */
  private track(work: () => Promise<void>): void {
    const p = (this.chain = this.chain.then(work, work)).catch((error: unknown) => this.logger.warn(`A knowledge gap was not recorded: ${(error as Error).message}`));
    backgroundWrite(this.dataSource, p);
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Resolves once the gaps being recorded are stored. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Counts a failed reply in its group (a new group when none asks the same thing). */
  async record(q: GapQuestion): Promise<void> {
    const terms = gapTerms(q.question);
    // A question without a content word ("hello?") names nothing to add knowledge about.
    if (terms.length === 0) return;
    const changed = await writeTransaction(this.dataSource, (m) => this.recordIn(m, q, terms));
    if (changed) this.adminEvents.emit('knowledge-gaps:changed', changed);
  }

  private async recordIn(m: EntityManager, q: GapQuestion, terms: string[]): Promise<{ id: string; status: GapStatus; count: number } | undefined> {
    const sql = (text: string) => this.sql(text);
    const column = REASON_COLUMN[q.reason];
    // Two servers recording questions of one vertical at once would each create a group for the
    // same question: on Postgres they take turns per vertical (SQLite's one writer already does).
    if (dialectOf(this.dataSource) === 'postgres') await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`knowledge-gaps:${q.vertical}`]);
    const known: { gap_id: string; thumbs_down: number | string }[] = await m.query(sql('SELECT gap_id, thumbs_down FROM knowledge_gap_questions WHERE reply_id = $1'), [q.replyId]);
    if (known[0]) {
      // Counted already (not found, then a thumbs-down): one more reason, not one more question,
      // and a reply's thumbs-down counts once however often the vote changes.
      if (q.reason !== 'thumbsDown' || Number(known[0].thumbs_down) === 1) return undefined;
      await m.query(sql('UPDATE knowledge_gap_questions SET thumbs_down = 1 WHERE reply_id = $1'), [q.replyId]);
      await m.query(sql('UPDATE knowledge_gaps SET thumbs_down = thumbs_down + 1 WHERE id = $1'), [known[0].gap_id]);
      return this.changedOf(m, known[0].gap_id);
    }
    const rows: { id: string; terms: string; question: string; last_asked_at: string | number }[] = await m.query(
      sql(`SELECT id, terms, question, last_asked_at FROM knowledge_gaps
            WHERE vertical = $1 AND id IN (SELECT gap_id FROM knowledge_gap_terms WHERE vertical = $1 AND term IN (${terms.map((_, i) => `$${i + 2}`).join(', ')}))
            ORDER BY last_asked_at DESC LIMIT ${MAX_CANDIDATES}`),
      [q.vertical, ...terms],
    );
    const candidates: GapCandidate[] = rows.map((r) => ({ id: r.id, terms: r.terms.split(' ').filter(Boolean), question: r.question, lastAskedAt: Number(r.last_asked_at) }));
    const group = await this.matcher.match({ text: q.question, terms, vertical: q.vertical }, candidates);
    const question = q.question.slice(0, QUESTION_CHARS);
    let id: string;
    if (group) {
      id = group.id;
      // A resolved group asked again and failed again: open again.
      await m.query(
        sql(`UPDATE knowledge_gaps
                SET ask_count = ask_count + 1, ${column} = ${column} + 1,
                    question = CASE WHEN last_asked_at <= $2 THEN $3 ELSE question END,
                    last_asked_at = CASE WHEN last_asked_at <= $2 THEN $2 ELSE last_asked_at END,
                    reopened_at = CASE WHEN status = 'resolved' THEN $4 ELSE reopened_at END,
                    status = 'open'
              WHERE id = $1`),
        [id, q.askedAt, question, this.clock.now()],
      );
    } else {
      id = newUsageEventId();
      await m.query(
        sql(`INSERT INTO knowledge_gaps (id, vertical, question, terms, ask_count, not_found, low_confidence, thumbs_down, status, first_asked_at, last_asked_at)
             VALUES ($1, $2, $3, $4, 1, $5, $6, $7, 'open', $8, $8)`),
        [id, q.vertical, question, terms.join(' '), q.reason === 'notFound' ? 1 : 0, q.reason === 'lowConfidence' ? 1 : 0, q.reason === 'thumbsDown' ? 1 : 0, q.askedAt],
      );
      await m.query(
        sql(`INSERT INTO knowledge_gap_terms (gap_id, vertical, term) VALUES ${terms.map((_, i) => `($1, $2, $${i + 3})`).join(', ')}`),
        [id, q.vertical, ...terms],
      );
    }
    await m.query(sql('INSERT INTO knowledge_gap_questions (reply_id, gap_id, question, asked_at, thumbs_down) VALUES ($1, $2, $3, $4, $5)'), [
      q.replyId,
      id,
      question,
      q.askedAt,
      q.reason === 'thumbsDown' ? 1 : 0,
    ]);
    return this.changedOf(m, id);
  }

  /**
   * A thumbs-down taken back: no longer counted. A reply that is in its group only for that vote
   * leaves it (and a group left with no question goes); one that also found nothing or was unsure stays.
   */
  private async withdrawThumbsDown(replyId: string): Promise<void> {
    const changed = await writeTransaction(this.dataSource, async (m) => {
      const sql = (text: string) => this.sql(text);
      const known: { gap_id: string; thumbs_down: number | string }[] = await m.query(sql('SELECT gap_id, thumbs_down FROM knowledge_gap_questions WHERE reply_id = $1'), [replyId]);
      if (!known[0] || Number(known[0].thumbs_down) !== 1) return undefined;
      const gapId = known[0].gap_id;
      const reply: { answered: boolean | number | null; confidence: number | string | null }[] = await m.query(
        sql(`SELECT answered, confidence FROM conversation_messages WHERE id = $1`),
        [replyId],
      );
      const otherReason = reply[0]
        ? gapReasonOf({ status: 'complete', answered: reply[0].answered === null ? undefined : Boolean(reply[0].answered), confidence: reply[0].confidence === null ? undefined : Number(reply[0].confidence) })
        : undefined;
      if (otherReason) {
        await m.query(sql('UPDATE knowledge_gap_questions SET thumbs_down = 0 WHERE reply_id = $1'), [replyId]);
        await m.query(sql('UPDATE knowledge_gaps SET thumbs_down = thumbs_down - 1 WHERE id = $1 AND thumbs_down > 0'), [gapId]);
      } else {
        await m.query(sql('DELETE FROM knowledge_gap_questions WHERE reply_id = $1'), [replyId]);
        await m.query(sql('UPDATE knowledge_gaps SET thumbs_down = thumbs_down - 1, ask_count = ask_count - 1 WHERE id = $1 AND thumbs_down > 0 AND ask_count > 0'), [gapId]);
        await this.tidyGroups(m, [gapId], true);
      }
      return (await this.changedOf(m, gapId)) ?? { id: gapId, status: 'open' as GapStatus, count: 0 };
    });
    if (changed) this.adminEvents.emit('knowledge-gaps:changed', changed);
  }

  /** A visitor deleted their conversations: their questions' wording leaves the gaps (the counts stay). */
  async forgetReplies(replyIds: string[]): Promise<void> {
    const gapIds = new Set<string>();
    for (let i = 0; i < replyIds.length; i += 500) {
      const slice = replyIds.slice(i, i + 500);
      await writeTransaction(this.dataSource, async (m) => {
        const list = slice.map((_, j) => `$${j + 1}`).join(', ');
        const rows: { gap_id: string }[] = await m.query(this.sql(`SELECT DISTINCT gap_id FROM knowledge_gap_questions WHERE reply_id IN (${list})`), slice);
        if (rows.length === 0) return;
        await m.query(this.sql(`DELETE FROM knowledge_gap_questions WHERE reply_id IN (${list})`), slice);
        rows.forEach((r) => gapIds.add(r.gap_id));
        await this.tidyGroups(m, rows.map((r) => r.gap_id), false);
      });
    }
    for (const id of gapIds) this.adminEvents.emit('knowledge-gaps:changed', { id, status: 'open', count: 0 });
  }

  /**
   * After questions left these groups: each shows the wording of its newest remaining question; a
   * group with none left goes (there is nothing to show of it), or, when `onlyWhenEmpty` counts
   * say so, one whose count fell to 0.
   */
  private async tidyGroups(m: EntityManager, gapIds: string[], onlyWhenEmpty: boolean): Promise<void> {
    const sql = (text: string) => this.sql(text);
    for (const id of gapIds) {
      const newest: { question: string }[] = await m.query(sql(`SELECT question FROM knowledge_gap_questions WHERE gap_id = $1 ORDER BY asked_at DESC LIMIT 1`), [id]);
      const counts: { ask_count: number | string }[] = await m.query(sql('SELECT ask_count FROM knowledge_gaps WHERE id = $1'), [id]);
      const empty = onlyWhenEmpty ? Number(counts[0]?.ask_count ?? 0) <= 0 : newest.length === 0;
      if (empty) {
        await m.query(sql('DELETE FROM knowledge_gap_terms WHERE gap_id = $1'), [id]);
        await m.query(sql('DELETE FROM knowledge_gaps WHERE id = $1'), [id]);
      } else if (newest[0]) {
        await m.query(sql('UPDATE knowledge_gaps SET question = $2 WHERE id = $1'), [id, newest[0].question]);
      }
    }
  }

  private async changedOf(m: EntityManager, id: string): Promise<{ id: string; status: GapStatus; count: number } | undefined> {
    const rows: { status: GapStatus; ask_count: number | string }[] = await m.query(this.sql('SELECT status, ask_count FROM knowledge_gaps WHERE id = $1'), [id]);
    return rows[0] ? { id, status: rows[0].status, count: Number(rows[0].ask_count) } : undefined;
  }

  // --- the console ------------------------------------------------------------------------------

  /** Groups, most asked first (then the most recently asked). */
  async list(query: GapListQuery): Promise<GapPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const status = query.status ?? 'open';
    if (status !== 'all') where.push(`status = $${params.push(status)}`);
    if (query.vertical) where.push(`vertical = $${params.push(query.vertical)}`);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const offset = (query.page - 1) * query.pageSize;
    const [rows, total]: [GapRow[], { n: string | number }[]] = await Promise.all([
      this.dataSource.query(
        this.sql(`SELECT * FROM knowledge_gaps ${clause} ORDER BY ask_count DESC, last_asked_at DESC, id LIMIT ${query.pageSize} OFFSET ${offset}`),
        params,
      ),
      this.dataSource.query(this.sql(`SELECT COUNT(*) AS n FROM knowledge_gaps ${clause}`), params),
    ]);
    const examples = await this.examplesOf(rows);
    return {
      items: rows.map((row) => this.toGap(row, examples.get(row.id) ?? [])),
      total: Number(total[0]?.n ?? 0),
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  async get(id: string): Promise<KnowledgeGap> {
    const rows: GapRow[] = await this.dataSource.query(this.sql('SELECT * FROM knowledge_gaps WHERE id = $1'), [id]);
    if (!rows[0]) throw new AppError('not_found', 'That knowledge gap was not found.');
    const examples = await this.examplesOf(rows);
    return this.toGap(rows[0], examples.get(id) ?? []);
  }

  /** Marks a group resolved (or open again). */
  async setStatus(id: string, status: GapStatus): Promise<KnowledgeGap> {
    const now = this.clock.now();
    const changed = await queuedWrite(this.dataSource, () =>
      status === 'resolved'
        ? changedRows(this.dataSource, `UPDATE knowledge_gaps SET status = 'resolved', resolved_at = $2 WHERE id = $1`, [id, now])
        : changedRows(this.dataSource, `UPDATE knowledge_gaps SET status = 'open', resolved_at = NULL WHERE id = $1`, [id]),
    );
    if (changed === 0) throw new AppError('not_found', 'That knowledge gap was not found.');
    const gap = await this.get(id);
    this.adminEvents.emit('knowledge-gaps:changed', { id, status: gap.status, count: gap.count });
    return gap;
  }

  /** Deletes groups last asked before `before` and the wording of questions asked before it (retention). */
  async purge(before: number): Promise<number> {
    return queuedWrite(this.dataSource, async () => {
      await changedRows(this.dataSource, 'DELETE FROM knowledge_gap_questions WHERE asked_at < $1', [before]);
      return changedRows(this.dataSource, 'DELETE FROM knowledge_gaps WHERE last_asked_at < $1', [before]);
    });
  }

  private async examplesOf(rows: GapRow[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (rows.length === 0) return out;
    const questions: { gap_id: string; question: string }[] = await this.dataSource.query(
      this.sql(`SELECT gap_id, question FROM knowledge_gap_questions WHERE gap_id IN (${rows.map((_, i) => `$${i + 1}`).join(', ')}) ORDER BY asked_at DESC`),
      rows.map((r) => r.id),
    );
    const main = new Map(rows.map((r) => [r.id, r.question.trim().toLowerCase()]));
    for (const { gap_id, question } of questions) {
      const list = out.get(gap_id) ?? [];
      const key = question.trim().toLowerCase();
      if (list.length >= EXAMPLES || key === main.get(gap_id) || list.some((q) => q.trim().toLowerCase() === key)) continue;
      list.push(question);
      out.set(gap_id, list);
    }
    return out;
  }

  private toGap(row: GapRow, examples: string[]): KnowledgeGap {
    return {
      id: row.id,
      vertical: row.vertical as KnowledgeGap['vertical'],
      question: row.question,
      examples,
      terms: row.terms.split(' ').filter(Boolean),
      count: Number(row.ask_count),
      reasons: { notFound: Number(row.not_found), lowConfidence: Number(row.low_confidence), thumbsDown: Number(row.thumbs_down) },
      status: row.status,
      firstAskedAt: iso(row.first_asked_at)!,
      lastAskedAt: iso(row.last_asked_at)!,
      resolvedAt: iso(row.resolved_at),
      reopenedAt: iso(row.reopened_at),
    };
  }
}
