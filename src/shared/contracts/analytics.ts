/**
 * The analytics API, the reply feedback call and the
 * `analytics:update` push, shared by the server and the admin console.
 *
 * Every figure covers the sliding window [now - hours, now]: complete hours come from the hourly
 * rollups, the partial hours at both ends from the raw usage events, so the figures are exact
 * and include the latest requests.
 */
import { z } from 'zod';
import { text } from './rules';

/** The time ranges of the Analytics tab, in hours. Anything else is refused with 400. */
export const ANALYTICS_WINDOWS = [1, 24, 168, 720] as const;
export type AnalyticsWindow = (typeof ANALYTICS_WINDOWS)[number];
export const DEFAULT_ANALYTICS_WINDOW: AnalyticsWindow = 24;

export function isAnalyticsWindow(hours: number): hours is AnalyticsWindow {
  return (ANALYTICS_WINDOWS as readonly number[]).includes(hours);
}

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A query-string value; a parameter given twice arrives as a list and is refused. */
function once(label: string, message: string) {
  return (issue: { input?: unknown }) => (Array.isArray(issue.input) ? `Give ${label} only once` : message);
}

const WINDOW_TEXT = ['1', '24', '168', '720', ''] as const;
const hours = z
  .enum(WINDOW_TEXT, { error: once('the time range (hours)', `The time range (hours) must be one of ${ANALYTICS_WINDOWS.join(', ')}`) })
  .optional()
  .transform((value): AnalyticsWindow => (value ? (Number(value) as AnalyticsWindow) : DEFAULT_ANALYTICS_WINDOW))
  .meta({ description: `Hours before now: ${ANALYTICS_WINDOWS.join(', ')} (empty or absent: ${DEFAULT_ANALYTICS_WINDOW}).` });

/** ?hours */
export const AnalyticsWindowQuerySchema = z.object({ hours }).meta({ id: 'AnalyticsWindowQuery' });
export type AnalyticsWindowQuery = z.input<typeof AnalyticsWindowQuerySchema>;

/** GET /api/analytics/agents ?hours&agentId */
export const AgentAnalyticsQuerySchema = z
  .object({
    hours,
    agentId: z
      .string({ error: once('the agent id', 'The agent id must be text') })
      .pipe(text('The agent id', 100))
      .optional()
      .transform((value) => value || undefined),
  })
  .meta({ id: 'AgentAnalyticsQuery' });

/** GET /api/analytics/export ?hours&format */
export const ExportQuerySchema = z
  .object({
    hours,
    format: z
      .enum(['json', 'csv', ''], { error: once('the format', `The format must be one of ${EXPORT_FORMATS.join(', ')}`) })
      .optional()
      .transform((value): ExportFormat => (value ? value : 'json')),
  })
  .meta({ id: 'ExportQuery' });

/** The window a response covers (ISO timestamps). */
const rangeShape = {
  hours: z.union([z.literal(1), z.literal(24), z.literal(168), z.literal(720)]),
  from: z.string(),
  to: z.string(),
};

/** One clock hour of the window (the first and last may be partial). */
export const HourlyUsagePointSchema = z.object({
  /** ISO timestamp of the start of the clock hour. */
  hour: z.string(),
  requests: z.number(),
  errors: z.number(),
  tokens: z.number(),
  /** US dollars. */
  cost: z.number(),
});
export type HourlyUsagePoint = z.infer<typeof HourlyUsagePointSchema>;

export const RecentErrorSchema = z.object({
  /** The agent's name (its id when the agent is no longer configured). */
  agent: z.string(),
  agentId: z.string(),
  vertical: z.string(),
  /** ISO timestamp. */
  timestamp: z.string(),
  error: z.string(),
  code: z.string().nullable(),
});
export type RecentError = z.infer<typeof RecentErrorSchema>;

