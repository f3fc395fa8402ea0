/**
 * The admin console's view of visitors' conversations: a page of them, newest activity first,
 * filtered by vertical, dates, language, feedback and answered or not, and searched in their
 * messages through the full-text index the conversations migration keeps (FTS5 on SQLite, a
 * tsvector with GIN on Postgres: every word of the search, each also as the start of a longer
 * word); and one conversation's transcript, with the sources and confidence of each reply.
 */
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { dialectOf } from '../database/data-source';
import { portableSql } from '../database/sql';
import type {
  ConversationExport,
  ConversationListQuery,
  ConversationPage,
  ConversationSummary,
  ConversationTranscript,
  TranscriptMessage,
} from '../shared/contracts/conversations';
import { ConversationsService, MESSAGE_COLUMNS, replyDataOf, type MessageRow } from './conversations.service';

/** Words of a search used (the rest are ignored). */
const MAX_SEARCH_WORDS = 8;
const MAX_WORD_CHARS = 40;
/** Messages of one transcript (the newest; a conversation rarely has more). */
export const TRANSCRIPT_MESSAGE_LIMIT = 2000;
/** Characters of a matching message shown in the list. */
const MATCH_CHARS = 160;
const MATCH_LEAD = 40;

interface SummaryRow {
  id: string;
  vertical: string;
  jurisdiction: string | null;
  sub_jurisdiction: string | null;
  language: string | null;
  title: string;
  message_count: number | string;
  unanswered_count: number | string;
  up_votes: number | string;
  down_votes: number | string;
  channel: string;
  closed_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

const SUMMARY_COLUMNS =
  'c.id, c.vertical, c.jurisdiction, c.sub_jurisdiction, c.language, c.title, c.message_count, c.unanswered_count, c.up_votes, c.down_votes, c.channel, c.closed_at, c.created_at, c.updated_at';

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The words of a search as the index tokenizes them: runs of letters and digits, lower case. */
export function searchWords(search: string): string[] {
  const words = search.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length <= MAX_WORD_CHARS))].slice(0, MAX_SEARCH_WORDS);
}

/** The start of a message around the first place a search word occurs. */
export function matchExcerpt(content: string, words: string[]): string {
  const lower = content.toLowerCase();
  const at = words.map((w) => lower.indexOf(w)).filter((i) => i >= 0);
  const start = at.length ? Math.max(0, Math.min(...at) - MATCH_LEAD) : 0;
  const end = Math.min(content.length, start + MATCH_CHARS);
  return `${start > 0 ? '…' : ''}${content.slice(start, end).replace(/\s+/g, ' ').trim()}${end < content.length ? '…' : ''}`;
}

