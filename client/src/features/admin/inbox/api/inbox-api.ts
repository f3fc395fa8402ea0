/** The inbox calls of the console: the lists, a conversation, take/assign, reply or note, typing, resolve. */
import { InboxMessageInputSchema, InboxResolveSchema, InboxTakeSchema, InboxTypingSchema, type HandoffInfo, type Inbox, type InboxConversation, type InboxMessage } from '@shared/contracts/handoff';
import type { Team } from '@shared/contracts/team';
import { apiRequest } from '../../../../lib/api';

const at = (id: string, action = '') => `/api/inbox/${encodeURIComponent(id)}${action}`;

export const inboxApi = {
  list: (signal?: AbortSignal) => apiRequest<{ data: Inbox }>('/api/inbox', { signal }).then((r) => r.data),
  conversation: (id: string, signal?: AbortSignal) => apiRequest<{ data: InboxConversation }>(at(id), { signal }).then((r) => r.data),
  take: (id: string, input: { version?: number; assigneeId?: string }) =>
    apiRequest<{ data: HandoffInfo }>(at(id, '/take'), { method: 'POST', body: input, contract: InboxTakeSchema }).then((r) => r.data),
  send: (id: string, input: { text: string; internal: boolean }) =>
    apiRequest<{ data: InboxMessage }>(at(id, '/messages'), { method: 'POST', body: input, contract: InboxMessageInputSchema }).then((r) => r.data),
  typing: (id: string, typing: boolean) => apiRequest(at(id, '/typing'), { method: 'POST', body: { typing }, contract: InboxTypingSchema }),
  resolve: (id: string, input: { version?: number }) =>
    apiRequest<{ data: HandoffInfo }>(at(id, '/resolve'), { method: 'POST', body: input, contract: InboxResolveSchema }).then((r) => r.data),
  members: (signal?: AbortSignal) => apiRequest<{ data: Team }>('/api/team/members', { signal }).then((r) => r.data.members),
};
