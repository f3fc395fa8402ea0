/** Knowledge gaps' "Create knowledge item": the Knowledge Base tab opens the editor with the question. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleNavigationContext, type ConsoleNavigation } from '../console-navigation';
import { asMember } from '../../auth/testing/render-auth';
import { KnowledgeTab } from './KnowledgeTab';
import { fakeFeed, fakeKnowledgeServer } from './testing/fake-knowledge-server';
import { loadLegacyPdfJs } from './testing/legacy-pdfjs';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('KnowledgeTab with a draft from Knowledge gaps', () => {
  it('opens a new item prefilled with the question and its vertical, once, and saves it', async () => {
    const server = fakeKnowledgeServer([]);
    const navigation: ConsoleNavigation = {
      knowledgeDraft: { key: 1, draft: { title: 'How many vacation days do I get?', vertical: 'hr' } },
      createKnowledgeItem: vi.fn(),
      draftOpened: vi.fn(),
    };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <ConsoleNavigationContext.Provider value={navigation}>
          {asMember(<KnowledgeTab connectFeed={fakeFeed().connect} loadPdfJs={loadLegacyPdfJs} />)}
        </ConsoleNavigationContext.Provider>
      </QueryClientProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'New Knowledge Item' })).toBeInTheDocument();
    expect(screen.getByLabelText('Title')).toHaveValue('How many vacation days do I get?');
    expect(screen.getByLabelText('Vertical')).toHaveValue('hr');
    expect(screen.getByLabelText('Content')).toHaveValue('');
    expect(navigation.draftOpened).toHaveBeenCalledTimes(1);

    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Content'), 'Full-time staff get 25 vacation days a year.');
    await user.click(screen.getByRole('button', { name: /Save/ }));
    await waitFor(() => expect(server.callsTo('POST /api/knowledge')).toHaveLength(1));
    expect(server.callsTo('POST /api/knowledge')[0].body).toMatchObject({ title: 'How many vacation days do I get?', vertical: 'hr', content: 'Full-time staff get 25 vacation days a year.' });
  });
});
