/** The team calls of the console, and the invitation link's two public calls. */
import type { AuthUser } from '@shared/contracts/auth';
import { InvitationAcceptSchema, InvitationCreateSchema, MemberUpdateSchema, type Invitation, type InvitationAccept, type InvitationCreate, type InvitationPreview, type Member, type MemberUpdate, type Team } from '@shared/contracts/team';
import { apiRequest } from '../../../../lib/api';

const member = (id: string) => `/api/team/members/${encodeURIComponent(id)}`;
const invitation = (token: string) => `/api/team/invitations/${encodeURIComponent(token)}`;

export const teamApi = {
  team: (signal?: AbortSignal) => apiRequest<{ data: Team }>('/api/team/members', { signal }).then((r) => r.data),
  invite: (input: InvitationCreate) => apiRequest<{ data: Invitation }>('/api/team/invitations', { method: 'POST', body: input, contract: InvitationCreateSchema }).then((r) => r.data),
  withdraw: (id: string) => apiRequest(`/api/team/invitations/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  update: (id: string, change: MemberUpdate) => apiRequest<{ data: Member }>(member(id), { method: 'PATCH', body: change, contract: MemberUpdateSchema }).then((r) => r.data),
  remove: (id: string) => apiRequest(member(id), { method: 'DELETE' }),
  resetSecondFactor: (id: string) => apiRequest(`${member(id)}/totp`, { method: 'DELETE' }),
  preview: (token: string, signal?: AbortSignal) => apiRequest<{ data: InvitationPreview }>(invitation(token), { signal }).then((r) => r.data),
  accept: (token: string, input: InvitationAccept) =>
    apiRequest<{ user: AuthUser }>(`${invitation(token)}/accept`, { method: 'POST', body: input, contract: InvitationAcceptSchema }).then((r) => r.user),
};