@Injectable()
export class ConversationTranscriptsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly conversations: ConversationsService,
  ) {}

  private sql(text: string): string {
    return portableSql(this.dataSource, text);
  }

  /** The messages (ids) that match every word: an SQL fragment over conversation_messages `m` and the parameter it binds. */
  private matching(words: string[], param: number): { join: string; where: string; value: string } {
    if (dialectOf(this.dataSource) === 'postgres') {
      return { join: '', where: `m.tsv @@ to_tsquery('simple', $${param})`, value: words.map((w) => `${w}:*`).join(' & ') };
    }
    return {
      join: 'JOIN conversation_messages_fts f ON f.rowid = m.seq',
      where: `conversation_messages_fts MATCH $${param}`,
      value: words.map((w) => `"${w}"*`).join(' '),
    };
  }

  async list(query: ConversationListQuery): Promise<ConversationPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const bind = (value: unknown) => `$${params.push(value)}`;
    if (query.vertical) where.push(`c.vertical = ${bind(query.vertical)}`);
    if (query.from !== undefined) where.push(`c.updated_at >= ${bind(query.from)}`);
    if (query.to !== undefined) where.push(`c.updated_at < ${bind(query.to)}`);
    if (query.language) where.push(`c.language = ${bind(query.language.toLowerCase())}`);
    if (query.feedback === 'up') where.push('c.up_votes > 0');
    if (query.feedback === 'down') where.push('c.down_votes > 0');
    if (query.feedback === 'none') where.push('c.up_votes = 0 AND c.down_votes = 0');
    if (query.answered === 'no') where.push('c.unanswered_count > 0');
    if (query.answered === 'yes') where.push('c.unanswered_count = 0');
    const words = query.search ? searchWords(query.search) : [];
    if (query.search && words.length === 0) return { items: [], total: 0, page: query.page, pageSize: query.pageSize };
    let match: ReturnType<ConversationTranscriptsService['matching']> | undefined;
    if (words.length > 0) {
      match = this.matching(words, params.length + 1);
      params.push(match.value);
      where.push(`c.id IN (SELECT m.conversation_id FROM conversation_messages m ${match.join} WHERE ${match.where})`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const offset = (query.page - 1) * query.pageSize;
    const [rows, count]: [SummaryRow[], { n: number | string }[]] = await Promise.all([
      this.dataSource.query(this.sql(`SELECT ${SUMMARY_COLUMNS} FROM conversations c ${clause} ORDER BY c.updated_at DESC, c.id DESC LIMIT ${query.pageSize} OFFSET ${offset}`), params),
      this.dataSource.query(this.sql(`SELECT COUNT(*) AS n FROM conversations c ${clause}`), params),
    ]);
    const matches = new Map<string, string>();
    if (match && rows.length > 0) {
      const ids = rows.map((r) => r.id);
      const m2 = this.matching(words, ids.length + 1);
      const found: { conversation_id: string; content: string }[] = await this.dataSource.query(
        this.sql(`SELECT m.conversation_id, m.content FROM conversation_messages m ${m2.join}
                   WHERE m.conversation_id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')}) AND ${m2.where}
                   ORDER BY m.seq DESC`),
        [...ids, m2.value],
      );
      for (const f of found) if (!matches.has(f.conversation_id)) matches.set(f.conversation_id, matchExcerpt(f.content, words));
    }
    return {
      items: rows.map((row) => ({ ...this.summaryOf(row), match: matches.get(row.id) ?? null })),
      total: Number(count[0]?.n ?? 0),
      page: query.page,
      pageSize: query.pageSize,
    };
  }

  async transcript(id: string): Promise<ConversationTranscript> {
    const rows: SummaryRow[] = await this.dataSource.query(this.sql(`SELECT ${SUMMARY_COLUMNS} FROM conversations c WHERE c.id = $1`), [id]);
    if (!rows[0]) throw new AppError('not_found', 'That conversation was not found.');
    const messages: MessageRow[] = await this.dataSource.query(
      this.sql(`SELECT * FROM (SELECT ${MESSAGE_COLUMNS}, seq FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT ${TRANSCRIPT_MESSAGE_LIMIT}) AS recent ORDER BY seq`),
      [id],
    );
    const { match: _match, ...summary } = { ...this.summaryOf(rows[0]), match: null };
    return { ...summary, messages: messages.map((m) => this.messageOf(m)) };
  }

  async export(id: string, exportedAt: number): Promise<ConversationExport> {
    return { format: 'support-assistant-conversation', version: 1, exportedAt: new Date(exportedAt).toISOString(), conversation: await this.transcript(id) };
  }

  private summaryOf(row: SummaryRow): Omit<ConversationSummary, 'match'> {
    return {
      id: row.id,
      vertical: row.vertical as ConversationSummary['vertical'],
      jurisdiction: row.jurisdiction,
      subJurisdiction: row.sub_jurisdiction,
      language: row.language,
      title: row.title,
      messageCount: Number(row.message_count),
      unanswered: Number(row.unanswered_count),
      feedback: { up: Number(row.up_votes), down: Number(row.down_votes) },
      channel: row.channel,
      open: row.closed_at === null,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    };
  }

  private messageOf(row: MessageRow): TranscriptMessage {
    const data = row.role === 'agent' ? replyDataOf(row) : null;
    const num = (v: string | number | null) => (v === null || v === undefined ? null : Number(v));
    return {
      id: row.id,
      role: row.role,
      content: row.content,
      createdAt: iso(row.created_at),
      status: this.conversations.statusOf(row),
      language: row.language,
      confidence: row.confidence === null ? null : Number(row.confidence),
      answered: row.answered === null ? null : Number(row.answered) === 1,
      sources: data?.sources ?? [],
      feedback: row.feedback,
      agentId: row.agent_id,
      provider: row.provider,
      model: row.model,
      executionTime: num(row.execution_ms),
      timeToFirstToken: num(row.ttft_ms),
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      ...(row.author_name !== null && row.author_name !== undefined ? { author: { name: row.author_name } } : {}),
    };
  }
}
