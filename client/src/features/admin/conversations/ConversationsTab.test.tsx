/** The Conversations tab: the list and its filters, a transcript, live updates, knowledge gaps. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleNavigationContext, type ConsoleNavigation } from '../console-navigation';
import type { Role } from '@shared/contracts/roles';
import { asMember } from '../../auth/testing/render-auth';
import { ConversationsTab } from './ConversationsTab';
import { fakeConversationsServer, fakeFeed, makeGap, makeSummary, makeTranscript } from './testing/fake-conversations-server';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderTab(navigation: ConsoleNavigation | null = null, role: Role = 'owner') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const live = fakeFeed();
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={client}>
      <ConsoleNavigationContext.Provider value={navigation}>{asMember(<ConversationsTab connectFeed={live.connect} />, role)}</ConsoleNavigationContext.Provider>
    </QueryClientProvider>,
  );
  return { user, live };
}

describe('Conversations tab', () => {
  it('lists conversations with their badges and opens a transcript with sources, confidence, vote and the export link', async () => {
    const parcel = makeSummary({ title: 'Where is my parcel?', messageCount: 2, feedback: { up: 0, down: 1 }, unanswered: 1 });
    const refund = makeSummary({ title: 'Refund for a broken kettle', vertical: 'sales', language: 'es' });
    const server = fakeConversationsServer({
      conversations: [parcel, refund],
      transcripts: [
        makeTranscript(parcel, [
          { id: 'q1', role: 'user', content: 'Where is my parcel?', createdAt: parcel.createdAt, status: 'complete', language: 'en', confidence: null, answered: null, sources: [], feedback: null, agentId: null, provider: null, model: null, executionTime: null, timeToFirstToken: null, error: null },
          { id: 'a1', role: 'agent', content: 'Track it from the Orders page.', createdAt: parcel.updatedAt, status: 'complete', language: 'en', confidence: 0.82, answered: true, sources: [{ id: 'k1', title: 'Tracking your order', score: 1 }], feedback: 'down', agentId: 'customer-service-agent', provider: 'local', model: 'offline', executionTime: 420, timeToFirstToken: 35, error: null },
        ]),
      ],
    });
    const { user } = renderTab();
    await screen.findByText('Refund for a broken kettle');
    const list = screen.getByRole('list', { name: 'Conversations' });
    const rows = within(list).getAllByRole('button');
    expect(rows.map((r) => r.querySelector('.kb-row-title-text')?.textContent)).toEqual(['Where is my parcel?', 'Refund for a broken kettle']);
    expect(within(rows[0]).getByText('1 not found')).toBeInTheDocument();
    expect(within(rows[1]).getByText('Spanish')).toBeInTheDocument();
    expect(screen.getByText('2 conversations')).toBeInTheDocument();

    await user.click(rows[0]);
    const transcript = await screen.findByRole('article');
    expect(within(transcript).getByRole('heading', { name: 'Where is my parcel?' })).toBeInTheDocument();
    expect(within(transcript).getByText('Track it from the Orders page.')).toBeInTheDocument();
    expect(within(transcript).getByText('Confidence 82%')).toBeInTheDocument();
    expect(within(transcript).getByText('Answered from knowledge')).toBeInTheDocument();
    expect(within(transcript).getByText('Tracking your order')).toBeInTheDocument();
    expect(within(transcript).getByText('Thumbs down')).toBeInTheDocument();
    expect(within(transcript).getByRole('link', { name: 'Export JSON' })).toHaveAttribute('href', `/api/conversations/${parcel.id}/export`);
    expect(server.callsTo('GET', `/api/conversations/${parcel.id}`)).toHaveLength(1);
  });

  it('sends the filters, the search (once typing rests) and the dates as local days', async () => {
    const server = fakeConversationsServer({ conversations: [makeSummary()] });
    const { user } = renderTab();
    await screen.findByText('1 conversation');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Vertical' }), 'hr');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Feedback' }), 'down');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Answered' }), 'no');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'fr');
    await user.type(screen.getByLabelText('From'), '2026-03-01');
    await user.type(screen.getByLabelText('To'), '2026-03-02');
    await user.type(screen.getByRole('searchbox', { name: 'Search messages' }), 'parcel late');
    await waitFor(() => expect(server.callsTo('GET', '/api/conversations').some((c) => c.query.search === 'parcel late')).toBe(true));
    const last = server.callsTo('GET', '/api/conversations').at(-1)!.query;
    expect(last).toMatchObject({ vertical: 'hr', feedback: 'down', answered: 'no', language: 'fr', search: 'parcel late', page: '1', pageSize: '20' });
    expect(last.from).toBe(new Date(2026, 2, 1).toISOString());
    expect(last.to).toBe(new Date(2026, 2, 3).toISOString());
    // No request for the half-typed search.
    expect(server.callsTo('GET', '/api/conversations').some((c) => c.query.search === 'parc')).toBe(false);
  });

  it('pages through the list', async () => {
    const server = fakeConversationsServer({ conversations: Array.from({ length: 25 }, (_, i) => makeSummary({ title: `Question ${i + 1}` })) });
    const { user } = renderTab();
    expect(await screen.findByText('Page 1 of 2')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('Question 21')).toBeInTheDocument();
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument();
    expect(server.callsTo('GET', '/api/conversations').at(-1)!.query.page).toBe('2');
  });

  it('shows a new conversation when the /admin socket says a message was stored, without a reload', async () => {
    const server = fakeConversationsServer({ conversations: [makeSummary({ title: 'First question' })] });
    const { live } = renderTab();
    await screen.findByText('First question');
    server.state.conversations.unshift(makeSummary({ title: 'A brand new question' }));
    act(() => live.push('conversation:message', { conversationId: 'x', messageId: 'y', role: 'user', vertical: 'customer-service', status: 'complete', at: new Date().toISOString() }));
    expect(await screen.findByText('A brand new question')).toBeInTheDocument();
  });

  it('knowledge gaps: counts and reasons, "Create knowledge item" hands the question over, Mark resolved', async () => {
    const gap = makeGap();
    const server = fakeConversationsServer({ conversations: [], gaps: [gap] });
    const navigation: ConsoleNavigation = { knowledgeDraft: null, createKnowledgeItem: vi.fn(), draftOpened: vi.fn() };
    const { user } = renderTab(navigation);
    await user.click(await screen.findByRole('button', { name: 'Knowledge gaps' }));
    const card = await screen.findByRole('listitem', { name: 'Do you ship to Mars?' });
    expect(within(card).getByText('Asked 3 times')).toBeInTheDocument();
    expect(within(card).getByText('Not found 2')).toBeInTheDocument();
    expect(within(card).getByText('Thumbs down 1')).toBeInTheDocument();
    expect(within(card).queryByText(/Low confidence/)).not.toBeInTheDocument();
    expect(within(card).getByText('Can you deliver to Mars?')).toBeInTheDocument();

    await user.click(within(card).getByRole('button', { name: 'Create knowledge item' }));
    expect(navigation.createKnowledgeItem).toHaveBeenCalledWith({ title: 'Do you ship to Mars?', vertical: 'customer-service' });

    await user.click(within(card).getByRole('button', { name: 'Mark resolved' }));
    await waitFor(() => expect(server.callsTo('PUT', `/api/knowledge-gaps/${gap.id}`)).toHaveLength(1));
    expect(server.callsTo('PUT', `/api/knowledge-gaps/${gap.id}`)[0].body).toEqual({ status: 'resolved' });
    expect(await screen.findByText('No knowledge gaps here.')).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'resolved');
    expect(await screen.findByRole('button', { name: 'Reopen' })).toBeInTheDocument();
  });

  it.each(['agent', 'viewer'] as const)('knowledge gaps: a %s reads them, with no create, resolve or reopen', async (role) => {
    fakeConversationsServer({ conversations: [], gaps: [makeGap()] });
    const navigation: ConsoleNavigation = { knowledgeDraft: null, createKnowledgeItem: vi.fn(), draftOpened: vi.fn() };
    const { user } = renderTab(navigation, role);
    await user.click(await screen.findByRole('button', { name: 'Knowledge gaps' }));
    const card = await screen.findByRole('listitem', { name: 'Do you ship to Mars?' });
    expect(within(card).getByText('Asked 3 times')).toBeInTheDocument();
    expect(within(card).queryByRole('button')).not.toBeInTheDocument();
  });
});
