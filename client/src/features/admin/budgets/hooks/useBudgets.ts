import { useQuery } from '@tanstack/react-query';
import { connectAdminFeed, useLiveReload, type AdminFeed } from '../../../../lib/admin-feed';
import { budgetsApi } from '../api/budgets-api';

export const BUDGETS_QUERY_KEY = ['budgets'] as const;

export type BudgetFeed = AdminFeed;
export const connectBudgetFeed = connectAdminFeed;

/** This month's budgets (GET /api/budgets); `key` lets another tab reload it with its own figures. */
export function useBudgetOverview(key: readonly string[] = BUDGETS_QUERY_KEY) {
  return useQuery({ queryKey: key, queryFn: ({ signal }) => budgetsApi.overview(signal) });
}

const EVENTS = ['budget:update', 'config:changed'] as const;

/**
 * Reloads the budgets when the server pushes `budget:update` (spend changed, or an alert) or
 * `config:changed` (budgets edited elsewhere), and after a reconnect; returns whether the feed is
 * connected.
 */
export function useBudgetsLive(connect: () => BudgetFeed = connectBudgetFeed): boolean {
  return useLiveReload(connect, EVENTS, BUDGETS_QUERY_KEY);
}
