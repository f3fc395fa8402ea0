import { describe, expect, it } from 'vitest';
import type { ReplyData } from '@shared/contracts/chat';
import { apologyText, applyStreamEvent, ChatMessage } from './reply-stream';

const at = '2025-01-01T00:00:00.000Z';
const pending: ChatMessage[] = [
  { id: 'u1', type: 'user', content: 'Where is my order?', timestamp: at },
  { id: 'r1', type: 'agent', content: '', timestamp: at, streaming: true },
];

function replyData(overrides: Partial<ReplyData> = {}): ReplyData {
  return {
    response: 'Final text',
    executionTime: 420,
    confidence: 0.8,
    vertical: 'customer-service',
    agentsInvolved: ['local'],
    a2aCompliant: true,
    optimization: { passages: 2 },
    sources: [{ id: 'k1', title: 'Shipping', score: 1 }],
    usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3, costUsd: 0, provider: 'local', model: 'local' },
    ...overrides,
  };
}

describe('applyStreamEvent', () => {
  it('grows the reply with each delta and leaves other messages alone', () => {
    const once = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Your order ' });
    const twice = applyStreamEvent(once, { kind: 'delta', requestId: 'r1', text: 'ships today.' });
    expect(twice[1].content).toBe('Your order ships today.');
    expect(twice[1].streaming).toBe(true);
    expect(twice[0]).toBe(pending[0]);
  });

  it('a restart (another server took the reply over) discards the partial text: the reply is then shown once', () => {
    let messages = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Your order ' });
    messages = applyStreamEvent(messages, { kind: 'restart', requestId: 'r1' });
    expect(messages[1]).toMatchObject({ content: '', streaming: true });
    messages = applyStreamEvent(messages, { kind: 'delta', requestId: 'r1', text: 'Your order ' });
    messages = applyStreamEvent(messages, { kind: 'delta', requestId: 'r1', text: 'ships today.' });
    expect(messages[1].content).toBe('Your order ships today.');
    messages = applyStreamEvent(messages, { kind: 'done', requestId: 'r1', data: replyData({ response: 'Your order ships today.' }) });
    expect(messages[1]).toMatchObject({ content: 'Your order ships today.', streaming: false });
  });

  it('settles the reply with the final text and keeps executionTime as metadata.processingTime', () => {
    const done = applyStreamEvent(pending, { kind: 'done', requestId: 'r1', data: replyData() });
    expect(done[1]).toMatchObject({ content: 'Final text', streaming: false });
    expect(done[1].metadata).toEqual({
      processingTime: 420,
      confidence: 0.8,
      vertical: 'customer-service',
      agentsInvolved: ['local'],
      a2aCompliant: true,
      optimization: { passages: 2 },
      sources: [{ id: 'k1', title: 'Shipping', score: 1 }],
    });
  });

  it('turns an empty placeholder into the apology text on error', () => {
    const failed = applyStreamEvent(pending, { kind: 'error', requestId: 'r1', message: 'Provider down' });
    expect(failed).toHaveLength(2);
    expect(failed[1].content).toBe('I apologize, but I encountered an error: Provider down. Please try again.');
    expect(failed[1].error).toBe(true);
    expect(failed[1].streaming).toBe(false);
  });

  it('keeps partial text and appends the apology as its own message when a reply fails mid-stream', () => {
    const partial = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Half an answer' });
    const failed = applyStreamEvent(partial, { kind: 'error', requestId: 'r1', message: 'Provider down' });
    expect(failed).toHaveLength(3);
    expect(failed[1]).toMatchObject({ content: 'Half an answer', streaming: false });
    expect(failed[2]).toMatchObject({ type: 'agent', error: true, content: 'I apologize, but I encountered an error: Provider down. Please try again.' });
  });

  it('uses "Unknown error" when the error has no message', () => {
    const failed = applyStreamEvent(pending, { kind: 'error', requestId: 'r1', message: '' });
    expect(failed[1].content).toBe('I apologize, but I encountered an error: Unknown error. Please try again.');
  });

  it('stop keeps the partial text and marks the reply stopped', () => {
    const partial = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Half' });
    const stopped = applyStreamEvent(partial, { kind: 'stop', requestId: 'r1' });
    expect(stopped[1]).toMatchObject({ content: 'Half', streaming: false, stopped: true });
  });

  it('ignores the server\'s "cancelled" error and late frames after a stop', () => {
    const partial = applyStreamEvent(pending, { kind: 'delta', requestId: 'r1', text: 'Half' });
    const stopped = applyStreamEvent(partial, { kind: 'stop', requestId: 'r1' });
    const afterCancel = applyStreamEvent(stopped, { kind: 'error', requestId: 'r1', message: 'Cancelled', code: 'cancelled' });
    const afterDelta = applyStreamEvent(afterCancel, { kind: 'delta', requestId: 'r1', text: ' more' });
    const afterDone = applyStreamEvent(afterDelta, { kind: 'done', requestId: 'r1', data: replyData() });
    expect(afterDone).toBe(stopped);
    expect(afterDone[1].content).toBe('Half');
  });

  it('a "cancelled" error while still streaming marks the reply stopped, not failed', () => {
    const cancelled = applyStreamEvent(pending, { kind: 'error', requestId: 'r1', message: 'Cancelled', code: 'cancelled' });
    expect(cancelled[1]).toMatchObject({ stopped: true, streaming: false });
    expect(cancelled[1].error).toBeUndefined();
  });

  it('ignores frames for unknown requests', () => {
    expect(applyStreamEvent(pending, { kind: 'delta', requestId: 'other', text: 'x' })).toBe(pending);
  });
});

describe('apologyText', () => {
  it('drops the message\'s own final full stop so the sentence reads cleanly', () => {
    expect(apologyText('The model took too long.')).toBe('I apologize, but I encountered an error: The model took too long. Please try again.');
  });
});
