import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { makeReplyData } from './testing/factories';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';

const input = () => screen.getByRole('textbox', { name: 'Your message' });
const log = () => screen.getByRole('log', { name: 'Conversation' });
const agentMessages = () => Array.from(log().querySelectorAll('.message-agent')) as HTMLElement[];
const lastAgent = () => agentMessages()[agentMessages().length - 1];

async function ask(user: ReturnType<typeof renderChat>['user'], text: string) {
  await user.type(input(), text);
  await user.keyboard('{Enter}');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('replies: GitHub-flavoured markdown', () => {
  it('renders a markdown table as a table, with its header and cells', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Plans?');
    const table = ['| Tier | Price |', '|---|---|', '| Basic | $10 |', '| Pro | $25 |'].join('\n');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: `Our plans:\n\n${table}` })));
    const rendered = within(lastAgent()).getByRole('table');
    expect(within(rendered).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Tier', 'Price']);
    expect(within(rendered).getAllByRole('cell').map((c) => c.textContent)).toEqual(['Basic', '$10', 'Pro', '$25']);
    expect(lastAgent()).not.toHaveTextContent('|---|');
  });

  it('renders numbered lists and strikethrough', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Steps?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: '1. Open settings\n2. Choose ~~Billing~~ Plans\n3. Save' })));
    expect(lastAgent().querySelectorAll('ol > li')).toHaveLength(3);
    expect(lastAgent().querySelector('del')).toHaveTextContent('Billing');
  });

  it('shows a code block with a copy button that copies exactly the code', async () => {
    const { user, socket } = renderChat();
    // user-event puts a clipboard stub of its own on navigator: read what was copied from it.
    await ask(user, 'Config?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'Use:\n\n```json\n{ "retries": 3 }\n```' })));
    const block = lastAgent().querySelector('.code-block') as HTMLElement;
    expect(block.querySelector('pre code')).toHaveTextContent('{ "retries": 3 }');
    await user.click(within(block).getByRole('button', { name: 'Copy code' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('{ "retries": 3 }');
    expect(within(block).getByText('Copied')).toBeInTheDocument();
  });
});

describe('replies: copy, retry and regenerate', () => {
  it('copies a reply as its markdown text', async () => {
    const { user, socket } = renderChat();
    // user-event puts a clipboard stub of its own on navigator: read what was copied from it.
    await ask(user, 'Hi');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: '**Hello** there' })));
    await user.click(within(lastAgent()).getByRole('button', { name: 'Copy' }));
    await expect(navigator.clipboard.readText()).resolves.toBe('**Hello** there');
    expect(within(lastAgent()).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('the welcome message has no actions', () => {
    renderChat();
    expect(within(lastAgent()).queryByRole('button', { name: 'Copy' })).not.toBeInTheDocument();
    expect(within(lastAgent()).queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
  });

  it('Retry after Stop asks the same question again and the new reply replaces the stopped one', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Where is my order?');
    const first = socket.lastSend();
    serverSays(() => socket.delta(first.requestId, 'Your order'));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(lastAgent()).toHaveAttribute('data-stopped', 'true');
    await user.click(within(lastAgent()).getByRole('button', { name: 'Retry' }));
    expect(socket.sends()).toHaveLength(2);
    const second = socket.lastSend();
    expect(second.query).toBe('Where is my order?');
    expect(second.requestId).not.toBe(first.requestId);
    // The history is what came before the question (the stopped reply is not part of it).
    expect(second.conversationHistory?.map((m) => m.content)).not.toContain('Your order');
    serverSays(() => socket.done(second.requestId, makeReplyData({ response: 'It ships today.' })));
    const texts = agentMessages().map((m) => m.querySelector('.message-content')?.textContent);
    expect(texts).toContain('It ships today.');
    expect(texts).not.toContain('Your order');
    expect(Array.from(log().querySelectorAll('.message-user'))).toHaveLength(1);
  });

  it('Retry after an error replaces the apology with the new reply', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Refund?');
    serverSays(() => socket.error(socket.lastSend().requestId, 'The model is overloaded'));
    expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: The model is overloaded. Please try again.');
    await user.click(within(lastAgent()).getByRole('button', { name: 'Retry' }));
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'Refunds take 5 days.' })));
    expect(lastAgent()).toHaveTextContent('Refunds take 5 days.');
    expect(log()).not.toHaveTextContent('overloaded');
  });

  it('Regenerate is offered on the last reply only, and asks again', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'One');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'First answer' })));
    await ask(user, 'Two');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ response: 'Second answer' })));
    expect(screen.getAllByRole('button', { name: 'Regenerate' })).toHaveLength(1);
    await user.click(within(lastAgent()).getByRole('button', { name: 'Regenerate' }));
    expect(socket.lastSend().query).toBe('Two');
    expect(screen.queryByRole('button', { name: 'Regenerate' })).not.toBeInTheDocument();
  });

  it('the thumbs are 44 px buttons in a row that is there before any vote (the thanks note takes no new line)', async () => {
    const { user, socket } = renderChat();
    await ask(user, 'Hi');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ replyId: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' })));
    const row = lastAgent().querySelector('.message-actions') as HTMLElement;
    const thumbs = within(row).getByRole('button', { name: 'Helpful' });
    expect(thumbs).toHaveClass('reply-action');
    // The status slot exists (empty) before the vote, in the same row.
    expect(within(row).getByRole('status')).toHaveTextContent('');
  });
});

