import type { PerformanceAnalytics, SystemAnalytics } from '@shared/contracts/analytics';
import { Activity, BookCheck, DollarSign, Hash, MessagesSquare, MessageSquareText, ShieldAlert, Timer, type LucideIcon } from 'lucide-react';
import { formatPercent } from '../../../../lib/format';
import { formatCount, formatDollars, formatMs } from '../format';
import { ANALYTICS } from '../strings';

interface Card {
  label: string;
  value: string;
  icon: LucideIcon;
  tone: 'info' | 'legal' | 'ok' | 'warn';
  /** A breakdown shown under the value. */
  detail?: string;
}

/**
 * The summary cards: Total Requests, Tokens Used, Total Cost ($, 2 decimals), Avg Response (rounded
 * ms or '-'), then the conversations of the window, messages per conversation and the share of
 * replies answered from knowledge ('-' without any), and the requests a chat rate limit or a
 * budget refused (not counted in Total Requests; by rule in the card's title).
 */
export function SummaryCards({ system, performance }: { system: SystemAnalytics; performance: PerformanceAnalytics }) {
  const cards: Card[] = [
    { label: ANALYTICS.cards.totalRequests, value: formatCount(system.totalRequests), icon: Activity, tone: 'info' },
    { label: ANALYTICS.cards.tokensUsed, value: formatCount(system.totalTokensUsed), icon: Hash, tone: 'legal' },
    { label: ANALYTICS.cards.totalCost, value: formatDollars(system.totalCost), icon: DollarSign, tone: 'ok' },
    { label: ANALYTICS.cards.avgResponse, value: formatMs(performance.summary.averageResponseTime), icon: Timer, tone: 'warn' },
    { label: ANALYTICS.cards.conversations, value: formatCount(system.conversations), icon: MessagesSquare, tone: 'info' },
    {
      label: ANALYTICS.cards.messagesPerConversation,
      value: system.messagesPerConversation === null ? ANALYTICS.missing : system.messagesPerConversation.toFixed(1),
      icon: MessageSquareText,
      tone: 'legal',
    },
    { label: ANALYTICS.cards.answeredRate, value: system.answeredRate === null ? ANALYTICS.missing : formatPercent(system.answeredRate, 1), icon: BookCheck, tone: 'ok' },
    {
      label: ANALYTICS.cards.limited,
      value: formatCount(system.limitedRequests.total),
      icon: ShieldAlert,
      tone: 'warn',
      detail: Object.entries(system.limitedRequests.byRule)
        .filter(([, n]) => n > 0)
        .map(([rule, n]) => `${ANALYTICS.limitedRules[rule] ?? rule}: ${formatCount(n)}`)
        .join(', '),
    },
  ];
  return (
    <div className="analytics-cards">
      {cards.map(({ label, value, icon: Icon, tone, detail }) => (
        <section key={label} className="analytics-card" role="group" aria-label={label}>
          <span className={`analytics-card-icon tone is-${tone}`} aria-hidden="true">
            <Icon size={20} />
          </span>
          <span className="analytics-card-text">
            <span className="analytics-card-label">{label}</span>
            <span className="analytics-card-value">{value}</span>
            {detail && <span className="analytics-card-detail">{detail}</span>}
          </span>
        </section>
      ))}
    </div>
  );
}
