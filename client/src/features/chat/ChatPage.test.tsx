import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LANGUAGES } from '@shared/catalog/languages';
import { VERTICALS } from '@shared/catalog/verticals';
import { makeReplyData } from './testing/factories';
import { FakeSocket } from './testing/fake-socket';
import { renderChat, serverSays } from './testing/render-chat';

// The message box, whatever the interface language.
const input = () => screen.getByRole('textbox');
const log = () => screen.getByRole('log', { name: 'Conversation' });
const agentMessages = () => Array.from(log().querySelectorAll('.message-agent'));
const lastAgent = () => agentMessages()[agentMessages().length - 1] as HTMLElement;

async function ask(user: ReturnType<typeof renderChat>['user'], text: string) {
  await user.type(input(), text);
  await user.keyboard('{Enter}');
}

beforeEach(() => {
  // jsdom has no layout: give every element a scroll height so auto-scroll is observable.
  vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockReturnValue(4321);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('chat page: header, tabs, panel and footer', () => {
  it('shows the brand banner with the tagline', () => {
    renderChat();
    expect(screen.getByRole('heading', { level: 1, name: 'Support Assistant' })).toBeInTheDocument();
    expect(screen.getByText('From questions to solutions, a fast lane for support')).toBeInTheDocument();
  });

  it('builds one tab per catalog vertical, with the icon the catalog names', () => {
    renderChat();
    const tabs = screen.getAllByRole('tab');
    expect(tabs).toHaveLength(VERTICALS.length);
    VERTICALS.forEach((vertical, i) => {
      expect(tabs[i]).toHaveTextContent(vertical.name);
      expect(tabs[i].querySelector('svg')).toHaveAttribute('data-icon', vertical.icon);
    });
  });

  it("shows 'More Services' disabled with its 'Coming Soon' badge; clicking it does nothing", async () => {
    const { user } = renderChat();
    const more = screen.getByRole('tab', { name: /More Services/ });
    expect(more).toHaveAttribute('aria-disabled', 'true');
    expect(within(more).getByText('Coming Soon')).toBeInTheDocument();
    await user.click(more);
    expect(more).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('tab', { name: /Customer Support/ })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('heading', { level: 2, name: 'Customer Support' })).toBeInTheDocument();
  });

  it('highlights the selected tab only', async () => {
    const { user } = renderChat();
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    const selected = screen.getAllByRole('tab').filter((t) => t.getAttribute('aria-selected') === 'true');
    expect(selected).toHaveLength(1);
    expect(selected[0]).toHaveTextContent('Sales Advisor');
    expect(selected[0]).toHaveClass('is-selected');
    expect(screen.getByRole('tab', { name: /Customer Support/ })).not.toHaveClass('is-selected');
  });

  it('moves between tabs with the arrow keys and selects with Enter; the disabled tab cannot be selected', async () => {
    const { user } = renderChat();
    screen.getByRole('tab', { name: /Customer Support/ }).focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: /Employee Support/ })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('tab', { name: /Employee Support/ })).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{End}');
    expect(screen.getByRole('tab', { name: /More Services/ })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('tab', { name: /Employee Support/ })).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: /Customer Support/ })).toHaveFocus();
  });

  it('titles the panel with the vertical name and its description', async () => {
    const { user } = renderChat();
    expect(screen.getByRole('heading', { level: 2, name: 'Customer Support' })).toBeInTheDocument();
    expect(screen.getByText('How Can I Help You Today?')).toBeInTheDocument();
    await user.click(screen.getByRole('tab', { name: /Employee Support/ }));
    expect(screen.getByRole('heading', { level: 2, name: 'Employee Support' })).toBeInTheDocument();
    expect(screen.getByText('Policies, benefits, time off and workplace matters')).toBeInTheDocument();
  });

  it('offers the 11 languages in the language dropdown, English first', () => {
    renderChat();
    const select = screen.getByRole('combobox', { name: 'Language' });
    const options = within(select).getAllByRole('option');
    expect(options).toHaveLength(11);
    expect(options.map((o) => o.getAttribute('value'))).toEqual(LANGUAGES.map((l) => l.code));
    expect(select).toHaveValue('en');
  });

  it('has a footer with the copyright line, "Available 24/7" and the Admin Dashboard link, for every visitor', () => {
    renderChat();
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText(`© ${new Date().getFullYear()} Support Assistant. All rights reserved.`)).toBeInTheDocument();
    expect(within(footer).getByText('Available 24/7')).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: 'Admin Dashboard' })).toHaveAttribute('href', '/admin');
  });
});

