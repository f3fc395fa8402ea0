import type { BudgetStatus } from '@shared/contracts/limits';
import { percentOf, usd } from '../format';
import { BUDGETS } from '../strings';

/**
 * Each budget's spend this month as a bar against its limit: the soft threshold marked, the
 * forecast to month end at the current rate, and (compact: false) what running replies hold.
 */
export function BudgetBars({ budgets, compact = false }: { budgets: BudgetStatus[]; compact?: boolean }) {
  return (
    <ul className={`budget-bars${compact ? ' is-compact' : ''}`}>
      {budgets.map((b) => {
        const percent = percentOf(b.spentUsd, b.monthlyUsd);
        const forecastPercent = Math.min(100, percentOf(b.forecastUsd, b.monthlyUsd));
        return (
          <li key={b.scope} className={`budget-bar state-${b.state}`} data-scope={b.scope}>
            <div className="budget-bar-head">
              <span className="budget-bar-label">{b.label}</span>
              <span className="budget-bar-figures">
                <span className="budget-bar-spent">{BUDGETS.spent(usd(b.spentUsd), usd(b.monthlyUsd))}</span>
                <span className="budget-bar-percent">{BUDGETS.percent(percent)}</span>
              </span>
            </div>
            <div
              className="budget-bar-track"
              role="progressbar"
              aria-label={BUDGETS.barLabel(b.label, percent)}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.min(100, percent)}
            >
              <span className="budget-bar-forecast" style={{ width: `${forecastPercent}%` }} />
              <span className="budget-bar-fill" style={{ width: `${Math.min(100, percent)}%` }} />
              <span className="budget-bar-soft" style={{ left: `${b.softPercent}%` }} title={BUDGETS.softMarker(b.softPercent)} />
            </div>
            <div className="budget-bar-foot">
              <span className={`budget-state state-${b.state}`}>{BUDGETS.state[b.state]}</span>
              <span>{BUDGETS.forecast(usd(b.forecastUsd))}</span>
              {!compact && b.heldUsd > 0 && <span>{BUDGETS.held(usd(b.heldUsd))}</span>}
              {!compact && <span>{BUDGETS.onCapText[b.onCap]}</span>}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
