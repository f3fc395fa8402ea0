/**
 * Cost and abuse control, shared by the server (src/limits) and the console: the chat
 * rate limits and the monthly budgets as kept in the global settings, what a PUT may change, and
 * GET /api/budgets (each budget's spend this month, its forecast, and this month's alerts).
 */
import { z } from 'zod';
import { ENABLED_VERTICAL_IDS } from '../catalog/verticals';
import { decimal, integer, oneOf, text } from './rules';

// --- chat rate limits ----------------------------------------------------------------------------

/**
 * Chat rate limits. Each "per minute / per hour" is a sliding window (at most that many messages
 * in any 60 s / 3600 s). `concurrentPerVisitor`: replies one visitor may have streaming at once
 * (every server together); `socketsPerIp`: chat sockets one client IP may hold open.
 */
export const CHAT_LIMIT_DEFAULTS = Object.freeze({
  /** A client IP (an office or a mobile carrier NAT may put many visitors behind one). */
  ipPerMinute: 60,
  ipPerHour: 600,
  /** One visitor (the `sa_visitor` cookie; a client without it counts by IP only). */
  visitorPerMinute: 10,
  visitorPerHour: 100,
  /** One socket. */
  socketPerMinute: 10,
  /** One API key (X-API-Key or Authorization: Bearer) on /interact. */
  keyPerMinute: 120,
  keyPerHour: 2000,
  concurrentPerVisitor: 2,
  socketsPerIp: 50,
});

export const CHAT_LIMIT_FIELDS = Object.freeze({
  ipPerMinute: { label: 'Messages per minute per IP', max: 100_000 },
  ipPerHour: { label: 'Messages per hour per IP', max: 1_000_000 },
  visitorPerMinute: { label: 'Messages per minute per visitor', max: 100_000 },
  visitorPerHour: { label: 'Messages per hour per visitor', max: 1_000_000 },
  socketPerMinute: { label: 'Messages per minute per socket', max: 100_000 },
  keyPerMinute: { label: 'Messages per minute per API key', max: 100_000 },
  keyPerHour: { label: 'Messages per hour per API key', max: 1_000_000 },
  concurrentPerVisitor: { label: 'Concurrent replies per visitor', max: 100 },
  socketsPerIp: { label: 'Open sockets per IP', max: 100_000 },
} as const);
export type ChatLimitField = keyof typeof CHAT_LIMIT_FIELDS;
export const CHAT_LIMIT_KEYS = Object.keys(CHAT_LIMIT_FIELDS) as ChatLimitField[];

export const ChatLimitsSchema = z
  .object(Object.fromEntries(CHAT_LIMIT_KEYS.map((k) => [k, z.number().int()])) as Record<ChatLimitField, z.ZodNumber>)
  .meta({ id: 'ChatLimits' });
export type ChatLimits = z.infer<typeof ChatLimitsSchema>;

/** PUT: any subset of the limits, each a whole number from 1 up. */
export const ChatLimitsUpdateSchema = z
  .object(
    Object.fromEntries(CHAT_LIMIT_KEYS.map((k) => [k, integer(CHAT_LIMIT_FIELDS[k].label, 1, CHAT_LIMIT_FIELDS[k].max).optional()])) as Record<
      ChatLimitField,
      z.ZodOptional<z.ZodNumber>
    >,
    { error: 'The chat limits must be an object' },
  )
  .meta({ id: 'ChatLimitsUpdate' });

/** Which limit refused a request (counted in Analytics). */
export const LIMIT_RULES = Object.freeze(['ip', 'visitor', 'socket', 'key', 'concurrent', 'sockets', 'budget', 'visitor_tokens'] as const);
export type LimitRule = (typeof LIMIT_RULES)[number];

// --- budgets -----------------------------------------------------------------------------------

export const CAP_BEHAVIOURS = Object.freeze(['refuse', 'offline'] as const);
export type CapBehaviour = (typeof CAP_BEHAVIOURS)[number];

export const BUDGET_LIMITS = Object.freeze({ maxUsd: 10_000_000, maxBudgets: 50, maxVisitorDailyTokens: 100_000_000 });

/**
 * A budget's scope: `global` (every chat), `vertical:<id>` or `agent:<agentId>`. One budget per
 * scope; the scope is its id.
 */
export const BUDGET_SCOPE_PATTERN = new RegExp(`^(global|vertical:(${ENABLED_VERTICAL_IDS.join('|')})|agent:[a-z0-9]+(-[a-z0-9]+)*)$`);

