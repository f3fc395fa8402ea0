import type { ModelCostRow } from '@shared/contracts/analytics';
import { formatCount, formatDollars } from '../format';
import { ANALYTICS } from '../strings';

/** 'Cost Breakdown by Model': provider - model, request count, cost, tokens. */
export function CostBreakdown({ rows }: { rows: ModelCostRow[] }) {
  if (rows.length === 0) return <p className="analytics-empty">{ANALYTICS.costs.empty}</p>;
  return (
    <ul className="cost-rows">
      {rows.map((row) => (
        <li key={`${row.provider}/${row.model}`} className="cost-row">
          <span className="cost-main">
            <span className="cost-model">{`${row.provider} - ${row.model}`}</span>
            <span className="cost-details">
              <span className="cost-requests">{ANALYTICS.costs.requests(formatCount(row.requestCount))}</span>
              {' · '}
              <span className="cost-tokens">{ANALYTICS.costs.tokens(formatCount(row.totalTokens))}</span>
            </span>
          </span>
          <span className="cost-amount">{formatDollars(row.totalCost)}</span>
        </li>
      ))}
    </ul>
  );
}