/** GET /api/analytics/system `data` (the summary cards plus an hourly series). */
export const SystemAnalyticsSchema = z
  .object({
    ...rangeShape,
    totalRequests: z.number(),
    /** Requests that failed (status error; cancelled requests are not errors). */
    totalErrors: z.number(),
    totalTokensUsed: z.number(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    /** US dollars. */
    totalCost: z.number(),
    /** Vertical id -> requests. */
    requestsByVertical: z.record(z.string(), z.number()),
    /**
     * Channel -> requests: `socket` (the chat page and the widget), `rest` and `sse` (/interact),
     * `a2a` (A2A agents), `mcp` (MCP tools).
     */
    requestsByChannel: z.record(z.string(), z.number()),
    /** The newest errors of the window, newest first (at most 10). */
    recentErrors: z.array(RecentErrorSchema),
    hourly: z.array(HourlyUsagePointSchema),
    /**
     * Successful replies answered from the knowledge base (a passage cleared the relevance floor)
     * / successful replies for which this was recorded, 0-1; null when there were none.
     */
    answeredRate: z.number().nullable(),
    /** Visitors' conversations with a message in the window (kept conversations). */
    conversations: z.number(),
    /** Messages (questions and replies) per conversation of the window, all their messages counted; null when there were none. */
    messagesPerConversation: z.number().nullable(),
    /** Requests refused by a chat rate limit or a budget (not in totalRequests): in all, and by rule (ip, visitor, socket, key, concurrent, sockets, budget, visitor_tokens). */
    limitedRequests: z.object({ total: z.number(), byRule: z.record(z.string(), z.number()) }),
  })
  .meta({ id: 'SystemAnalytics' });
export type SystemAnalytics = z.infer<typeof SystemAnalyticsSchema>;
export type AnalyticsRange = Pick<SystemAnalytics, 'hours' | 'from' | 'to'>;

/** GET /api/analytics/agents `data` items (a row of the Agent Performance table, with feedback). */
export const AgentPerformanceRowSchema = z
  .object({
    agentId: z.string(),
    agentName: z.string(),
    totalRequests: z.number(),
    /** Failed requests / requests, 0-1. */
    errorRate: z.number(),
    /** Mean latency of successful replies in ms; null when there were none. */
    averageResponseTime: z.number().nullable(),
    totalCost: z.number(),
    totalTokensUsed: z.number(),
    /** Thumbs up / (up + down) for the agent's replies of the window; null without votes. */
    helpfulRate: z.number().nullable(),
    /** "Answered from knowledge": see SystemAnalytics.answeredRate; null when there were none. */
    answeredRate: z.number().nullable(),
    feedback: z.object({ up: z.number(), down: z.number() }),
  })
  .meta({ id: 'AgentPerformanceRow' });
export type AgentPerformanceRow = z.infer<typeof AgentPerformanceRowSchema>;

/** GET /api/analytics/costs `data` items (a row of the cost-by-model table). */
export const ModelCostRowSchema = z
  .object({ provider: z.string(), model: z.string(), requestCount: z.number(), totalCost: z.number(), totalTokens: z.number() })
  .meta({ id: 'ModelCostRow' });
export type ModelCostRow = z.infer<typeof ModelCostRowSchema>;

/**
 * Latency figures of successful replies. Percentiles are nearest-rank over a latency histogram:
 * exact below 100 ms, within 1.5% above.
 */
export const LatencySummarySchema = z.object({
  totalRequests: z.number(),
  successfulRequests: z.number(),
  errorRate: z.number(),
  averageResponseTime: z.number().nullable(),
  p50ResponseTime: z.number().nullable(),
  p95ResponseTime: z.number().nullable(),
  averageTimeToFirstToken: z.number().nullable(),
  p50TimeToFirstToken: z.number().nullable(),
  p95TimeToFirstToken: z.number().nullable(),
});
export type LatencySummary = z.infer<typeof LatencySummarySchema>;

export const HourlyPerformancePointSchema = z.object({
  hour: z.string(),
  requests: z.number(),
  successfulRequests: z.number(),
  averageResponseTime: z.number().nullable(),
  p95ResponseTime: z.number().nullable(),
  averageTimeToFirstToken: z.number().nullable(),
});
export type HourlyPerformancePoint = z.infer<typeof HourlyPerformancePointSchema>;

/** GET /api/analytics/performance `data`. */
export const PerformanceAnalyticsSchema = z
  .object({ ...rangeShape, summary: LatencySummarySchema, hourly: z.array(HourlyPerformancePointSchema) })
  .meta({ id: 'PerformanceAnalytics' });
export type PerformanceAnalytics = z.infer<typeof PerformanceAnalyticsSchema>;

export const FeedbackVoteSchema = z.enum(['up', 'down']);
export type FeedbackVote = z.infer<typeof FeedbackVoteSchema>;

/** One usage event as exported (GET /api/analytics/export); the CSV has the same columns. */
export const UsageExportRowSchema = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    requestId: z.string(),
    agentId: z.string(),
    vertical: z.string(),
    provider: z.string(),
    model: z.string(),
    channel: z.string(),
    status: z.string(),
    errorCode: z.string().nullable(),
    errorMessage: z.string().nullable(),
    promptTokens: z.number(),
    completionTokens: z.number(),
    totalTokens: z.number(),
    costUsd: z.number(),
    latencyMs: z.number(),
    ttftMs: z.number().nullable(),
    language: z.string().nullable(),
    feedback: FeedbackVoteSchema.nullable(),
  })
  .meta({ id: 'UsageExportRow' });
export type UsageExportRow = z.infer<typeof UsageExportRowSchema>;

export const EXPORT_COLUMNS = Object.keys(UsageExportRowSchema.shape) as (keyof UsageExportRow)[];

const REPLY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** POST /api/feedback body: one vote per reply (`replyId` from the reply data); null withdraws it. */
export const FeedbackRequestSchema = z
  .object(
    {
      replyId: z
        .string({ error: 'The reply id is required' })
        .regex(REPLY_ID, 'The reply id must be the replyId of a reply')
        .transform((id) => id.toLowerCase()),
      vote: z
        .enum(['up', 'down'], { error: 'The vote must be "up", "down" or null' })
        .nullable()
        .meta({ description: "'up', 'down', or null to withdraw the vote." }),
    },
    { error: 'Send the vote as a JSON object.' },
  )
  .meta({ id: 'FeedbackRequest' });
export type FeedbackRequest = z.output<typeof FeedbackRequestSchema>;

/** POST /api/feedback `data`. */
export const FeedbackResultSchema = z.object({ replyId: z.string(), vote: FeedbackVoteSchema.nullable() }).meta({ id: 'FeedbackResult' });
export type FeedbackResult = z.infer<typeof FeedbackResultSchema>;

/**
 * `analytics:update` on the /admin namespace: new usage was recorded (or a reply was rated), so
 * open dashboards reload. Sent at most once a second across all servers, only while traffic flows.
 */
export const AnalyticsUpdateSchema = z.object({
  /** ISO timestamp of the push. */
  at: z.string(),
  /** Usage events written since the previous push of the sending server. */
  events: z.number(),
  /** Feedback votes changed since the previous push of the sending server. */
  votes: z.number(),
});
export type AnalyticsUpdate = z.infer<typeof AnalyticsUpdateSchema>;
