import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { GapStatus } from '@shared/contracts/conversations';
import { CONVERSATIONS_QUERY_KEY, conversationsApi, GAPS_QUERY_KEY, type ConversationFilters } from '../api/conversations-api';

/** A page of the list; the previous rows stay while a new page or filter loads. */
export function useConversationList(filters: ConversationFilters, page: number) {
  return useQuery({
    queryKey: [...CONVERSATIONS_QUERY_KEY, 'list', filters, page],
    queryFn: ({ signal }) => conversationsApi.list(filters, page, signal),
    placeholderData: keepPreviousData,
  });
}

/** One transcript, while `id` is set. */
export function useTranscript(id: string | null) {
  return useQuery({
    queryKey: [...CONVERSATIONS_QUERY_KEY, 'transcript', id],
    queryFn: ({ signal }) => conversationsApi.get(id!, signal),
    enabled: id !== null,
  });
}

export function useKnowledgeGaps(params: { status: string; vertical: string; page: number }) {
  return useQuery({
    queryKey: [...GAPS_QUERY_KEY, params],
    queryFn: ({ signal }) => conversationsApi.gaps(params, signal),
    placeholderData: keepPreviousData,
  });
}

export function useSetGapStatus() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, status }: { id: string; status: GapStatus }) => conversationsApi.setGapStatus(id, status),
    onSettled: () => queryClient.invalidateQueries({ queryKey: GAPS_QUERY_KEY }),
  });
}
