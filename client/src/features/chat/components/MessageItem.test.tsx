import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../lib/reply-stream';
import { MessageItem } from './MessageItem';

function reply(overrides: Partial<ChatMessage['metadata']> = {}): ChatMessage {
  return {
    id: 'r1',
    type: 'agent',
    content: 'Refunds take five days.',
    timestamp: new Date().toISOString(),
    metadata: {
      processingTime: 420,
      confidence: 0.8,
      vertical: 'customer-service',
      agentsInvolved: ['customer-service-agent'],
      a2aCompliant: false,
      optimization: { passages: 1 },
      sources: [{ id: 'k1', title: 'Returns and refunds', score: 1 }],
      ...overrides,
    },
  };
}

describe('an agent reply', () => {
  it('offers thumbs up and down when the reply can take feedback', () => {
    render(<MessageItem message={reply({ replyId: 'evt-1' })} />);
    expect(screen.getByRole('group', { name: 'Rate this reply' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Helpful' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Not helpful' })).toBeInTheDocument();
  });

  it('shows no feedback buttons for a reply the server did not record', () => {
    render(<MessageItem message={reply()} />);
    expect(screen.queryByRole('group', { name: 'Rate this reply' })).not.toBeInTheDocument();
    expect(screen.getByText('Returns and refunds')).toBeInTheDocument();
  });

  it('keeps the processing time left to right, so an Arabic page shows "420 ms", not "ms 420"', () => {
    render(<MessageItem message={reply()} />);
    expect(screen.getByText('420 ms')).toHaveAttribute('dir', 'ltr');
  });
});
