import { AlertTriangle } from 'lucide-react';
import type { BudgetAlert } from '@shared/contracts/limits';
import { usd } from '../format';
import { BUDGETS } from '../strings';

/** The console banner: this month's budget alerts (soft threshold passed, limit reached), newest first. */
export function BudgetAlerts({ alerts }: { alerts: BudgetAlert[] }) {
  if (alerts.length === 0) return null;
  return (
    <div className="budget-alerts" role="alert">
      {alerts.map((a) => (
        <p key={`${a.scope}-${a.threshold}`} className={`budget-alert is-${a.threshold}`}>
          <AlertTriangle size={16} aria-hidden="true" />
          {a.threshold === 'soft' ? BUDGETS.alertSoft(a.label, usd(a.spentUsd), usd(a.monthlyUsd)) : BUDGETS.alertCap(a.label, usd(a.spentUsd), usd(a.monthlyUsd))}
        </p>
      ))}
    </div>
  );
}