describe('replies: sources', () => {
  it('a source chip opens the cited item in a side panel, read from the public knowledge route', async () => {
    const { fetch, calls } = fakeFetch(async (url) => {
      if (url.startsWith('/api/public/knowledge/k1')) {
        return new Response(
          JSON.stringify({
            success: true,
            data: { id: 'k1', title: 'Shipping times and costs', content: 'Orders ship in **2 days**.', vertical: 'customer-service', jurisdiction: null, subRegion: null, updatedAt: '2026-01-01T00:00:00.000Z' },
          }),
          { status: 200, headers: { 'Content-Type': 'application/json' } },
        );
      }
      throw new TypeError('Failed to fetch');
    });
    const { user, socket } = renderChat({ fetch });
    await ask(user, 'Shipping?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData()));
    await user.click(within(lastAgent()).getByRole('button', { name: 'Open source: Shipping times and costs' }));
    const panel = await screen.findByRole('dialog', { name: 'Shipping times and costs' });
    await waitFor(() => expect(panel.querySelector('strong')).toHaveTextContent('2 days'));
    expect(calls.some((c) => c.url === '/api/public/knowledge/k1')).toBe(true);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('opens the item at the passage the reply cites: that passage is highlighted and scrolled into view', async () => {
    const content = [
      '## Shipping',
      'Orders leave our warehouse within two working days.',
      'Express orders placed before noon\nleave the same day, and   arrive the next working day in most regions.',
      '| Zone | Days |\n|---|---|\n| EU | 3 |',
    ].join('\n\n');
    const { fetch } = fakeFetch(async (url) =>
      url.startsWith('/api/public/knowledge/k1')
        ? new Response(JSON.stringify({ success: true, data: { id: 'k1', title: 'Shipping times and costs', content, vertical: 'customer-service', jurisdiction: null, subRegion: null, updatedAt: '2026-01-01T00:00:00.000Z' } }), { status: 200 })
        : Promise.reject(new TypeError('Failed to fetch')),
    );
    // jsdom has no scrollIntoView: record which element the panel asks to scroll to.
    const scrolled: Element[] = [];
    Object.defineProperty(Element.prototype, 'scrollIntoView', {
      configurable: true,
      writable: true,
      value(this: Element) {
        scrolled.push(this);
      },
    });
    onTestFinished(() => {
      Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
    });
    const { user, socket } = renderChat({ fetch });
    await ask(user, 'Express shipping?');
    // The passage as indexed: the same words, white space normalised.
    const passage = 'Express orders placed before noon leave the same day, and arrive the next working day in most regions.';
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ sources: [{ id: 'k1', title: 'Shipping times and costs', score: 1, passage }] })));
    await user.click(within(lastAgent()).getByRole('button', { name: 'Open source: Shipping times and costs' }));
    const panel = await screen.findByRole('dialog', { name: 'Shipping times and costs' });
    const cited = await within(panel).findByRole('region', { name: 'Cited passage' });
    expect(cited).toHaveTextContent('Express orders placed before noon leave the same day');
    expect(cited).not.toHaveTextContent('within two working days');
    // The rest of the item is there too, rendered as markdown around it.
    expect(within(panel).getByRole('heading', { name: 'Shipping' })).toBeInTheDocument();
    expect(within(panel).getByRole('table')).toBeInTheDocument();
    expect(scrolled).toContain(cited);
  });

  it('shows the cited passage above the item when the item no longer contains it', async () => {
    const { fetch } = fakeFetch(async (url) =>
      url.startsWith('/api/public/knowledge/k1')
        ? new Response(JSON.stringify({ success: true, data: { id: 'k1', title: 'Shipping times and costs', content: 'Rewritten since.', vertical: 'customer-service', jurisdiction: null, subRegion: null, updatedAt: '2026-01-01T00:00:00.000Z' } }), { status: 200 })
        : Promise.reject(new TypeError('Failed to fetch')),
    );
    const { user, socket } = renderChat({ fetch });
    await ask(user, 'Shipping?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData({ sources: [{ id: 'k1', title: 'Shipping times and costs', score: 1, passage: 'Orders ship in 2 days.' }] })));
    await user.click(within(lastAgent()).getByRole('button', { name: 'Open source: Shipping times and costs' }));
    const panel = await screen.findByRole('dialog', { name: 'Shipping times and costs' });
    expect(await within(panel).findByRole('region', { name: 'Cited passage' })).toHaveTextContent('Orders ship in 2 days.');
    expect(panel).toHaveTextContent('Rewritten since.');
  });

  it('says so when the source cannot be opened', async () => {
    const { fetch } = fakeFetch(async (url) =>
      url.startsWith('/api/public/knowledge/') ? new Response(JSON.stringify({ success: false, error: { code: 'not_found', message: 'x' } }), { status: 404 }) : Promise.reject(new TypeError('Failed to fetch')),
    );
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { user, socket } = renderChat({ fetch });
    await ask(user, 'Shipping?');
    serverSays(() => socket.done(socket.lastSend().requestId, makeReplyData()));
    await user.click(within(lastAgent()).getByRole('button', { name: 'Open source: Tracking your order' }));
    const panel = await screen.findByRole('dialog');
    expect(await within(panel).findByRole('alert')).toHaveTextContent('This source could not be opened.');
  });
});
