/** The Inbox tab: the two lists, live reloads and the title's unread count, a transcript, take, assign, reply, typing, notes, resolve, 409. */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { USER } from '../../auth/testing/fake-auth-server';
import { renderGate } from '../../auth/testing/render-auth';
import { fakeFeed } from '../conversations/testing/fake-conversations-server';
import type { AdminFeed } from '../../../lib/admin-feed';
import { useInboxWatch } from './hooks/useInbox';
import { InboxTab, TYPING_IDLE_MS } from './InboxTab';
import { fakeInboxServer, makeItem, makeMember, makeMessage, type InboxState } from './testing/fake-inbox-server';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  document.title = '';
});

function Console({ connect }: { connect: () => AdminFeed }) {
  useInboxWatch('Admin Dashboard', connect);
  return <InboxTab />;
}

const AGENT = { ...USER, role: 'agent' as const };
const GRACE = { id: '00000000-0000-4000-8000-0000000000g1', name: 'Grace Hopper' };

function setup(state: InboxState, me: typeof USER | typeof AGENT = AGENT) {
  const server = fakeInboxServer(state, me);
  const live = fakeFeed();
  renderGate(<Console connect={live.connect} />);
  return { server, live, user: userEvent.setup() };
}

const list = (name: string) => screen.getByRole('list', { name: new RegExp(`^${name}`) });
const titles = (name: string) => within(list(name)).getAllByRole('button').map((b) => b.querySelector('.kb-row-title-text')?.textContent);

function sampleState(): InboxState {
  const parcel = makeItem({ title: 'Where is my parcel?', unread: 2 }, { requestedAt: '2026-03-02T09:00:00.000Z' });
  const refund = makeItem({ title: 'Refund for a broken kettle', question: 'Can I get a refund?', unread: 1, withinHours: false }, { requestedAt: '2026-03-02T09:30:00.000Z', queuePosition: 2 });
  const mine = makeItem({ title: 'Change my address', question: null, unread: 0 }, { state: 'open', assignee: { id: USER.id, name: USER.name }, version: 3 });
  const theirs = makeItem({ title: 'Invoice copy', question: null, unread: 0 }, { state: 'open', assignee: GRACE, version: 2 });
  return {
    conversations: [
      {
        item: parcel,
        messages: [
          makeMessage({ role: 'user', content: 'Where is my parcel?' }),
          makeMessage({ role: 'agent', content: 'Track it from the Orders page.', confidence: 0.42, answered: true, sources: [{ id: 'k1', title: 'Tracking your order', score: 0.9 }] }),
          makeMessage({ role: 'human', content: 'I am looking into it.', author: GRACE }),
          makeMessage({ role: 'note', content: 'Carrier lost it, refund likely.', author: GRACE }),
        ],
      },
      { item: refund, messages: [makeMessage({ content: 'My kettle broke' })] },
      { item: mine, messages: [] },
      { item: theirs, messages: [] },
    ],
  };
}

