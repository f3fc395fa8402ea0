import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { itemQueryKey, KNOWLEDGE_QUERY_KEY, knowledgeApi, listQueryKey, type KnowledgeItemInput, type ListParams } from '../api/knowledge-api';

/**
 * The list for a filter and search text. A failed load is logged and the list shows empty;
 * while a new search or filter loads, the previous rows stay.
 */
export function useKnowledgeList(params: ListParams) {
  const query = useQuery({
    queryKey: listQueryKey(params),
    queryFn: async ({ signal }) => {
      try {
        return await knowledgeApi.list(params, signal);
      } catch (error) {
        if (!signal.aborted) console.error('Failed to load knowledge items', error);
        throw error;
      }
    },
    placeholderData: keepPreviousData,
  });
  return {
    items: query.isError ? [] : (query.data ?? []),
    isLoading: query.isPending && query.fetchStatus === 'fetching',
    isFetching: query.isFetching,
  };
}

/** One item with its attachments' content (the list leaves it out); only while `id` is set. */
export function useKnowledgeItem(id: string | null) {
  return useQuery({
    queryKey: itemQueryKey(id ?? ''),
    queryFn: ({ signal }) => knowledgeApi.get(id!, signal),
    enabled: id !== null,
  });
}

/** Reloads every list and item after a change. */
export function useInvalidateKnowledge() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KNOWLEDGE_QUERY_KEY });
}

/** Create (no id) or update (the whole item). */
export function useSaveKnowledgeItem() {
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: KnowledgeItemInput }) => (id ? knowledgeApi.update(id, input) : knowledgeApi.create(input)),
  });
}

export function useDeleteKnowledgeItem() {
  return useMutation({ mutationFn: (id: string) => knowledgeApi.remove(id) });
}