export const BudgetSchema = z
  .object({
    scope: text('Budget scope', 80, { required: true }).regex(
      BUDGET_SCOPE_PATTERN,
      `Budget scope must be global, vertical:<one of ${ENABLED_VERTICAL_IDS.join(', ')}> or agent:<agent id>`,
    ),
    /** US dollars per calendar month (UTC). */
    monthlyUsd: decimal('Monthly limit (USD)', 0, BUDGET_LIMITS.maxUsd),
    /** The soft threshold, percent of the limit: one alert mail to every admin and a console banner. */
    softPercent: integer('Soft threshold (%)', 1, 100).default(80),
    /** At the limit: refuse with a message in the visitor's language, or answer with the offline knowledge responder. */
    onCap: oneOf(CAP_BEHAVIOURS, `At the cap must be one of ${CAP_BEHAVIOURS.join(', ')}`).default('refuse'),
  })
  .meta({ id: 'Budget' });
export type Budget = z.output<typeof BudgetSchema>;
export type BudgetInput = z.input<typeof BudgetSchema>;

export const BudgetSettingsSchema = z
  .object({
    list: z.array(BudgetSchema),
    /** Tokens one visitor may use per UTC day, over every vertical; null: no such limit. */
    visitorDailyTokens: z.number().int().nullable(),
  })
  .meta({ id: 'BudgetSettings' });
export type BudgetSettings = z.output<typeof BudgetSettingsSchema>;

/** PUT: the whole list of budgets (it replaces the stored one) and/or the visitor token limit. */
export const BudgetSettingsUpdateSchema = z
  .object(
    {
      list: z
        .array(BudgetSchema, { error: 'Budgets must be a list' })
        .max(BUDGET_LIMITS.maxBudgets, `At most ${BUDGET_LIMITS.maxBudgets} budgets`)
        .refine((list) => new Set(list.map((b) => b.scope)).size === list.length, 'Each scope may have one budget only')
        .optional(),
      visitorDailyTokens: z
        .union([z.null(), integer('Tokens per visitor per day', 1, BUDGET_LIMITS.maxVisitorDailyTokens)], {
          error: `Tokens per visitor per day must be a whole number from 1 to ${BUDGET_LIMITS.maxVisitorDailyTokens.toLocaleString('en-US')}, or null`,
        })
        .optional(),
    },
    { error: 'The budget settings must be an object' },
  )
  .meta({ id: 'BudgetSettingsUpdate' });

export const BUDGET_DEFAULTS: BudgetSettings = Object.freeze({ list: [], visitorDailyTokens: null }) as BudgetSettings;

export const BudgetStateSchema = z.enum(['ok', 'soft', 'capped']);
export type BudgetState = z.infer<typeof BudgetStateSchema>;

export const BudgetStatusSchema = z
  .object({
    scope: z.string(),
    /** For people: "All chats", "Employee Support", "hr-agent". */
    label: z.string(),
    monthlyUsd: z.number(),
    softPercent: z.number().int(),
    onCap: z.enum(CAP_BEHAVIOURS),
    /** Spent this month (US dollars; finished replies). */
    spentUsd: z.number(),
    /** Held by replies still running (their worst-case cost). */
    heldUsd: z.number(),
    /** At the current rate: spent / elapsed part of the month. */
    forecastUsd: z.number(),
    state: BudgetStateSchema,
  })
  .meta({ id: 'BudgetStatus' });
export type BudgetStatus = z.infer<typeof BudgetStatusSchema>;

export const BudgetAlertSchema = z
  .object({
    scope: z.string(),
    label: z.string(),
    /** 'soft': the soft threshold was crossed; 'cap': the limit was reached. */
    threshold: z.enum(['soft', 'cap']),
    month: z.string(),
    /** ISO 8601. */
    at: z.string(),
    spentUsd: z.number(),
    monthlyUsd: z.number(),
  })
  .meta({ id: 'BudgetAlert' });
export type BudgetAlert = z.infer<typeof BudgetAlertSchema>;

/** GET /api/budgets `data`. */
export const BudgetOverviewSchema = z
  .object({
    /** The calendar month (UTC), `YYYY-MM`. */
    month: z.string(),
    /** How far the month is, 0-1. */
    elapsed: z.number(),
    budgets: z.array(BudgetStatusSchema),
    /** Spend this month of every scope that had any (global, vertical:<id>, agent:<id>). */
    spendByScope: z.record(z.string(), z.number()),
    alerts: z.array(BudgetAlertSchema),
    visitorDailyTokens: z.number().nullable(),
  })
  .meta({ id: 'BudgetOverview' });
export type BudgetOverview = z.infer<typeof BudgetOverviewSchema>;

/** `/admin` socket: spend changed (at most a few times a second) or an alert was raised. */
export const BudgetUpdateEventSchema = z.object({ month: z.string(), alert: BudgetAlertSchema.optional() }).meta({ id: 'BudgetUpdateEvent' });
export type BudgetUpdateEvent = z.infer<typeof BudgetUpdateEventSchema>;

/** The month (UTC) of an instant: `YYYY-MM`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Start and end (exclusive) of a `YYYY-MM` month, epoch ms (UTC). */
export function monthBounds(month: string): { start: number; end: number } {
  const [y, m] = month.split('-').map(Number);
  return { start: Date.UTC(y, m - 1, 1), end: Date.UTC(y, m, 1) };
}