describe('Inbox tab', () => {
  it('lists Waiting (longest first) and Open (yours first) with the unread count in the page title', async () => {
    setup(sampleState());
    await screen.findByRole('button', { name: /^Where is my parcel\?/ });
    expect(titles('Waiting')).toEqual(['Where is my parcel?', 'Refund for a broken kettle']);
    expect(titles('Open')).toEqual(['Change my address', 'Invoice copy']);
    expect(within(list('Waiting')).getByText('2 unread')).toBeInTheDocument();
    expect(within(list('Waiting')).getByText('Left outside hours')).toBeInTheDocument();
    expect(within(list('Open')).getByText('Yours')).toBeInTheDocument();
    expect(within(list('Open')).getByText('With Grace Hopper')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('(3) Admin Dashboard'));
  });

  it('shows the transcript: visitor, assistant with confidence and sources, replies with their author, notes set apart', async () => {
    const { user } = setup(sampleState());
    await user.click(await screen.findByRole('button', { name: /^Where is my parcel\?/ }));
    const article = await screen.findByRole('article');
    expect(within(article).getByRole('heading', { name: 'Where is my parcel?' })).toBeInTheDocument();
    expect(within(article).getByText('Track it from the Orders page.')).toBeInTheDocument();
    expect(within(article).getByText('Confidence 42%')).toBeInTheDocument();
    expect(within(article).getByText('Tracking your order')).toBeInTheDocument();
    expect(within(article).getByText('Reply · Grace Hopper')).toBeInTheDocument();
    const note = within(article).getByText('Carrier lost it, refund likely.').closest('li')!;
    expect(note).toHaveClass('is-note');
    expect(within(note).getByText('Internal note · Grace Hopper')).toBeInTheDocument();
  });

  it('takes a waiting conversation, tells the visitor it is typing, replies, adds a note and resolves', async () => {
    const state = sampleState();
    const parcel = state.conversations[0].item;
    const { server, user } = setup(state);
    await user.click(await screen.findByRole('button', { name: /^Where is my parcel\?/ }));
    await user.click(await screen.findByRole('button', { name: 'Take' }));
    await waitFor(() => expect(titles('Open')).toContain('Where is my parcel?'));
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/take`)[0].body).toEqual({ version: 1 });
    expect(screen.queryByRole('button', { name: 'Take' })).not.toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Reply to the visitor' }), 'It ships today.');
    // One "typing" for the whole burst of keys, not one per key.
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/typing`).map((c) => c.body)).toEqual([{ typing: true }]);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await within(screen.getByRole('article')).findByText('It ships today.');
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/messages`)[0].body).toEqual({ text: 'It ships today.', internal: false });
    expect(screen.getByRole('textbox', { name: 'Reply to the visitor' })).toHaveValue('');
    await waitFor(() => expect(document.title).toBe('(1) Admin Dashboard'));

    await user.click(screen.getByRole('checkbox', { name: 'Internal note' }));
    await user.type(screen.getByRole('textbox', { name: 'Internal note' }), 'Checked with the carrier');
    await user.click(screen.getByRole('button', { name: 'Add note' }));
    const note = (await within(screen.getByRole('article')).findByText('Checked with the carrier')).closest('li')!;
    expect(note).toHaveClass('is-note');
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/messages`)[1].body).toEqual({ text: 'Checked with the carrier', internal: true });
    // A note is not typing the visitor could see.
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/typing`)).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Resolve' }));
    await screen.findByText('This conversation is resolved. Notes can still be added.');
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/resolve`)[0].body).toEqual({ version: 2 });
    await waitFor(() => expect(titles('Open')).not.toContain('Where is my parcel?'));
  });

  it('stops the typing indicator once the keys rest', async () => {
    const state = sampleState();
    const mine = state.conversations[2].item;
    const { server, user } = setup(state);
    await user.click(await screen.findByRole('button', { name: /Change my address/ }));
    await user.type(await screen.findByRole('textbox', { name: 'Reply to the visitor' }), 'On it');
    await waitFor(() => expect(server.callsTo(`POST /api/inbox/${mine.conversationId}/typing`).map((c) => c.body)).toEqual([{ typing: true }, { typing: false }]), { timeout: TYPING_IDLE_MS + 2000 });
  });

  it('says clearly when someone else took the conversation first (409)', async () => {
    const state = sampleState();
    const parcel = state.conversations[0];
    const { user } = setup(state);
    await user.click(await screen.findByRole('button', { name: /^Where is my parcel\?/ }));
    await screen.findByRole('button', { name: 'Take' });
    // Grace takes it meanwhile: this member's version is stale.
    parcel.item = { ...parcel.item, handoff: { ...parcel.item.handoff, state: 'open', version: 2, assignee: GRACE } };
    await user.click(screen.getByRole('button', { name: 'Take' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Someone else took it: The conversation changed meanwhile/);
    // The inbox reloads and shows who holds it.
    await waitFor(() => expect(titles('Open')).toContain('Where is my parcel?'));
    expect(within(screen.getByRole('article')).getByText(/With Grace Hopper/)).toBeInTheDocument();
  });

  it('reloads the lists and the title when the admin socket says the inbox changed', async () => {
    const state = sampleState();
    const { live, server } = setup(state);
    await screen.findByRole('button', { name: /^Where is my parcel\?/ });
    const before = server.callsTo('GET /api/inbox').length;
    const item = makeItem({ title: 'Can I talk to someone?', question: null, unread: 4 }, { requestedAt: '2026-03-02T11:00:00.000Z' });
    state.conversations.push({ item, messages: [] });
    act(() => live.push('inbox:changed', { conversationId: item.conversationId, state: 'waiting', version: 1, event: 'requested' }));
    await screen.findByText('Can I talk to someone?');
    expect(titles('Waiting')).toEqual(['Where is my parcel?', 'Refund for a broken kettle', 'Can I talk to someone?']);
    expect(server.callsTo('GET /api/inbox').length).toBe(before + 1);
    await waitFor(() => expect(document.title).toBe('(7) Admin Dashboard'));
  });

  it('lets an owner assign a conversation to a member who may answer; an agent gets no assign control', async () => {
    const state = sampleState();
    const ada = makeMember({ id: USER.id, name: USER.name, email: USER.email, role: 'owner' });
    const alan = makeMember({ name: 'Alan Turing', email: 'alan@example.com', role: 'agent' });
    const vera = makeMember({ name: 'Vera Viewer', email: 'vera@example.com', role: 'viewer' });
    state.members = [ada, alan, vera];
    const parcel = state.conversations[0].item;
    const { server, user } = setup(state, USER);
    await user.click(await screen.findByRole('button', { name: /^Where is my parcel\?/ }));
    const select = await screen.findByRole('combobox', { name: 'Assign to' });
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose a member', 'Ada Lovelace', 'Alan Turing']));
    await user.selectOptions(select, alan.id);
    await user.click(screen.getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(within(list('Open')).getByText('With Alan Turing')).toBeInTheDocument());
    expect(server.callsTo(`POST /api/inbox/${parcel.conversationId}/take`)[0].body).toEqual({ version: 1, assigneeId: alan.id });
  });

  it('shows an agent no assign control and never asks for the team', async () => {
    const { server, user } = setup(sampleState(), AGENT);
    await user.click(await screen.findByRole('button', { name: /^Where is my parcel\?/ }));
    await screen.findByRole('button', { name: 'Take' });
    expect(screen.queryByRole('combobox', { name: 'Assign to' })).not.toBeInTheDocument();
    expect(server.callsTo('GET /api/team/members')).toHaveLength(0);
  });
});