describe('chat page: conversation', () => {
  it("starts with the first vertical's welcome message", () => {
    renderChat();
    expect(agentMessages()).toHaveLength(1);
    expect(lastAgent()).toHaveTextContent(VERTICALS[0].welcomeMessage);
  });

  it("changing vertical shows that vertical's conversation, and coming back shows the first one again", async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData()));
    expect(log().querySelectorAll('.message')).toHaveLength(3);
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    const messages = log().querySelectorAll('.message');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toHaveTextContent(VERTICALS.find((v) => v.id === 'sales')!.welcomeMessage);
    await user.click(screen.getByRole('tab', { name: /Customer Support/ }));
    const back = log().querySelectorAll('.message');
    expect(back).toHaveLength(3);
    expect(back[1]).toHaveTextContent('Where is my parcel?');
    expect(back[2]).toHaveTextContent('Your order ships today.');
  });

  it('a reply keeps streaming into its own conversation while the visitor reads another tab', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    const { requestId } = socket.lastSend();
    await user.click(screen.getByRole('tab', { name: /Sales Advisor/ }));
    serverSays(() => socket.delta(requestId, 'Your order', 1));
    serverSays(() => socket.done(requestId, makeReplyData({ response: 'Your order ships today.' }), 2));
    expect(log().querySelectorAll('.message')).toHaveLength(1);
    expect(socket.cancels()).toEqual([]);
    await user.click(screen.getByRole('tab', { name: /Customer Support/ }));
    expect(lastAgent()).toHaveTextContent('Your order ships today.');
    expect(lastAgent()).not.toHaveAttribute('data-streaming');
  });

  it('Enter sends, the question appears and the input clears', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    expect(socket.sends()).toHaveLength(1);
    expect(socket.lastSend().query).toBe('Where is my parcel?');
    expect(log().querySelector('.message-user')).toHaveTextContent('Where is my parcel?');
    expect(input()).toHaveValue('');
  });

  it('Shift+Enter inserts a new line instead of sending', async () => {
    const { user, socket } = renderChat();
    await user.type(input(), 'Line one{Shift>}{Enter}{/Shift}Line two');
    expect(input()).toHaveValue('Line one\nLine two');
    expect(socket.sends()).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(socket.lastSend().query).toBe('Line one\nLine two');
  });

  it('sends the /interact payload, with the prior messages as history', async () => {
    const { user, socket } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'es');
    await ask(user, 'First question');
    const first = socket.lastSend();
    serverSays(() => socket.done(first.requestId, makeReplyData({ response: 'First answer' })));
    await ask(user, '  Second question  ');
    const payload = socket.lastSend();
    expect(payload.requestId).toMatch(/^[A-Za-z0-9._:-]{1,100}$/);
    expect(payload.requestId).not.toBe(first.requestId);
    expect(payload).toEqual({
      requestId: payload.requestId,
      query: 'Second question',
      vertical: 'customer-service',
      userId: 'demo-user',
      conversationHistory: [
        { type: 'agent', content: VERTICALS[0].welcomeMessage, timestamp: expect.any(String) },
        { type: 'user', content: 'First question', timestamp: expect.any(String) },
        { type: 'agent', content: 'First answer', timestamp: expect.any(String) },
      ],
      preferredLanguage: 'Spanish',
      detectedLanguage: 'es',
      context: { preferredLanguage: 'Spanish', skipTranslation: false },
    });
    for (const entry of payload.conversationHistory!) expect(new Date(entry.timestamp!).toISOString()).toBe(entry.timestamp);
  });

  it('sets skipTranslation only for English', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Hello');
    expect(socket.lastSend().context).toEqual({ preferredLanguage: 'English', skipTranslation: true });
    expect(socket.lastSend().preferredLanguage).toBe('English');
  });

  it("shows 'Processing with Core Intelligence...' until the first streamed text, then the growing reply", async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    const { requestId } = socket.lastSend();
    expect(within(lastAgent()).getByText('Processing with Core Intelligence...')).toBeInTheDocument();
    serverSays(() => socket.delta(requestId, 'Your order'));
    expect(screen.queryByText('Processing with Core Intelligence...')).not.toBeInTheDocument();
    expect(lastAgent()).toHaveTextContent('Your order');
    serverSays(() => socket.delta(requestId, ' ships today'));
    expect(lastAgent()).toHaveTextContent('Your order ships today');
    expect(lastAgent()).toHaveAttribute('data-streaming', 'true');
  });

  it('shows the cited source titles and the processing time under a finished reply', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ executionTime: 1234 })));
    const reply = lastAgent();
    expect(reply).not.toHaveAttribute('data-streaming');
    const meta = reply.querySelector('.message-meta') as HTMLElement;
    expect(within(meta).getByText('Shipping times and costs')).toBeInTheDocument();
    expect(within(meta).getByText('Tracking your order')).toBeInTheDocument();
    expect(meta).toHaveTextContent('1.2 s');
  });

  it('under a reply that found nothing but names another vertical, "Ask in ..." switches to that tab and asks the question there', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'How many vacation days do I get?');
    const first = socket.lastSend();
    expect(first.vertical).toBe('customer-service');
    serverSays(() => socket.done(first.requestId, makeReplyData({ sources: [], answered: false, suggestedVertical: 'hr', response: 'Nothing here.' })));
    const button = within(lastAgent()).getByRole('button', { name: 'Ask in Employee Support' });
    await user.click(button);
    expect(screen.getByRole('tab', { name: /Employee Support/ })).toHaveAttribute('aria-selected', 'true');
    const second = socket.lastSend();
    expect(second.requestId).not.toBe(first.requestId);
    expect(second).toMatchObject({ vertical: 'hr', query: 'How many vacation days do I get?' });
    // The history is the new vertical's welcome only, not the other vertical's conversation.
    expect(second.conversationHistory?.map((m) => m.type)).toEqual(['agent']);
    expect(second.conversationHistory?.[0].content).toMatch(/employee support assistant/);
    // The conversation starts over in Employee Support with the question asked.
    expect(within(log()).getAllByText('How many vacation days do I get?')).toHaveLength(1);
  });

  it('offers no "Ask in" button when the reply names no other vertical', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Zyxqv?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ sources: [], answered: false })));
    expect(within(lastAgent()).queryByRole('button', { name: /^Ask in/ })).toBeNull();
  });

  it('shows the processing time but no sources line when the reply cited nothing', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Zyxqv?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ sources: [], executionTime: 80 })));
    expect(lastAgent().querySelector('.message-sources')).toBeNull();
    expect(lastAgent().querySelector('.message-meta')).toHaveTextContent('80 ms');
  });

  it('renders markdown safely: formatting yes, raw HTML no, links open in a new tab without an opener', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Format please');
    const markdown = [
      '**Bold** and a list:',
      '',
      '- one',
      '- two',
      '',
      '<img src="x" onerror="alert(1)"><script>alert(2)</script><b>raw</b>',
      '',
      '[Help centre](https://example.com/help) and [bad](javascript:alert(3))',
    ].join('\n');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: markdown })));
    const reply = lastAgent();
    expect(reply.querySelector('strong')).toHaveTextContent('Bold');
    expect(reply.querySelectorAll('li')).toHaveLength(2);
    expect(reply.querySelector('img')).toBeNull();
    expect(reply.querySelector('script')).toBeNull();
    expect(reply.querySelector('b')).toBeNull();
    const link = within(reply).getByRole('link', { name: 'Help centre' });
    expect(link).toHaveAttribute('href', 'https://example.com/help');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    const bad = within(reply).getByText('bad');
    expect(bad.getAttribute('href') ?? '').not.toMatch(/javascript:/i);
  });

  it('scrolls the message list to the newest message', async () => {
    const { user, socket } = renderChat();
    const list = log();
    list.scrollTop = 0;
    await ask(user, 'Where is my parcel?');
    expect(list.scrollTop).toBe(4321);
    list.scrollTop = 0;
    serverSays(() => socket.delta(socket.lastSend().requestId, 'Growing reply'));
    expect(list.scrollTop).toBe(4321);
  });
});

