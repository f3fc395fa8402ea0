import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { RefreshCw } from 'lucide-react';
import type { BudgetInput } from '@shared/contracts/limits';
import { budgetsApi } from './api/budgets-api';
import { BudgetAlerts } from './components/BudgetAlerts';
import { BudgetBars } from './components/BudgetBars';
import { BudgetEditor } from './components/BudgetEditor';
import { BUDGETS_QUERY_KEY, connectBudgetFeed, useBudgetOverview, useBudgetsLive, type BudgetFeed } from './hooks/useBudgets';
import { BUDGETS } from './strings';
import './budgets.css';

export interface BudgetsTabProps {
  /** Opens the live feed (the /admin namespace); tests hand in their own. */
  connectLive?: () => BudgetFeed;
}

/**
 * The console's Budgets tab: this month's alerts as a banner, each budget's spend against its
 * limit as a bar (with the forecast to month end), moving live as chats finish on any server
 * (`budget:update` on the /admin socket), and the editor of the limits and their behaviour.
 */
export function BudgetsTab({ connectLive = connectBudgetFeed }: BudgetsTabProps) {
  const queryClient = useQueryClient();
  const overview = useBudgetOverview();
  const live = useBudgetsLive(connectLive);
  const config = useQuery({ queryKey: ['budget-settings'], queryFn: ({ signal }) => budgetsApi.config(signal) });
  const save = useMutation({
    mutationFn: ({ list, tokens }: { list: BudgetInput[]; tokens: number | null }) => budgetsApi.save(list, tokens),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: BUDGETS_QUERY_KEY }),
  });
  const data = overview.data;

  return (
    <div className="budgets" aria-busy={overview.isFetching}>
      <header className="budgets-header">
        <h2>{BUDGETS.title}</h2>
        {live && (
          <span className="budgets-live">
            <span className="budgets-live-dot" aria-hidden="true" />
            {BUDGETS.live}
          </span>
        )}
      </header>
      {overview.isLoading && (
        <p role="status" className="budgets-loading">
          <RefreshCw size={16} aria-hidden="true" className="is-spinning" />
          {BUDGETS.loading}
        </p>
      )}
      {overview.isError && (
        <p role="alert" className="budget-error">
          {BUDGETS.loadFailed}
        </p>
      )}
      {data && (
        <>
          <BudgetAlerts alerts={data.alerts} />
          <p className="budgets-intro">{BUDGETS.intro(data.month)}</p>
          {data.budgets.length === 0 ? <p className="budgets-empty">{BUDGETS.empty}</p> : <BudgetBars budgets={data.budgets} />}
        </>
      )}
      {config.data && (
        <BudgetEditor
          budgets={config.data.global.budgets.list}
          visitorDailyTokens={config.data.global.budgets.visitorDailyTokens}
          agentIds={config.data.agents.map((a) => a.agentId)}
          saving={save.isPending}
          saved={save.isSuccess}
          error={save.error instanceof Error ? save.error.message : undefined}
          onSave={(list, tokens) => save.mutate({ list, tokens })}
        />
      )}
    </div>
  );
}

export default BudgetsTab;
