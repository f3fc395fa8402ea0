/**
 * The network edge for the Inbox tab's component tests: the auth routes plus an inbox that keeps
 * its conversations and acts like the server (take refused with 409 when another member holds the
 * conversation or the version is stale, replies and notes appended, resolve), recording each call.
 */
import type { InboxConversation, InboxItem, InboxMessage } from '@shared/contracts/handoff';
import type { Member } from '@shared/contracts/team';
import { fakeAuthServer, reply, USER, type FakeHandler } from '../../../auth/testing/fake-auth-server';

let sequence = 0;
const id = () => `00000000-0000-4000-8000-${String(++sequence).padStart(12, '0')}`;

export function makeItem(overrides: Partial<InboxItem> = {}, handoff: Partial<InboxItem['handoff']> = {}): InboxItem {
  return {
    conversationId: id(),
    vertical: 'customer-service',
    title: 'Where is my parcel?',
    language: 'en',
    handoff: { state: 'waiting', version: 1, assignee: null, requestedAt: '2026-03-02T10:00:00.000Z', queuePosition: 1, expectedWaitSeconds: 120, ...handoff },
    reason: 'visitor',
    question: 'Where is my parcel?',
    visitorEmail: null,
    withinHours: true,
    messageCount: 2,
    unread: 1,
    updatedAt: '2026-03-02T10:00:05.000Z',
    ...overrides,
  };
}

export function makeMessage(overrides: Partial<InboxMessage> = {}): InboxMessage {
  return { id: id(), role: 'user', content: 'Hello', createdAt: '2026-03-02T10:00:00.000Z', status: 'complete', author: null, confidence: null, answered: null, sources: [], ...overrides };
}

export function makeMember(overrides: Partial<Member> = {}): Member {
  return { id: id(), email: 'grace@example.com', name: 'Grace Hopper', role: 'agent', status: 'active', twoFactor: false, passwordLogin: true, codeLogin: true, lastSignInAt: null, createdAt: '2026-01-01T00:00:00.000Z', ...overrides } as Member;
}

export interface InboxState {
  conversations: InboxConversation[];
  members?: Member[];
}

/** `me`: the signed-in member (USER by default). */
export function fakeInboxServer(state: InboxState, me: { id: string; name: string; email: string; role: string } = USER, extra: Record<string, FakeHandler> = {}) {
  const find = (cid: string) => state.conversations.find((c) => c.item.conversationId === cid)!;
  const conflict = (message: string) => reply.error(409, 'conflict', message);
  const routes: Record<string, FakeHandler> = {
    'GET /api/auth/me': () => reply.ok({ user: me }),
    'GET /api/inbox': () =>
      reply.ok({
        data: {
          waiting: state.conversations.filter((c) => c.item.handoff.state === 'waiting').map((c) => c.item),
          open: state.conversations.filter((c) => c.item.handoff.state === 'open').map((c) => c.item),
        },
      }),
  };
  if (state.members) routes['GET /api/team/members'] = () => reply.ok({ data: { members: state.members, invitations: [] } });
  for (const c of state.conversations) {
    const cid = c.item.conversationId;
    const base = `/api/inbox/${cid}`;
    routes[`GET ${base}`] = () => reply.ok({ data: find(cid) });
    routes[`POST ${base}/take`] = (body: { version?: number; assigneeId?: string }) => {
      const { handoff } = find(cid).item;
      if (body.version !== undefined && body.version !== handoff.version) return conflict('The conversation changed meanwhile (someone else acted on it). Reload the inbox.');
      if (handoff.state === 'open' && !body.assigneeId && handoff.assignee?.id !== me.id) return conflict(`${handoff.assignee?.name ?? 'Another member'} already took this conversation.`);
      const who = body.assigneeId ? state.members!.find((m) => m.id === body.assigneeId)! : me;
      find(cid).item = { ...find(cid).item, unread: find(cid).item.unread, handoff: { ...handoff, state: 'open', version: handoff.version + 1, assignee: { id: who.id, name: who.name } } };
      return reply.ok({ data: find(cid).item.handoff });
    };
    routes[`POST ${base}/messages`] = (body: { text: string; internal: boolean }) => {
      const conversation = find(cid);
      const message = makeMessage({ role: body.internal ? 'note' : 'human', content: body.text, author: { id: me.id, name: me.name } });
      conversation.messages = [...conversation.messages, message];
      if (!body.internal) conversation.item = { ...conversation.item, unread: 0 };
      return { status: 201, body: { success: true, data: message } };
    };
    routes[`POST ${base}/typing`] = (body: { typing: boolean }) => reply.ok({ data: body });
    routes[`POST ${base}/resolve`] = () => {
      const { handoff } = find(cid).item;
      find(cid).item = { ...find(cid).item, unread: 0, handoff: { ...handoff, state: 'resolved', version: handoff.version + 1 } };
      return reply.ok({ data: find(cid).item.handoff });
    };
  }
  return fakeAuthServer({ ...routes, ...extra });
}