describe('chat page: refusals', () => {
  it('refuses an empty or whitespace-only message', async () => {
    const { user, socket } = renderChat();
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.type(input(), '   ');
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.keyboard('{Enter}');
    expect(socket.sends()).toHaveLength(0);
    expect(log().querySelectorAll('.message-user')).toHaveLength(0);
  });

  it('refuses to send while a reply is pending', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'First');
    await ask(user, 'Second');
    expect(socket.sends()).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Send' })).not.toBeInTheDocument();
    expect(input()).toHaveValue('Second');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData()));
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(socket.sends()).toHaveLength(2);
  });

  it('offline, the visitor keeps typing; Send keeps the message and it goes out when the connection is back', async () => {
    const { socket, user } = renderChat();
    serverSays(() => socket.serverDisconnect());
    expect(input()).toBeEnabled();
    await ask(user, 'Where is my parcel?');
    expect(socket.sends()).toHaveLength(0);
    expect(input()).toHaveValue('Where is my parcel?');
    expect(screen.getByText('Your message will be sent when the connection is back.')).toBeInTheDocument();
    await user.type(input(), ' Order 42');
    serverSays(() => socket.serverConnect());
    await waitFor(() => expect(socket.sends()).toHaveLength(1));
    expect(socket.lastSend().query).toBe('Where is my parcel? Order 42');
    expect(input()).toHaveValue('');
    expect(screen.queryByText('Your message will be sent when the connection is back.')).not.toBeInTheDocument();
  });

  it('a message waiting for the connection can be cancelled; it then stays in the box unsent', async () => {
    const { socket, user } = renderChat();
    serverSays(() => socket.serverDisconnect());
    await ask(user, 'Hello');
    await user.click(screen.getByRole('button', { name: 'Cancel sending' }));
    serverSays(() => socket.serverConnect());
    expect(socket.sends()).toHaveLength(0);
    expect(input()).toHaveValue('Hello');
  });
});

