/**
 * GET /api/analytics/export: every usage event of the window, oldest first, streamed as JSON
 * (an array of UsageExportRow) or CSV (a header row, then one row per event). Events are read in
 * keyset pages (created_at, id), so memory stays flat whatever the window holds, and the writer
 * waits for the client to drain (backpressure) and stops when it goes away.
 */
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { csvField, startDownload } from '../common/download';
import { portableSql } from '../database/sql';
import { AnalyticsWindow, EXPORT_COLUMNS, ExportFormat, FeedbackVote, UsageExportRow } from '../shared/contracts/analytics';
import { AnalyticsClock } from './analytics-clock';
import { spanOf } from './analytics-window';

const PAGE_SIZE = 2000;

interface EventRow {
  id: string;
  created_at: string | number;
  request_id: string;
  agent_id: string;
  vertical: string;
  provider: string;
  model: string;
  channel: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
  prompt_tokens: string | number;
  completion_tokens: string | number;
  cost_usd: string | number;
  latency_ms: string | number;
  ttft_ms: string | number | null;
  language: string | null;
  vote: FeedbackVote | null;
}

function toExportRow(row: EventRow): UsageExportRow {
  const prompt = Number(row.prompt_tokens);
  const completion = Number(row.completion_tokens);
  return {
    id: row.id,
    timestamp: new Date(Number(row.created_at)).toISOString(),
    requestId: row.request_id,
    agentId: row.agent_id,
    vertical: row.vertical,
    provider: row.provider,
    model: row.model,
    channel: row.channel,
    status: row.status,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: prompt + completion,
    costUsd: Number(row.cost_usd),
    latencyMs: Number(row.latency_ms),
    ttftMs: row.ttft_ms === null ? null : Number(row.ttft_ms),
    language: row.language,
    feedback: row.vote ?? null,
  };
}

export function csvLine(row: UsageExportRow): string {
  return `${EXPORT_COLUMNS.map((column) => csvField(row[column])).join(',')}\r\n`;
}

export const CSV_HEADER = `${EXPORT_COLUMNS.join(',')}\r\n`;

@Injectable()
export class UsageExportService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: AnalyticsClock,
  ) {}

  fileName(hours: AnalyticsWindow, format: ExportFormat, now = this.clock.now()): string {
    const stamp = new Date(now).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
    return `usage-events-${hours}h-${stamp}.${format}`;
  }

  /** Streams the export into `res` (headers included) and ends it. */
  async stream(hours: AnalyticsWindow, format: ExportFormat, res: Response): Promise<void> {
    const now = this.clock.now();
    const span = spanOf(hours, now);
    const download = startDownload(res, {
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      fileName: this.fileName(hours, format, now),
    });
    const write = (chunk: string) => download.write(chunk);

    await write(format === 'csv' ? CSV_HEADER : '[');
    let first = true;
    let after: { createdAt: number; id: string } | undefined;
    while (!download.closed) {
      const rows = await this.page(span.from, span.to, after);
      if (rows.length === 0) break;
      let chunk = '';
      for (const row of rows) {
        const item = toExportRow(row);
        if (format === 'csv') chunk += csvLine(item);
        else {
          chunk += `${first ? '\n' : ',\n'}${JSON.stringify(item)}`;
          first = false;
        }
      }
      await write(chunk);
      const last = rows[rows.length - 1];
      after = { createdAt: Number(last.created_at), id: last.id };
      if (rows.length < PAGE_SIZE) break;
    }
    if (format === 'json') await write(first ? ']' : '\n]\n');
    download.end();
  }

  private page(from: number, to: number, after?: { createdAt: number; id: string }): Promise<EventRow[]> {
    const params: unknown[] = [from, to];
    let keyset = '';
    if (after) {
      params.push(after.createdAt, after.id);
      keyset = ' AND (e.created_at > $3 OR (e.created_at = $3 AND e.id > $4))';
    }
    return this.dataSource.query(
      portableSql(
        this.dataSource,
        `SELECT e.id, e.created_at, e.request_id, e.agent_id, e.vertical, e.provider, e.model, e.channel, e.status,
                e.error_code, e.error_message, e.prompt_tokens, e.completion_tokens, e.cost_usd, e.latency_ms, e.ttft_ms,
                e.language, f.vote
           FROM usage_events e LEFT JOIN reply_feedback f ON f.reply_id = e.id
          WHERE e.created_at >= $1 AND e.created_at <= $2${keyset}
          ORDER BY e.created_at, e.id
          LIMIT ${PAGE_SIZE}`,
      ),
      params,
    );
  }
}
