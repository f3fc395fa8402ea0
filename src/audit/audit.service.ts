/**
 * The audit log: one append-only table, written only here. The interceptor (audit.interceptor.ts)
 * records every state-changing admin request; sign-in events come through SignInAuditService;
 * other events a feature needs (a TOTP enrolled, an API key used) call `record` directly:
 *
 *   await audit.record({ action: 'totp.enable', actor: memberActor(user), target: { kind: 'member', id: user.id, title: user.email } });
 *
 * The request's IP, user agent and id are added from the request in progress (audit-context.ts).
 * Nothing can edit or delete an entry (no route does, and a trigger refuses UPDATE); entries older
 * than the retention (GET|PUT /api/audit/settings, default 365 days) are deleted by a daily job
 * on the job port (BullMQ with REDIS_URL, so one server runs each day's purge; in process
 * otherwise), the first a minute after start.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Brackets, DataSource, Repository, SelectQueryBuilder } from 'typeorm';
import { csvField, startDownload } from '../common/download';
import { Setting } from '../database/setting.entity';
import { changedRows } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { describeError } from '../jobs/in-process-job-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import type { ExportFormat } from '../shared/contracts/analytics';
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_RETENTION_DAYS,
  type AuditActorKind,
  type AuditChange,
  type AuditEntry,
  type AuditFilters,
  type AuditListQuery,
  type AuditPage,
  type AuditSettings,
} from '../shared/contracts/audit';
import { currentOrigin, type RequestOrigin } from './audit-context';
import { AuditEntryRow } from './audit-entry.entity';
import { AuditTargets } from './audit-targets';

export const AUDIT_PURGE_JOB = 'audit-purge';
const PURGE_EVERY_MS = 24 * 3_600_000;
const FIRST_PURGE_DELAY_MS = 60_000;
const PURGE_BATCH = 1000;
const EXPORT_PAGE = 1000;
const DAY_MS = 86_400_000;
const SETTINGS_KEY = 'audit.settings';
/** The distinct actions and target kinds offered as filters: a bound, not an expected size. */
const FACET_LIMIT = 200;

export interface AuditActor {
  kind: AuditActorKind;
  id?: string | null;
  email?: string | null;
  name?: string | null;
  role?: string | null;
}

export interface AuditTargetRef {
  kind: string;
  id?: string | null;
  title?: string | null;
}

export interface NewAuditEntry {
  action: string;
  actor: AuditActor;
  target?: AuditTargetRef | null;
  changes?: AuditChange[];
  /** Default: the request in progress. */
  origin?: RequestOrigin;
}

/** The actor for a member of the console. */
export function memberActor(user: { id: string; email: string; name: string; role: string }): AuditActor {
  return { kind: 'member', id: user.id, email: user.email, name: user.name || null, role: user.role };
}

const cut = (text: string | null | undefined, max: number) => (text === null || text === undefined ? null : text.slice(0, max));

function toEntry(row: AuditEntryRow): AuditEntry {
  let changes: AuditChange[] = [];
  try {
    changes = row.changes ? (JSON.parse(row.changes) as AuditChange[]) : [];
  } catch {
    changes = [];
  }
  return {
    id: row.id,
    at: new Date(row.createdAt).toISOString(),
    actor: { kind: row.actorKind, id: row.actorId, email: row.actorEmail, name: row.actorName, role: row.actorRole },
    action: row.action,
    target: row.targetKind ? { kind: row.targetKind, id: row.targetId, title: row.targetTitle } : null,
    changes,
    ip: row.ip,
    userAgent: row.userAgent,
    requestId: row.requestId,
  };
}

function csvLine(entry: AuditEntry): string {
  const values: Record<(typeof AUDIT_CSV_COLUMNS)[number], unknown> = {
    at: entry.at,
    actor_kind: entry.actor.kind,
    actor_id: entry.actor.id,
    actor_email: entry.actor.email,
    actor_name: entry.actor.name,
    actor_role: entry.actor.role,
    action: entry.action,
    target_kind: entry.target?.kind,
    target_id: entry.target?.id,
    target_title: entry.target?.title,
    changes: entry.changes.length ? JSON.stringify(entry.changes) : '',
    ip: entry.ip,
    user_agent: entry.userAgent,
    request_id: entry.requestId,
  };
  return `${AUDIT_CSV_COLUMNS.map((column) => csvField(values[column])).join(',')}\r\n`;
}