describe('chat page: Stop', () => {
  it('shows Stop while a reply streams; Stop sends chat:cancel and keeps the partial text, marked stopped', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Tell me a long story');
    const { requestId } = socket.lastSend();
    serverSays(() => socket.delta(requestId, 'Once upon a time'));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(socket.cancels()).toEqual([requestId]);
    expect(lastAgent()).toHaveTextContent('Once upon a time');
    expect(within(lastAgent()).getByText('Stopped')).toBeInTheDocument();
    expect(lastAgent()).toHaveAttribute('data-stopped', 'true');
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument();
  });

  it("does not turn the server's 'cancelled' error (or late frames) into an error message", async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Tell me a long story');
    const { requestId } = socket.lastSend();
    serverSays(() => socket.delta(requestId, 'Once upon a time'));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    serverSays(() => {
      socket.delta(requestId, ' there was');
      socket.error(requestId, 'The request was cancelled.', 'cancelled');
    });
    expect(screen.queryByText(/I apologize/)).not.toBeInTheDocument();
    expect(lastAgent()).toHaveTextContent(/^Once upon a time/);
    expect(lastAgent()).not.toHaveTextContent('there was');
  });
});

describe('chat page: errors', () => {
  it('appends the apology with the server message when the reply fails', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    serverSays(() => socket.error(socket.lastSend().requestId, 'The model provider is not responding.'));
    expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: The model provider is not responding. Please try again.');
    expect(lastAgent()).toHaveClass('message-error');
  });

  it("uses 'Unknown error' when the failure has no message", async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    serverSays(() => socket.error(socket.lastSend().requestId, ''));
    expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Unknown error. Please try again.');
  });

  it("uses 'Failed to send message' when the server refuses the message without saying why", async () => {
    const socket = new FakeSocket();
    socket.ack = { accepted: false, error: { code: 'server_restarting', message: '' } };
    const { user } = renderChat({ socket });
    await ask(user, 'Where is my parcel?');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Failed to send message. Please try again.'));
  });

  it('a message a rate limit refused: the question goes back into the composer, a countdown says when to send again, Send waits for it', async () => {
    const socket = new FakeSocket();
    socket.ack = { accepted: false, error: { code: 'rate_limited', message: 'Too many messages. Try again in 2 s.', retryAfter: 2 } };
    const { user } = renderChat({ socket });
    const before = agentMessages().length;
    await ask(user, 'Where is my parcel?');
    const notice = await screen.findByTestId('rate-limit-notice');
    expect(notice).toHaveTextContent(/Too many messages.*You can send again in [12] s\./);
    // Not an apology in the conversation: the question was not taken, and the text is kept.
    expect(agentMessages()).toHaveLength(before);
    expect(log()).not.toHaveTextContent('Where is my parcel?');
    expect(input()).toHaveValue('Where is my parcel?');
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    await user.keyboard('{Enter}');
    expect(socket.sends()).toHaveLength(1);
    // The countdown ends; the same text can be sent.
    await waitFor(() => expect(screen.queryByTestId('rate-limit-notice')).toBeNull(), { timeout: 4000 });
    socket.ack = { accepted: true };
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(socket.sends()).toHaveLength(2));
    expect(log()).toHaveTextContent('Where is my parcel?');
  });

  it("checks the message with the server's contract first: a 4,001-character question is refused in the same words, and nothing is sent", async () => {
    const { user, socket } = renderChat();
    await user.click(input());
    await user.paste('a'.repeat(4001));
    await user.keyboard('{Enter}');
    await waitFor(() =>
      expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: The question can be at most 4,000 characters long. Please try again.'),
    );
    expect(socket.sends()).toEqual([]);
    // The composer is free again: a normal question goes out.
    await ask(user, 'Where is my parcel?');
    await waitFor(() => expect(socket.sends()).toHaveLength(1));
  });

  it("shows the server's reason when it refuses the message", async () => {
    const socket = new FakeSocket();
    socket.ack = { accepted: false, error: { code: 'query_too_long', message: 'Questions can be at most 4000 characters long.' } };
    const { user } = renderChat({ socket });
    await ask(user, 'Where is my parcel?');
    await waitFor(() =>
      expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Questions can be at most 4000 characters long. Please try again.'),
    );
  });

  it('a dropped connection does not end the reply: on reconnect it resumes after the last frame, without repeating text', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my parcel?');
    const { requestId } = socket.lastSend();
    // The acknowledgement (with the reply id) arrives a microtask after the send.
    await act(() => Promise.resolve());
    serverSays(() => socket.delta(requestId, 'Your order', 1));
    serverSays(() => socket.delta(requestId, ' ships', 2));
    serverSays(() => socket.serverDisconnect());
    expect(lastAgent()).toHaveAttribute('data-streaming', 'true');
    expect(screen.queryByText(/I apologize/)).not.toBeInTheDocument();
    serverSays(() => socket.serverConnect());
    expect(socket.resumes()).toEqual([{ requestId, replyId: `reply-${requestId}`, after: 2 }]);
    // The resumed stream overlaps what arrived live: frame 2 again is dropped.
    serverSays(() => socket.delta(requestId, ' ships', 2));
    serverSays(() => socket.delta(requestId, ' today.', 3));
    serverSays(() => socket.done(requestId, makeReplyData({ response: 'Your order ships today.' }), 4));
    expect(lastAgent()).toHaveTextContent('Your order ships today.');
    expect(lastAgent().textContent).not.toMatch(/ships ships/);
  });

  it("uses 'Failed to get response' when the connection drops before the server acknowledged the question", async () => {
    const socket = new FakeSocket();
    socket.ack = null;
    const { user } = renderChat({ socket });
    await ask(user, 'Where is my parcel?');
    serverSays(() => socket.serverDisconnect());
    expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Failed to get response. Please try again.');
  });

  it('times out a reply after the configured time, with an error message, and cancels it upstream', async () => {
    const { user, socket } = renderChat({ requestTimeoutMs: 40 });
    await ask(user, 'Where is my parcel?');
    const { requestId } = socket.lastSend();
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Request timed out. Please try again.'));
    expect(socket.cancels()).toEqual([requestId]);
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument();
  });
});

