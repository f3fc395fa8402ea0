import { DEFAULT_ANALYTICS_WINDOW, type AnalyticsWindow } from '@shared/contracts/analytics';
import { Download, RefreshCw } from 'lucide-react';
import { useId, useState, type ReactNode } from 'react';
import { BudgetLines } from '../budgets';
import { WidgetRequests } from '../widgets';
import { exportUrl } from './api/analytics-api';
import { AgentPerformanceTable } from './components/AgentPerformanceTable';
import { CostBreakdown } from './components/CostBreakdown';
import { RecentErrors } from './components/RecentErrors';
import { SummaryCards } from './components/SummaryCards';
import { UsageTrendsChart } from './components/UsageTrendsChart';
import { ChannelBars, VerticalBars } from './components/VerticalBars';
import { ANALYTICS_QUERY_KEY, useAnalytics } from './hooks/useAnalytics';
import { connectAdminFeed, useAnalyticsLive, type LiveFeed } from './hooks/useAnalyticsLive';
import { ANALYTICS } from './strings';
import './analytics.css';

function Panel({ title, id, children, className }: { title: string; id: string; children: ReactNode; className?: string }) {
  return (
    <section className={`analytics-panel${className ? ` ${className}` : ''}`} aria-labelledby={id}>
      <h3 id={id} className="analytics-panel-title">
        {title}
      </h3>
      {children}
    </section>
  );
}

export interface AnalyticsTabProps {
  /** Opens the live feed (the /admin namespace); tests hand in their own. */
  connectLive?: () => LiveFeed;
}

/**
 * The Analytics tab 'LLM Usage Analytics': time range (default
 * 24 hours) and Refresh, four summary cards, hourly trends, requests by vertical, agent
 * performance, cost by model, recent errors and the exports. Figures reload by themselves when
 * the server announces new usage on the /admin socket.
 */
export function AnalyticsTab({ connectLive = connectAdminFeed }: AnalyticsTabProps) {
  const ids = useId();
  const [hours, setHours] = useState<AnalyticsWindow>(DEFAULT_ANALYTICS_WINDOW);
  const { data, isLoading, isFetching, isError, refetch } = useAnalytics(hours);
  const live = useAnalyticsLive(connectLive);

  return (
    <div className="analytics" aria-busy={isFetching}>
      <header className="analytics-header">
        <h2 className="analytics-title">{ANALYTICS.title}</h2>
        <div className="analytics-controls">
          {live && (
            <span className="analytics-live" title={ANALYTICS.liveTitle}>
              <span className="analytics-live-dot" aria-hidden="true" />
              {ANALYTICS.live}
            </span>
          )}
          <label className="analytics-range">
            <span className="sr-only">{ANALYTICS.rangeLabel}</span>
            <select value={hours} onChange={(event) => setHours(Number(event.target.value) as AnalyticsWindow)} aria-label={ANALYTICS.rangeLabel}>
              {ANALYTICS.ranges.map((range) => (
                <option key={range.hours} value={range.hours}>
                  {range.label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="analytics-button" onClick={() => void refetch()} disabled={isFetching} aria-busy={isFetching}>
            <RefreshCw size={16} aria-hidden="true" className={isFetching ? 'is-spinning' : undefined} />
            {ANALYTICS.refresh}
          </button>
          <a className="analytics-button" href={exportUrl('json', hours)} download>
            <Download size={16} aria-hidden="true" />
            {ANALYTICS.exportJson}
          </a>
          <a className="analytics-button" href={exportUrl('csv', hours)} download>
            <Download size={16} aria-hidden="true" />
            {ANALYTICS.exportCsv}
          </a>
        </div>
      </header>

      {isLoading && (
        <p className="analytics-loading" role="status">
          <RefreshCw size={18} aria-hidden="true" className="is-spinning" />
          {ANALYTICS.loading}
        </p>
      )}
      {isError && !isFetching && (
        <p className="analytics-error" role="alert">
          {ANALYTICS.loadFailed}
        </p>
      )}

      {data && (
        <>
          <SummaryCards system={data.system} performance={data.performance} />
          <Panel title={ANALYTICS.trends.title} id={`${ids}-trends`}>
            <UsageTrendsChart hourly={data.system.hourly} />
          </Panel>
          <div className="analytics-grid">
            <Panel title={ANALYTICS.verticals.title} id={`${ids}-verticals`}>
              <VerticalBars requestsByVertical={data.system.requestsByVertical} />
            </Panel>
            <Panel title={ANALYTICS.channels.title} id={`${ids}-channels`}>
              <ChannelBars requestsByChannel={data.system.requestsByChannel} />
            </Panel>
            <Panel title={ANALYTICS.costs.title} id={`${ids}-costs`}>
              <CostBreakdown rows={data.costs} />
              <BudgetLines queryKey={[...ANALYTICS_QUERY_KEY, 'budgets']} />
            </Panel>
          </div>
          <Panel title={ANALYTICS.agents.title} id={`${ids}-agents`}>
            <AgentPerformanceTable rows={data.agents} labelledBy={`${ids}-agents`} />
          </Panel>
          <Panel title="Requests per widget" id={`${ids}-widgets`}>
            <WidgetRequests labelledBy={`${ids}-widgets`} />
          </Panel>
          <Panel title={ANALYTICS.errors.title} id={`${ids}-errors`}>
            <RecentErrors errors={data.system.recentErrors} />
          </Panel>
        </>
      )}
    </div>
  );
}

export default AnalyticsTab;
