import type { PerformanceAnalytics, SystemAnalytics } from '@shared/contracts/analytics';
import { Activity, DollarSign, Hash, Timer, type LucideIcon } from 'lucide-react';
import { formatCount, formatDollars, formatMs } from '../format';
import { ANALYTICS } from '../strings';

interface Card {
  label: string;
  value: string;
  icon: LucideIcon;
  tone: string;
}

/** The four summary cards: Total Requests, Tokens Used, Total Cost ($, 2 decimals), Avg Response (rounded ms or '-'). */
export function SummaryCards({ system, performance }: { system: SystemAnalytics; performance: PerformanceAnalytics }) {
  const cards: Card[] = [
    { label: ANALYTICS.cards.totalRequests, value: formatCount(system.totalRequests), icon: Activity, tone: 'blue' },
    { label: ANALYTICS.cards.tokensUsed, value: formatCount(system.totalTokensUsed), icon: Hash, tone: 'violet' },
    { label: ANALYTICS.cards.totalCost, value: formatDollars(system.totalCost), icon: DollarSign, tone: 'green' },
    { label: ANALYTICS.cards.avgResponse, value: formatMs(performance.summary.averageResponseTime), icon: Timer, tone: 'amber' },
  ];
  return (
    <div className="analytics-cards">
      {cards.map(({ label, value, icon: Icon, tone }) => (
        <section key={label} className={`analytics-card tone-${tone}`} role="group" aria-label={label}>
          <span className="analytics-card-icon" aria-hidden="true">
            <Icon size={20} />
          </span>
          <span className="analytics-card-text">
            <span className="analytics-card-label">{label}</span>
            <span className="analytics-card-value">{value}</span>
          </span>
        </section>
      ))}
    </div>
  );
}
