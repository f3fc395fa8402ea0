import { describe, expect, it } from 'vitest';
import type { ReplyData } from '@shared/contracts/chat';
import { applyStreamEvent, ChatMessage } from './reply-stream';

const pending: ChatMessage[] = [
  { id: 'u1', type: 'user', content: 'Where is my order?' },
  { id: 'r1', type: 'agent', content: '', streaming: true },
];

describe('applyStreamEvent', () => {
  it('grows the reply with each delta and leaves other messages alone', () => {
    const once = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Your order ' });
    const twice = applyStreamEvent(once, { kind: 'delta', requestId: 'r1', text: 'ships today.' });
    expect(twice[1].content).toBe('Your order ships today.');
    expect(twice[1].streaming).toBe(true);
    expect(twice[0]).toBe(pending[0]);
  });

  it('settles the reply with the final data on done', () => {
    const data = { response: 'Final text', sources: [{ id: 'k1', title: 'Shipping', score: 1 }] } as unknown as ReplyData;
    const done = applyStreamEvent(pending, { kind: 'done', requestId: 'r1', data });
    expect(done[1]).toMatchObject({ content: 'Final text', streaming: false, data });
  });

  it('replaces the reply with the apology text on error', () => {
    const failed = applyStreamEvent(pending, { kind: 'error', requestId: 'r1', message: 'Provider down' });
    expect(failed[1].content).toBe('I apologize, but I encountered an error: Provider down. Please try again.');
    expect(failed[1].error).toBe(true);
  });
});
