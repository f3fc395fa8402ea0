/**
 * The analytics API (product-spec section 7 "Analytics"), the reply feedback call and the
 * `analytics:update` push, shared by the server and the admin console.
 *
 * Every figure covers the sliding window [now - hours, now]: complete hours come from the hourly
 * rollups, the partial hours at both ends from the raw usage events, so the figures are exact
 * and include the latest requests.
 */

/** The time ranges of the Analytics tab, in hours. Anything else is refused with 400. */
export const ANALYTICS_WINDOWS = [1, 24, 168, 720] as const;
export type AnalyticsWindow = (typeof ANALYTICS_WINDOWS)[number];
export const DEFAULT_ANALYTICS_WINDOW: AnalyticsWindow = 24;

export function isAnalyticsWindow(hours: number): hours is AnalyticsWindow {
  return (ANALYTICS_WINDOWS as readonly number[]).includes(hours);
}

export type ExportFormat = 'json' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv'];

/** The window a response covers. */
export interface AnalyticsRange {
  hours: AnalyticsWindow;
  /** ISO timestamps. */
  from: string;
  to: string;
}

/** One clock hour of the window (the first and last may be partial). */
export interface HourlyUsagePoint {
  /** ISO timestamp of the start of the clock hour. */
  hour: string;
  requests: number;
  errors: number;
  tokens: number;
  /** US dollars. */
  cost: number;
}

export interface RecentError {
  /** The agent's name (its id when the agent is no longer configured). */
  agent: string;
  agentId: string;
  vertical: string;
  /** ISO timestamp. */
  timestamp: string;
  error: string;
  code: string | null;
}

/** GET /api/analytics/system `data` (the spec's "Analytics summary" plus an hourly series). */
export interface SystemAnalytics extends AnalyticsRange {
  totalRequests: number;
  /** Requests that failed (status error; cancelled requests are not errors). */
  totalErrors: number;
  totalTokensUsed: number;
  promptTokens: number;
  completionTokens: number;
  /** US dollars. */
  totalCost: number;
  /** Vertical id -> requests. */
  requestsByVertical: Record<string, number>;
  /** The newest errors of the window, newest first (at most 10). */
  recentErrors: RecentError[];
  hourly: HourlyUsagePoint[];
  /**
   * Successful replies answered from the knowledge base (a passage cleared the relevance floor)
   * / successful replies for which this was recorded, 0-1; null when there were none.
   */
  answeredRate: number | null;
}

/** GET /api/analytics/agents `data` items (the spec's "Agent performance row" plus feedback). */
export interface AgentPerformanceRow {
  agentId: string;
  agentName: string;
  totalRequests: number;
  /** Failed requests / requests, 0-1. */
  errorRate: number;
  /** Mean latency of successful replies in ms; null when there were none. */
  averageResponseTime: number | null;
  totalCost: number;
  totalTokensUsed: number;
  /** Thumbs up / (up + down) for the agent's replies of the window; null without votes. */
  helpfulRate: number | null;
  /** "Answered from knowledge": see SystemAnalytics.answeredRate; null when there were none. */
  answeredRate: number | null;
  feedback: { up: number; down: number };
}

/** GET /api/analytics/costs `data` items (the spec's "Model cost row"). */
export interface ModelCostRow {
  provider: string;
  model: string;
  requestCount: number;
  totalCost: number;
  totalTokens: number;
}

/**
 * Latency figures of successful replies. Percentiles are nearest-rank over a latency histogram:
 * exact below 100 ms, within 1.5% above.
 */
export interface LatencySummary {
  totalRequests: number;
  successfulRequests: number;
  errorRate: number;
  averageResponseTime: number | null;
  p50ResponseTime: number | null;
  p95ResponseTime: number | null;
  averageTimeToFirstToken: number | null;
  p50TimeToFirstToken: number | null;
  p95TimeToFirstToken: number | null;
}

export interface HourlyPerformancePoint {
  hour: string;
  requests: number;
  successfulRequests: number;
  averageResponseTime: number | null;
  p95ResponseTime: number | null;
  averageTimeToFirstToken: number | null;
}

/** GET /api/analytics/performance `data`. */
export interface PerformanceAnalytics extends AnalyticsRange {
  summary: LatencySummary;
  hourly: HourlyPerformancePoint[];
}

/** One usage event as exported (GET /api/analytics/export); the CSV has the same columns. */
export interface UsageExportRow {
  id: string;
  timestamp: string;
  requestId: string;
  agentId: string;
  vertical: string;
  provider: string;
  model: string;
  channel: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
  latencyMs: number;
  ttftMs: number | null;
  language: string | null;
  feedback: FeedbackVote | null;
}

export const EXPORT_COLUMNS: readonly (keyof UsageExportRow)[] = [
  'id',
  'timestamp',
  'requestId',
  'agentId',
  'vertical',
  'provider',
  'model',
  'channel',
  'status',
  'errorCode',
  'errorMessage',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'costUsd',
  'latencyMs',
  'ttftMs',
  'language',
  'feedback',
];

export type FeedbackVote = 'up' | 'down';

/** POST /api/feedback body: one vote per reply (`replyId` from the reply data); null withdraws it. */
export interface FeedbackRequest {
  replyId: string;
  vote: FeedbackVote | null;
}

/** POST /api/feedback `data`. */
export interface FeedbackResult {
  replyId: string;
  vote: FeedbackVote | null;
}

/**
 * `analytics:update` on the /admin namespace: new usage was recorded (or a reply was rated), so
 * open dashboards reload. Sent at most once a second across all servers, only while traffic flows.
 */
export interface AnalyticsUpdate {
  /** ISO timestamp of the push. */
  at: string;
  /** Usage events written since the previous push of the sending server. */
  events: number;
  /** Feedback votes changed since the previous push of the sending server. */
  votes: number;
}
