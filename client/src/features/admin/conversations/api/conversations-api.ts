/**
 * The console's conversations API (src/shared/contracts/conversations.ts): the list with its
 * filters, a transcript, its export (a download link), knowledge gaps and their status.
 */
import type { ConversationPage, ConversationTranscript, GapPage, GapStatus, KnowledgeGap } from '@shared/contracts/conversations';
import { GapUpdateSchema } from '@shared/contracts/conversations';
import { apiRequest } from '../../../../lib/api';

export type { ConversationPage, ConversationTranscript, GapPage, KnowledgeGap };

import type { SuccessEnvelope as Data } from '@shared/contracts/http';

export const CONVERSATIONS_QUERY_KEY = ['conversations'] as const;
export const GAPS_QUERY_KEY = ['knowledge-gaps'] as const;

/** The list's filters as the form holds them ('' = any). Dates are local calendar days (yyyy-mm-dd). */
export interface ConversationFilters {
  search: string;
  vertical: string;
  language: string;
  feedback: string;
  answered: string;
  from: string;
  to: string;
}

export const NO_FILTERS: ConversationFilters = { search: '', vertical: '', language: '', feedback: '', answered: '', from: '', to: '' };

/** The start of a local calendar day (yyyy-mm-dd) as an ISO date-time, `days` later. */
export function localDayStart(day: string, days = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days).toISOString();
}

export const PAGE_SIZE = 20;

export const conversationsApi = {
  async list(filters: ConversationFilters, page: number, signal?: AbortSignal): Promise<ConversationPage> {
    const body = await apiRequest<Data<ConversationPage>>('/api/conversations', {
      query: {
        page,
        pageSize: PAGE_SIZE,
        search: filters.search.trim() || undefined,
        vertical: filters.vertical || undefined,
        language: filters.language || undefined,
        feedback: filters.feedback || undefined,
        answered: filters.answered || undefined,
        from: localDayStart(filters.from),
        // The whole of the last day.
        to: localDayStart(filters.to, 1),
      },
      signal,
    });
    return body.data;
  },

  async get(id: string, signal?: AbortSignal): Promise<ConversationTranscript> {
    return (await apiRequest<Data<ConversationTranscript>>(`/api/conversations/${encodeURIComponent(id)}`, { signal })).data;
  },

  /** A same-origin link: the browser downloads the file with the session cookie. */
  exportUrl(id: string): string {
    return `/api/conversations/${encodeURIComponent(id)}/export`;
  },

  async gaps(params: { status: string; vertical: string; page: number }, signal?: AbortSignal): Promise<GapPage> {
    const body = await apiRequest<Data<GapPage>>('/api/knowledge-gaps', {
      query: { status: params.status, vertical: params.vertical || undefined, page: params.page, pageSize: 50 },
      signal,
    });
    return body.data;
  },

  async setGapStatus(id: string, status: GapStatus): Promise<KnowledgeGap> {
    return (await apiRequest<Data<KnowledgeGap>>(`/api/knowledge-gaps/${encodeURIComponent(id)}`, { method: 'PUT', body: { status }, contract: GapUpdateSchema })).data;
  },
};
