import type { AgentPerformanceRow } from '@shared/contracts/analytics';
import { formatPercent } from '../../../../lib/format';
import { formatCount, formatDollars, formatMs } from '../format';
import { ANALYTICS } from '../strings';
import { SuccessRateBadge } from './SuccessRateBadge';

const C = ANALYTICS.agents.columns;

/** 'Agent Performance': Agent, Requests, Success Rate, Answered from knowledge, Avg Response, Cost, Tokens, Helpful. */
export function AgentPerformanceTable({ rows, labelledBy }: { rows: AgentPerformanceRow[]; labelledBy: string }) {
  if (rows.length === 0) return <p className="analytics-empty">{ANALYTICS.agents.empty}</p>;
  return (
    // It scrolls sideways when narrow: a keyboard user can focus it and scroll with the arrows.
    <div className="analytics-table-wrap" tabIndex={0} role="region" aria-labelledby={labelledBy}>
      <table className="analytics-table" aria-labelledby={labelledBy}>
        <thead>
          <tr>
            <th scope="col">{C.agent}</th>
            <th scope="col" className="num">{C.requests}</th>
            <th scope="col">{C.successRate}</th>
            <th scope="col" className="num" title={ANALYTICS.agents.answeredTitle}>
              {C.answered}
            </th>
            <th scope="col" className="num">{C.avgResponse}</th>
            <th scope="col" className="num">{C.cost}</th>
            <th scope="col" className="num">{C.tokens}</th>
            <th scope="col" className="num">{C.helpful}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const votes = row.feedback.up + row.feedback.down;
            return (
              <tr key={row.agentId} data-agent-id={row.agentId}>
                <th scope="row">
                  <span className="agent-name">{row.agentName}</span>
                  {row.agentName !== row.agentId && <span className="agent-id">{row.agentId}</span>}
                </th>
                <td className="num" data-label={C.requests}>{formatCount(row.totalRequests)}</td>
                <td data-label={C.successRate}>
                  <SuccessRateBadge errorRate={row.errorRate} />
                </td>
                <td className="num answered-cell" data-label={C.answered}>{row.answeredRate === null ? ANALYTICS.missing : formatPercent(row.answeredRate, 1)}</td>
                <td className="num" data-label={C.avgResponse}>{formatMs(row.averageResponseTime)}</td>
                <td className="num" data-label={C.cost}>{formatDollars(row.totalCost)}</td>
                <td className="num" data-label={C.tokens}>{formatCount(row.totalTokensUsed)}</td>
                <td className="num helpful-cell" data-label={C.helpful}>
                  {row.helpfulRate === null ? (
                    ANALYTICS.missing
                  ) : (
                    <span>
                      {formatPercent(row.helpfulRate, 1)} <span className="helpful-votes">({ANALYTICS.agents.votes(votes)})</span>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
