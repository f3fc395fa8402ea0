/** The analytics API: the dashboard loads the four figures in parallel. */
import type {
  AgentPerformanceRow,
  AnalyticsWindow,
  ExportFormat,
  ModelCostRow,
  PerformanceAnalytics,
  SystemAnalytics,
} from '@shared/contracts/analytics';
import { apiRequest, buildUrl } from '../../../../lib/api';

export interface AnalyticsData {
  system: SystemAnalytics;
  agents: AgentPerformanceRow[];
  costs: ModelCostRow[];
  performance: PerformanceAnalytics;
}

async function data<T>(path: string, hours: AnalyticsWindow, signal?: AbortSignal): Promise<T> {
  return (await apiRequest<{ data: T }>(path, { query: { hours }, signal })).data;
}

export async function fetchAnalytics(hours: AnalyticsWindow, signal?: AbortSignal): Promise<AnalyticsData> {
  const [system, agents, costs, performance] = await Promise.all([
    data<SystemAnalytics>('/api/analytics/system', hours, signal),
    data<AgentPerformanceRow[]>('/api/analytics/agents', hours, signal),
    data<ModelCostRow[]>('/api/analytics/costs', hours, signal),
    data<PerformanceAnalytics>('/api/analytics/performance', hours, signal),
  ]);
  return { system, agents, costs, performance };
}

/** The download address of every event of the window (the browser streams it to a file). */
export function exportUrl(format: ExportFormat, hours: AnalyticsWindow): string {
  return buildUrl('/api/analytics/export', { format, hours });
}
