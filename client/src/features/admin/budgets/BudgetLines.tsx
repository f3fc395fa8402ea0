import { BudgetBars } from './components/BudgetBars';
import { useBudgetOverview } from './hooks/useBudgets';
import { BUDGETS } from './strings';
import './budgets.css';

/**
 * The budget lines of the Analytics cost view: each budget's spend this month against its limit,
 * reloaded with the analytics (`queryKey`: under the Analytics tab's key, so its live feed and
 * Refresh reload it too).
 */
export function BudgetLines({ queryKey }: { queryKey: readonly string[] }) {
  const { data } = useBudgetOverview(queryKey);
  if (!data) return null;
  return (
    <div className="budget-lines">
      <h4>{BUDGETS.analyticsTitle}</h4>
      {data.budgets.length === 0 ? <p className="analytics-empty">{BUDGETS.analyticsEmpty}</p> : <BudgetBars budgets={data.budgets} compact />}
    </div>
  );
}
