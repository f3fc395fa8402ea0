import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { VisitorConversation, VisitorMessage } from '@shared/contracts/conversations';
import { VERTICALS } from '@shared/catalog/verticals';
import { stringsFor } from './i18n';
import { makeReplyData } from './testing/factories';
import { FakeSocket } from './testing/fake-socket';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';

const log = () => screen.getByRole('log');
const messageTexts = () => Array.from(log().querySelectorAll('.message')).map((m) => m.textContent ?? '');
const lastAgent = () => {
  const agents = log().querySelectorAll('.message-agent');
  return agents[agents.length - 1] as HTMLElement;
};
const welcome = (id: string) => VERTICALS.find((v) => v.id === id)!.welcomeMessage;

function json(data: unknown, status = 200): Response {
  return new Response(JSON.stringify(status < 400 ? { success: true, data } : { success: false, error: { code: 'x', message: 'no' } }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

let nextId = 1;
function message(overrides: Partial<VisitorMessage>): VisitorMessage {
  return {
    id: `00000000-0000-7000-8000-${String(nextId++).padStart(12, '0')}`,
    role: 'user',
    content: '',
    createdAt: '2026-01-01T10:00:00.000Z',
    status: 'complete',
    language: 'en',
    requestId: null,
    reply: null,
    feedback: null,
    error: null,
    ...overrides,
  };
}

function conversation(overrides: Partial<VisitorConversation>): VisitorConversation {
  return {
    id: `c-${nextId++}`,
    vertical: 'customer-service',
    jurisdiction: null,
    subJurisdiction: null,
    language: 'en',
    createdAt: '2026-01-01T10:00:00.000Z',
    updatedAt: '2026-01-01T10:00:00.000Z',
    messages: [],
    truncated: false,
    handoff: { state: 'bot', version: 0, assignee: null, requestedAt: null, queuePosition: null, expectedWaitSeconds: null },
    ...overrides,
  };
}

/** A server that has these conversations for the visitor, and records the calls the page makes. */
function serverWith(conversations: VisitorConversation[], replies: Record<string, unknown> = {}) {
  return fakeFetch(async (url, init) => {
    if (url === '/api/visitor/conversations' && (init.method ?? 'GET') === 'GET') return json({ conversations });
    if (url === '/api/visitor/conversations' && init.method === 'DELETE') return json({ deleted: conversations.length });
    if (url === '/api/visitor/conversations/new') return json({ closed: 1 });
    const reply = /^\/interact\/replies\/([^/]+)$/.exec(url);
    if (reply && replies[reply[1]]) return json(replies[reply[1]]);
    return new Response(null, { status: 404 });
  });
}

function supportExchange(): VisitorConversation {
  const reply = message({ role: 'agent', content: 'Your order ships today.', feedback: 'down' });
  reply.reply = makeReplyData({ response: reply.content, replyId: reply.id });
  return conversation({ messages: [message({ role: 'user', content: 'Where is my parcel?' }), reply] });
}

describe('conversations kept on the server', () => {
  it('shows each vertical its own conversation read back from the server, with its sources and the vote given', async () => {
    const net = serverWith([
      supportExchange(),
      conversation({ vertical: 'sales', messages: [message({ role: 'user', content: 'How do I close a deal?' }), message({ role: 'agent', content: 'Ask for it.', reply: makeReplyData({ response: 'Ask for it.', vertical: 'sales' }) })] }),
    ]);
    const { user } = renderChat({ fetch: net.fetch });
    await waitFor(() => expect(messageTexts()).toHaveLength(3));
    expect(messageTexts()[0]).toContain(welcome('customer-service'));
    expect(messageTexts()[1]).toContain('Where is my parcel?');
    expect(lastAgent()).toHaveTextContent('Your order ships today.');
    expect(lastAgent()).toHaveTextContent('Shipping times and costs');
    expect(within(lastAgent()).getByRole('button', { name: 'Not helpful' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    expect(messageTexts()).toHaveLength(3);
    expect(lastAgent()).toHaveTextContent('Ask for it.');
  });

  it('shows a person asked for before the reload again: the place in the queue, or who is answering', async () => {
    const waiting = { ...supportExchange(), handoff: { state: 'waiting' as const, version: 2, assignee: null, requestedAt: '2026-01-01T10:01:00.000Z', queuePosition: 2, expectedWaitSeconds: 120 } };
    const taken = conversation({
      vertical: 'sales',
      messages: [message({ role: 'user', content: 'Can I get a discount?' })],
      handoff: { state: 'open', version: 3, assignee: { id: 'm1', name: 'Maya' }, requestedAt: '2026-01-01T10:01:00.000Z', queuePosition: null, expectedWaitSeconds: null },
    });
    const net = serverWith([waiting, taken]);
    const { user } = renderChat({ fetch: net.fetch });
    expect(await screen.findByText('You are number 2 in the queue.', { exact: false })).toBeInTheDocument();
    expect(screen.getByLabelText('Your email, for the answer if you leave')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    expect(await screen.findByText('Maya is answering you.')).toBeInTheDocument();
    expect(screen.queryByText('You are number 2 in the queue.', { exact: false })).not.toBeInTheDocument();
  });

  it('comes back on the tab, language and jurisdiction the visitor left, with that jurisdiction’s conversation', async () => {
    const first = renderChat();
    await first.user.click(screen.getByRole('tab', { name: /Legal Advisor/ }));
    const dialog = screen.getByRole('dialog');
    await first.user.click(within(dialog).getByRole('button', { name: /Japan/ }));
    await first.user.selectOptions(screen.getByRole('combobox'), 'es');
    first.unmount();

    const net = serverWith([
      conversation({ vertical: 'legal', jurisdiction: 'JP', messages: [message({ role: 'user', content: 'How do I register a company?' }), message({ role: 'agent', content: 'At the Legal Affairs Bureau.', reply: makeReplyData({ response: 'At the Legal Affairs Bureau.', vertical: 'legal' }) })] }),
    ]);
    renderChat({ fetch: net.fetch });
    // The interface is in Spanish now.
    expect(screen.getByRole('tab', { name: new RegExp(stringsFor('es').verticals.legal.name) })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('combobox')).toHaveValue('es');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => expect(messageTexts()).toHaveLength(4));
    const es = stringsFor('es').legal;
    expect(messageTexts()[1]).toContain(es.welcome(es.jurisdictions.JP.name, es.legalSystems['Civil Law']));
    expect(lastAgent()).toHaveTextContent('At the Legal Affairs Bureau.');
  });

  it('picks up a reply the server is still writing after a reload: resumes it from its first frame', async () => {
    const streaming = message({ role: 'agent', status: 'streaming', requestId: 'c-old' });
    const net = serverWith([conversation({ messages: [message({ role: 'user', content: 'Where is my parcel?' }), streaming] })]);
    const socket = new FakeSocket();
    renderChat({ socket, fetch: net.fetch });
    await waitFor(() => expect(socket.resumes()).toEqual([{ requestId: streaming.id, replyId: streaming.id, after: 0 }]));
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
    serverSays(() => socket.delta(streaming.id, 'Your order', 1));
    serverSays(() => socket.done(streaming.id, makeReplyData({ response: 'Your order ships today.' }), 2));
    expect(lastAgent()).toHaveTextContent('Your order ships today.');
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument();
  });

  it('a reply that ended while the page was away is read back by id when it can no longer be resumed', async () => {
    const streaming = message({ role: 'agent', status: 'streaming' });
    const done = makeReplyData({ response: 'Your order ships today.' });
    const net = serverWith([conversation({ messages: [message({ role: 'user', content: 'Where is my parcel?' }), streaming] })], {
      [streaming.id]: { replyId: streaming.id, status: 'complete', text: done.response, seq: 0, data: done, error: null },
    });
    const socket = new FakeSocket();
    socket.resumeAck = { accepted: false, error: { code: 'not_found', message: 'That reply is no longer streaming.' } };
    renderChat({ socket, fetch: net.fetch });
    await waitFor(() => expect(lastAgent()).toHaveTextContent('Your order ships today.'));
    expect(lastAgent()).not.toHaveAttribute('data-streaming');
    expect(net.calls.map((c) => c.url)).toContain(`/interact/replies/${streaming.id}`);
  });

  it('New chat empties the panel and tells the server (this vertical only); nothing to start over offers nothing', async () => {
    const net = serverWith([supportExchange(), conversation({ vertical: 'hr', messages: [message({ role: 'user', content: 'Holidays?' }), message({ role: 'agent', content: '25 days.', reply: makeReplyData({ response: '25 days.', vertical: 'hr' }) })] })]);
    const { user } = renderChat({ fetch: net.fetch });
    await waitFor(() => expect(messageTexts()).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: 'New chat' }));
    expect(messageTexts()).toEqual([expect.stringContaining(welcome('customer-service'))]);
    expect(screen.getByRole('button', { name: 'New chat' })).toBeDisabled();
    const call = net.calls.find((c) => c.url === '/api/visitor/conversations/new')!;
    expect(call.init.method).toBe('POST');
    expect(JSON.parse(String(call.init.body))).toEqual({ vertical: 'customer-service' });
    await user.click(screen.getByRole('tab', { name: /Employee Support/ }));
    expect(messageTexts()).toHaveLength(3);
  });

  it('deletes every conversation after a confirmation: the server is asked, every panel starts over', async () => {
    const net = serverWith([supportExchange(), conversation({ vertical: 'hr', messages: [message({ role: 'user', content: 'Holidays?' })] })]);
    const { user } = renderChat({ fetch: net.fetch });
    await waitFor(() => expect(messageTexts()).toHaveLength(3));
    await user.click(screen.getByRole('button', { name: 'Delete my conversations' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete your conversations?' });
    expect(dialog).toHaveTextContent('It cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(net.calls.some((c) => c.init.method === 'DELETE')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Delete my conversations' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(net.calls.filter((c) => c.init.method === 'DELETE').map((c) => c.url)).toEqual(['/api/visitor/conversations']);
    expect(messageTexts()).toHaveLength(1);
    await user.click(screen.getByRole('tab', { name: /Employee Support/ }));
    expect(messageTexts()).toEqual([expect.stringContaining(welcome('hr'))]);
  });

  it('keeps the dialog open with a message when the server cannot delete', async () => {
    const net = fakeFetch(async (url, init) => (url === '/api/visitor/conversations' && init.method === 'DELETE' ? json(null, 503) : json({ conversations: [] })));
    const { user } = renderChat({ fetch: net.fetch });
    await user.click(screen.getByRole('button', { name: 'Delete my conversations' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(within(screen.getByRole('dialog')).getByRole('alert')).toHaveTextContent('Your conversations could not be deleted.'));
  });

  it('Stop on a resumed reply stops it on the server', async () => {
    const streaming = message({ role: 'agent', status: 'streaming' });
    const net = serverWith([conversation({ messages: [message({ role: 'user', content: 'Tell me a story' }), streaming] })]);
    const socket = new FakeSocket();
    const { user } = renderChat({ socket, fetch: net.fetch });
    await waitFor(() => expect(socket.resumes()).toHaveLength(1));
    serverSays(() => socket.delta(streaming.id, 'Once upon', 1));
    await act(() => Promise.resolve());
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(socket.cancels()).toEqual([streaming.id]);
    expect(lastAgent()).toHaveTextContent('Stopped');
  });
});
