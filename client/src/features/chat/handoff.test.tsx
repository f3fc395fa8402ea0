import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HandoffInfo } from '@shared/contracts/handoff';
import { makeReplyData } from './testing/factories';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';

const input = () => screen.getByRole('textbox', { name: 'Your message' });
const HANDOFF_PATH = '/api/visitor/conversations/handoff';

function info(overrides: Partial<HandoffInfo> = {}): HandoffInfo {
  return { state: 'waiting', version: 1, assignee: null, requestedAt: new Date().toISOString(), queuePosition: 2, expectedWaitSeconds: 180, ...overrides } as HandoffInfo;
}

/** A server that answers the handoff request (and nothing else: the page's other reads fail quietly). */
function handoffServer(result: { withinHours: boolean; message: string }) {
  const bodies: Record<string, string>[] = [];
  const fake = fakeFetch(async (url, init) => {
    if (url === HANDOFF_PATH && init.method === 'POST') {
      bodies.push(JSON.parse(String(init.body)));
      const data = { conversationId: 'c1', handoff: info(), nextOpening: result.withinHours ? null : '2026-11-30T08:00:00.000Z', ...result };
      return new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }
    throw new TypeError('Failed to fetch');
  });
  return { fetch: fake.fetch, bodies };
}

async function notFoundReply(chat: ReturnType<typeof renderChat>) {
  await chat.user.type(input(), 'Can I pay with gold bars?');
  await chat.user.keyboard('{Enter}');
  serverSays(() => chat.socket.done(chat.socket.lastSend().requestId, makeReplyData({ response: 'I could not find that.', answered: false, confidence: 0 })));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('chat page: talk to a person', () => {
  it('offers a person once the visitor gives a found answer a thumbs-down, and not before', async () => {
    // The vote goes through the page's global fetch (POST /api/feedback), answered as the server does.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => new Response(JSON.stringify({ success: true, data: JSON.parse(String(init?.body)) }), { status: 200, headers: { 'Content-Type': 'application/json' } })),
    );
    const server = handoffServer({ withinHours: true, message: 'A person will join you shortly.' });
    const chat = renderChat({ fetch: server.fetch });
    await chat.user.type(input(), 'Where is my parcel?');
    await chat.user.keyboard('{Enter}');
    serverSays(() => chat.socket.done(chat.socket.lastSend().requestId, makeReplyData({ answered: true, replyId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' })));
    expect(screen.queryByRole('button', { name: 'Talk to a person' })).not.toBeInTheDocument();
    await chat.user.click(screen.getByRole('button', { name: 'Not helpful' }));
    expect(await screen.findByRole('button', { name: 'Talk to a person' })).toBeInTheDocument();
    // Taking the vote back takes the offer back.
    await chat.user.click(screen.getByRole('button', { name: 'Not helpful' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Talk to a person' })).not.toBeInTheDocument());
  });

  it('offers a person after a not-found answer only', async () => {
    const server = handoffServer({ withinHours: true, message: 'A person will join you shortly.' });
    const chat = renderChat({ fetch: server.fetch });
    expect(screen.queryByRole('button', { name: 'Talk to a person' })).not.toBeInTheDocument();
    await chat.user.type(input(), 'Where is my parcel?');
    await chat.user.keyboard('{Enter}');
    serverSays(() => chat.socket.done(chat.socket.lastSend().requestId, makeReplyData({ answered: true })));
    expect(screen.queryByRole('button', { name: 'Talk to a person' })).not.toBeInTheDocument();
    await notFoundReply(chat);
    expect(screen.getByRole('button', { name: 'Talk to a person' })).toBeInTheDocument();
  });

  it('asking shows the queue place and the wait; a person joining, typing and replying shows live with their name', async () => {
    const server = handoffServer({ withinHours: true, message: 'A person will join you shortly.' });
    const chat = renderChat({ fetch: server.fetch });
    await notFoundReply(chat);
    await chat.user.click(screen.getByRole('button', { name: 'Talk to a person' }));
    const panel = await screen.findByRole('region', { name: 'Talk to a person' });
    await waitFor(() => expect(panel).toHaveTextContent('You are number 2 in the queue. Expected wait: about 3 min.'));
    expect(panel).toHaveTextContent('A person will join you shortly.');
    expect(server.bodies[0]).toMatchObject({ vertical: 'customer-service', language: 'en' });

    serverSays(() => chat.socket.fire('chat:handoff', { conversationId: 'c1', handoff: info({ state: 'open', version: 2, assignee: { id: 'm1', name: 'Dana' }, queuePosition: null }) }));
    expect(panel).toHaveTextContent('Dana is answering you.');
    serverSays(() => chat.socket.fire('chat:human-typing', { conversationId: 'c1', typing: true, author: { name: 'Dana' } }));
    expect(screen.getByTestId('human-typing')).toHaveTextContent('Dana is typing…');
    serverSays(() =>
      chat.socket.fire('chat:human', { conversationId: 'c1', message: { id: 'h1', content: 'Hello, I can help with the payment.', createdAt: new Date().toISOString(), author: { name: 'Dana' } } }),
    );
    const human = screen.getByText('Hello, I can help with the payment.').closest('article')!;
    expect(within(human as HTMLElement).getByText('Dana')).toBeInTheDocument();
    expect(screen.queryByTestId('human-typing')).not.toBeInTheDocument();

    serverSays(() => chat.socket.fire('chat:handoff', { conversationId: 'c1', handoff: info({ state: 'resolved', version: 3, queuePosition: null }) }));
    expect(screen.getByText('The conversation with our team has ended.')).toBeInTheDocument();
  });

  it('outside business hours: the next opening (the server words it) and a message with an email to leave', async () => {
    const server = handoffServer({ withinHours: false, message: 'Our team is back on Monday at 08:00.' });
    const chat = renderChat({ fetch: server.fetch });
    await notFoundReply(chat);
    await chat.user.click(screen.getByRole('button', { name: 'Talk to a person' }));
    const panel = await screen.findByRole('region', { name: 'Talk to a person' });
    await waitFor(() => expect(panel).toHaveTextContent('Our team is back on Monday at 08:00.'));
    expect(panel).not.toHaveTextContent('in the queue');
    await chat.user.type(within(panel).getByLabelText('Your message for our team'), 'Please call me about a gold payment.');
    await chat.user.type(within(panel).getByLabelText('Your email, for the answer if you leave'), 'visitor@example.com');
    await chat.user.click(within(panel).getByRole('button', { name: 'Leave a message' }));
    await waitFor(() => expect(server.bodies).toHaveLength(2));
    expect(server.bodies[1]).toMatchObject({ email: 'visitor@example.com', message: 'Please call me about a gold payment.' });
    await waitFor(() => expect(panel).toHaveTextContent('Thank you: the answer will also reach you by email.'));
  });
});

describe("chat page: a person's reply stays with its own conversation", () => {
  const human = (conversationId: string, id: string, content: string) => ({ conversationId, message: { id, content, createdAt: new Date().toISOString(), author: { name: 'Dana' } } });

  it('a reply for the conversation out of view is stored there (once), not in the open tab; a notice says where', async () => {
    const server = handoffServer({ withinHours: true, message: 'A person will join you shortly.' });
    const chat = renderChat({ fetch: server.fetch });
    await notFoundReply(chat);
    await chat.user.click(screen.getByRole('button', { name: 'Talk to a person' }));
    await screen.findByRole('region', { name: 'Talk to a person' });

    // The visitor looks at another vertical when Dana types and replies in the support conversation.
    await chat.user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    serverSays(() => chat.socket.fire('chat:human-typing', { conversationId: 'c1', typing: true, author: { name: 'Dana' } }));
    expect(screen.queryByTestId('human-typing')).not.toBeInTheDocument();
    serverSays(() => chat.socket.fire('chat:human', human('c1', 'h1', 'Gold bars are not accepted, sorry.')));
    await waitFor(() => expect(screen.getByText('Dana replied in your Customer Support conversation.')).toBeInTheDocument());
    expect(screen.queryByText('Gold bars are not accepted, sorry.')).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Talk to a person' })).not.toBeInTheDocument();

    // Back in support: the reply is there with Dana's name, and the same message again is not shown twice.
    await chat.user.click(screen.getByRole('tab', { name: /Customer Support/ }));
    const reply = screen.getByText('Gold bars are not accepted, sorry.').closest('article')!;
    expect(within(reply as HTMLElement).getByText('Dana')).toBeInTheDocument();
    serverSays(() => chat.socket.fire('chat:human', human('c1', 'h1', 'Gold bars are not accepted, sorry.')));
    await waitFor(() => expect(screen.getAllByText('Gold bars are not accepted, sorry.')).toHaveLength(1));
    expect(screen.getByRole('region', { name: 'Talk to a person' })).toBeInTheDocument();
  });

  it("a reply for a conversation this page does not know (another browser tab's) is looked up and shown in its own vertical", async () => {
    let lists = 0;
    const hrConversation = {
      id: 'c9',
      vertical: 'hr',
      jurisdiction: null,
      subJurisdiction: null,
      language: 'en',
      createdAt: '2026-01-01T10:00:00.000Z',
      updatedAt: '2026-01-01T10:00:00.000Z',
      truncated: false,
      handoff: { state: 'open', version: 2, assignee: { id: 'm1', name: 'Dana' }, requestedAt: '2026-01-01T10:00:00.000Z', queuePosition: null, expectedWaitSeconds: null },
      messages: [
        { id: 'u1', role: 'user', content: 'How many vacation days do I get?', createdAt: '2026-01-01T10:00:00.000Z', status: 'complete', language: 'en', requestId: null, reply: null, feedback: null, error: null },
        { id: 'h9', role: 'human', content: 'You get 25 days.', createdAt: '2026-01-01T10:02:00.000Z', status: 'complete', language: null, requestId: null, reply: null, feedback: null, error: null, author: { name: 'Dana' } },
      ],
    };
    const fake = fakeFetch(async (url, init) => {
      if (url === '/api/visitor/conversations' && (init.method ?? 'GET') === 'GET') {
        lists += 1;
        // At page load the visitor has nothing; the other tab's conversation exists by the time Dana replies.
        const conversations = lists === 1 ? [] : [hrConversation];
        return new Response(JSON.stringify({ success: true, data: { conversations } }), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }
      throw new TypeError('Failed to fetch');
    });
    const chat = renderChat({ fetch: fake.fetch });
    await waitFor(() => expect(lists).toBe(1));
    serverSays(() => chat.socket.fire('chat:human', human('c9', 'h9', 'You get 25 days.')));
    await waitFor(() => expect(screen.getByText('Dana replied in your Employee Support conversation.')).toBeInTheDocument());
    expect(screen.queryByText('You get 25 days.')).not.toBeInTheDocument();
    await chat.user.click(screen.getByRole('tab', { name: /Employee Support/ }));
    expect(screen.getByText('How many vacation days do I get?')).toBeInTheDocument();
    expect(screen.getAllByText('You get 25 days.')).toHaveLength(1);
    expect(within(screen.getByText('You get 25 days.').closest('article') as HTMLElement).getByText('Dana')).toBeInTheDocument();
  });
});
