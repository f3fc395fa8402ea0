/**
 * The audit log (GET /api/audit, its export, and its retention setting): who did what to which
 * target, when, from where, and the field-level before/after. Secrets (API keys, passwords, TOTP
 * secrets, invitation tokens) never appear: a change of one is `{ field, secret: true }`.
 */
import { z } from 'zod';
import { EXPORT_FORMATS, type ExportFormat } from './analytics';
import { PAGE_SIZES, queryDate, queryInt, queryText } from './conversations';
import { body, integer } from './rules';

/** Who acted: a member (console), an API key, the admin command line, the server itself, or nobody known (a failed sign-in). */
export const AUDIT_ACTOR_KINDS = ['member', 'api-key', 'cli', 'system', 'anonymous'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** A JSON value as recorded (long text is cut to TEXT_LIMIT characters). */
export type AuditValue = null | boolean | number | string | AuditValue[] | { [key: string]: AuditValue };
const AuditValueSchema = z.custom<AuditValue>(() => true).meta({ description: 'Any JSON value.' });

/**
 * One changed field: `field` is a path (`llmConfig.model`, `budgets.list[scope=global].monthlyUsd`).
 * `before` absent: the field was added (or the target created); `after` absent: removed (or the
 * target deleted). A secret: only that it changed.
 */
export const AuditChangeSchema = z
  .object({ field: z.string(), before: AuditValueSchema.optional(), after: AuditValueSchema.optional(), secret: z.literal(true).optional() })
  .meta({ id: 'AuditChange' });
export type AuditChange = z.infer<typeof AuditChangeSchema>;

export const AuditEntrySchema = z
  .object({
    id: z.string(),
    /** ISO date-time. */
    at: z.string(),
    actor: z.object({
      kind: z.enum(AUDIT_ACTOR_KINDS),
      id: z.string().nullable(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      role: z.string().nullable(),
    }),
    /** `<target kind>.<verb>` (knowledge.update, member.invite, auth.sign-in, ...), or `<METHOD> <route>` for a route without a name. */
    action: z.string(),
    target: z.object({ kind: z.string(), id: z.string().nullable(), title: z.string().nullable() }).nullable(),
    changes: z.array(AuditChangeSchema),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** GET /api/audit and its export: the filters (all optional, combined with AND). */
const filters = {
  /** A member: their id or email. */
  member: queryText('The member', 254),
  /** An action (`knowledge.update`), or every action of a kind (`knowledge`). */
  action: queryText('The action', 60),
  /** A target kind (`agent`), or a kind and id (`agent:hr-agent`). */
  target: queryText('The target', 240),
  /** Words in the target's title or id. */
  search: queryText('The search', 200),
  from: queryDate('From'),
  to: queryDate('To', true),
};

export const AuditListQuerySchema = z
  .object({
    ...filters,
    page: queryInt('The page', 1, 100_000, 1),
    pageSize: z
      .enum(['10', '20', '50', '100', ''], { error: `The page size must be one of ${PAGE_SIZES.join(', ')}` })
      .optional()
      .transform((v) => (v ? Number(v) : 50)),
  })
  .meta({ id: 'AuditListQuery' });
export type AuditListQuery = z.output<typeof AuditListQuerySchema>;
export type AuditFilters = Pick<AuditListQuery, keyof typeof filters>;

/** GET /api/audit `data`: newest first. `actions` and `targetKinds`: every value the log holds (for the filters). */
export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    actions: z.array(z.string()),
    targetKinds: z.array(z.string()),
  })
  .meta({ id: 'AuditPage' });
export type AuditPage = z.infer<typeof AuditPageSchema>;

export const AuditExportQuerySchema = z
  .object({
    ...filters,
    format: z
      .enum(['json', 'csv', ''], { error: (issue) => (Array.isArray(issue.input) ? 'Give the format only once' : `The format must be one of ${EXPORT_FORMATS.join(', ')}`) })
      .optional()
      .transform((value): ExportFormat => (value ? value : 'json')),
  })
  .meta({ id: 'AuditExportQuery' });
export type AuditExportQuery = z.output<typeof AuditExportQuerySchema>;

/** The export's CSV columns (one row per entry; `changes` as JSON). */
export const AUDIT_CSV_COLUMNS = [
  'at',
  'actor_kind',
  'actor_id',
  'actor_email',
  'actor_name',
  'actor_role',
  'action',
  'target_kind',
  'target_id',
  'target_title',
  'changes',
  'ip',
  'user_agent',
  'request_id',
] as const;

export const AUDIT_RETENTION_DAYS = Object.freeze({ default: 365, min: 30, max: 3650 });

export const AuditSettingsSchema = z.object({ retentionDays: z.number().int() }).meta({ id: 'AuditSettings' });
export type AuditSettings = z.infer<typeof AuditSettingsSchema>;

/** PUT /api/audit/settings (owners). */
export const AuditSettingsUpdateSchema = body({
  retentionDays: integer('Keep audit entries (days)', AUDIT_RETENTION_DAYS.min, AUDIT_RETENTION_DAYS.max),
}).meta({ id: 'AuditSettingsUpdate' });
export type AuditSettingsUpdate = z.input<typeof AuditSettingsUpdateSchema>;