describe('chat page: connection state', () => {
  const banner = () => screen.queryByText('System offline. Please check connection.');

  it('before the first answer: no banner, no "Connecting" in its first moment, and the visitor can already type', async () => {
    renderChat({ online: false });
    expect(banner()).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
    expect(input()).toHaveAttribute('placeholder', 'Type your message...');
    expect(screen.queryByText('Connecting')).not.toBeInTheDocument();
    // A first connection that takes long is said to be under way.
    await waitFor(() => expect(input()).toHaveAttribute('placeholder', 'Connecting...'), { timeout: 3000 });
    expect(screen.getByText('Connecting')).toBeInTheDocument();
  });

  it('is online while the socket is up and the last health push said healthy', () => {
    renderChat();
    expect(banner()).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
    expect(input()).toHaveAttribute('placeholder', 'Type your message...');
  });

  it("an unhealthy health push shows the spec's 'System offline. Please check connection.' and placeholder, and leaves the input usable", () => {
    const { socket } = renderChat();
    serverSays(() => socket.health('unhealthy'));
    expect(banner()?.closest('.offline-banner')).toHaveTextContent('System offline. Please check connection. You can keep typing');
    expect(input()).toHaveAttribute('placeholder', 'System offline...');
    expect(input()).toBeEnabled();
    serverSays(() => socket.health('healthy'));
    expect(banner()).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
  });

  it('goes offline when the socket drops and recovers by itself when it reconnects and reports healthy', () => {
    const { socket } = renderChat();
    serverSays(() => socket.serverDisconnect());
    expect(banner()).toBeInTheDocument();
    serverSays(() => socket.serverConnect(null));
    expect(banner()).toBeInTheDocument();
    serverSays(() => socket.health('healthy'));
    expect(banner()).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
  });

  it('shows offline when the socket cannot connect and GET /health does not answer', async () => {
    const { socket } = renderChat({ online: false });
    serverSays(() => socket.connectError());
    await waitFor(() => expect(banner()).toBeInTheDocument());
    expect(input()).toBeEnabled();
  });
});

describe('chat page: voice availability', () => {
  it('has no microphone button where the browser lacks speech recognition', () => {
    renderChat();
    expect(screen.queryByRole('button', { name: 'Start voice input' })).not.toBeInTheDocument();
  });
});

describe('chat page: cleanup', () => {
  it('closes the socket when the page unmounts', () => {
    const { socket, unmount } = renderChat();
    act(() => unmount());
    expect(socket.closed).toBe(true);
  });
});
