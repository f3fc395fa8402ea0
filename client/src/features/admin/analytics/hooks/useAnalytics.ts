import type { AnalyticsWindow } from '@shared/contracts/analytics';
import { useQuery } from '@tanstack/react-query';
import { fetchAnalytics } from '../api/analytics-api';

export const ANALYTICS_QUERY_KEY = ['admin', 'analytics'] as const;

/**
 * The figures of the window, loaded in parallel. A failed load is logged and clears the data:
 * the tab then shows nothing rather than figures of an older load.
 */
export function useAnalytics(hours: AnalyticsWindow) {
  const query = useQuery({
    queryKey: [...ANALYTICS_QUERY_KEY, hours],
    queryFn: async ({ signal }) => {
      try {
        return await fetchAnalytics(hours, signal);
      } catch (error) {
        if (!signal.aborted) console.error('Failed to load analytics', error);
        throw error;
      }
    },
  });
  return {
    data: query.isError ? undefined : query.data,
    /** The first load of this window (nothing to show yet). */
    isLoading: query.isPending && query.fetchStatus === 'fetching',
    /** Any load in flight, including a refresh or a live update. */
    isFetching: query.isFetching,
    isError: query.isError,
    refetch: () => query.refetch(),
  };
}