/** `%` and `_` typed by a person are literal characters in a LIKE pattern. */
function likeText(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

@Injectable()
export class AuditService implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Audit');

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(AuditEntryRow) private readonly entries: Repository<AuditEntryRow>,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    targets: AuditTargets,
  ) {
    targets.register('audit-settings', { snapshot: async () => ({ title: 'Audit log retention', fields: { ...(await this.getSettings()) } }) });
  }

  onModuleInit(): void {
    this.jobs.register(AUDIT_PURGE_JOB, async () => {
      await this.purge();
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.jobs.repeat(AUDIT_PURGE_JOB, PURGE_EVERY_MS, {});
      await this.jobs.enqueue(AUDIT_PURGE_JOB, {}, { delayMs: FIRST_PURGE_DELAY_MS, jobId: 'audit-purge-at-start' });
    } catch (error) {
      this.logger.warn(`Could not schedule the audit purge: ${describeError(error)}`);
    }
  }

  /** Appends an entry (with the current request's origin unless one is given). */
  async record(entry: NewAuditEntry): Promise<void> {
    const origin = entry.origin ?? currentOrigin();
    const row: AuditEntryRow = {
      id: randomUUID(),
      createdAt: Date.now(),
      actorKind: entry.actor.kind,
      actorId: cut(entry.actor.id, 64),
      actorEmail: cut(entry.actor.email, 254),
      actorName: cut(entry.actor.name, 100),
      actorRole: cut(entry.actor.role, 10),
      action: entry.action.slice(0, 60),
      targetKind: cut(entry.target?.kind, 30),
      targetId: cut(entry.target?.id, 200),
      targetTitle: cut(entry.target?.title, 200),
      changes: entry.changes && entry.changes.length > 0 ? JSON.stringify(entry.changes) : null,
      ip: cut(origin.ip, 64),
      userAgent: cut(origin.userAgent, 300),
      requestId: cut(origin.requestId, 100),
    };
    await queuedWrite(this.dataSource, () => this.entries.insert(row));
  }

  /** A page of entries, newest first, with the actions and target kinds there are to filter by. */
  async list(query: AuditListQuery): Promise<AuditPage> {
    const filtered = this.filtered(query);
    const [rows, total, actions, kinds] = await Promise.all([
      filtered
        .clone()
        .orderBy('e.created_at', 'DESC')
        .addOrderBy('e.id', 'DESC')
        .skip((query.page - 1) * query.pageSize)
        .take(query.pageSize)
        .getMany(),
      filtered.clone().getCount(),
      this.entries.createQueryBuilder('e').select('DISTINCT e.action', 'value').orderBy('value').limit(FACET_LIMIT).getRawMany<{ value: string }>(),
      this.entries
        .createQueryBuilder('e')
        .select('DISTINCT e.target_kind', 'value')
        .where('e.target_kind IS NOT NULL')
        .orderBy('value')
        .limit(FACET_LIMIT)
        .getRawMany<{ value: string }>(),
    ]);
    return { entries: rows.map(toEntry), total, page: query.page, pageSize: query.pageSize, actions: actions.map((a) => a.value), targetKinds: kinds.map((k) => k.value) };
  }

  /** Streams every entry the filters match, oldest first, as JSON (an array) or CSV. */
  async export(filters: AuditFilters, format: ExportFormat, res: Response): Promise<void> {
    const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
    const download = startDownload(res, {
      contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      fileName: `audit-log-${stamp}.${format}`,
    });
    await download.write(format === 'csv' ? `${AUDIT_CSV_COLUMNS.join(',')}\r\n` : '[');
    let first = true;
    let after: { createdAt: number; id: string } | undefined;
    while (!download.closed) {
      const query = this.filtered(filters).orderBy('e.created_at', 'ASC').addOrderBy('e.id', 'ASC').take(EXPORT_PAGE);
      if (after) query.andWhere('(e.created_at > :afterAt OR (e.created_at = :afterAt AND e.id > :afterId))', { afterAt: after.createdAt, afterId: after.id });
      const rows = await query.getMany();
      let chunk = '';
      for (const row of rows) {
        const entry = toEntry(row);
        if (format === 'csv') chunk += csvLine(entry);
        else {
          chunk += `${first ? '\n' : ',\n'}${JSON.stringify(entry)}`;
          first = false;
        }
      }
      if (chunk) await download.write(chunk);
      if (rows.length < EXPORT_PAGE) break;
      const last = rows[rows.length - 1];
      after = { createdAt: last.createdAt, id: last.id };
    }
    if (format === 'json') await download.write(first ? ']' : '\n]\n');
    download.end();
  }

  async getSettings(): Promise<AuditSettings> {
    const row = await this.settings.findOneBy({ key: SETTINGS_KEY });
    try {
      const stored = row ? (JSON.parse(row.value) as Partial<AuditSettings>) : {};
      const days = Number(stored.retentionDays);
      return { retentionDays: Number.isInteger(days) && days >= AUDIT_RETENTION_DAYS.min && days <= AUDIT_RETENTION_DAYS.max ? days : AUDIT_RETENTION_DAYS.default };
    } catch {
      return { retentionDays: AUDIT_RETENTION_DAYS.default };
    }
  }

  async updateSettings(update: AuditSettings): Promise<AuditSettings> {
    const value = JSON.stringify({ retentionDays: update.retentionDays });
    await queuedWrite(this.dataSource, () => this.settings.upsert({ key: SETTINGS_KEY, value, updatedAt: Date.now() }, ['key']));
    return this.getSettings();
  }

  /** Deletes the entries older than the retention; returns how many. */
  async purge(now = Date.now()): Promise<number> {
    const { retentionDays } = await this.getSettings();
    const before = now - retentionDays * DAY_MS;
    let total = 0;
    for (;;) {
      const deleted = await queuedWrite(this.dataSource, () =>
        changedRows(this.dataSource, `DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE created_at < $1 ORDER BY created_at LIMIT ${PURGE_BATCH})`, [before]),
      );
      total += deleted;
      if (deleted < PURGE_BATCH) break;
    }
    if (total > 0) this.logger.log(`Deleted ${total} audit entries older than ${retentionDays} days`);
    return total;
  }

  private filtered(filters: AuditFilters): SelectQueryBuilder<AuditEntryRow> {
    const query = this.entries.createQueryBuilder('e').where('1 = 1');
    if (filters.member) query.andWhere('(e.actor_id = :member OR LOWER(e.actor_email) = :memberEmail)', { member: filters.member, memberEmail: filters.member.toLowerCase() });
    if (filters.action) {
      if (filters.action.includes('.') || filters.action.includes(' ')) query.andWhere('e.action = :action', { action: filters.action });
      else query.andWhere('(e.action = :action OR e.action LIKE :actionPrefix)', { action: filters.action, actionPrefix: `${filters.action}.%` });
    }
    if (filters.target) {
      const split = filters.target.indexOf(':');
      if (split < 0) query.andWhere('e.target_kind = :targetKind', { targetKind: filters.target });
      else query.andWhere('e.target_kind = :targetKind AND e.target_id = :targetId', { targetKind: filters.target.slice(0, split), targetId: filters.target.slice(split + 1) });
    }
    if (filters.search) {
      const pattern = likeText(filters.search);
      query.andWhere(
        new Brackets((q) => {
          q.where("LOWER(COALESCE(e.target_title, '')) LIKE :pattern ESCAPE '\\'", { pattern }).orWhere("LOWER(COALESCE(e.target_id, '')) LIKE :pattern ESCAPE '\\'", { pattern });
        }),
      );
    }
    if (filters.from !== undefined) query.andWhere('e.created_at >= :from', { from: filters.from });
    if (filters.to !== undefined) query.andWhere('e.created_at < :to', { to: filters.to });
    return query;
  }
}
