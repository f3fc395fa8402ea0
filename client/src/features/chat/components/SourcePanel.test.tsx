/** The source panel links an imported web page's address; items without one show no link. */
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { SourcePanel } from './SourcePanel';

function fetchReturning(data: Record<string, unknown>): typeof fetch {
  return vi.fn(async () => new Response(JSON.stringify({ success: true, data }), { status: 200, headers: { 'content-type': 'application/json' } })) as unknown as typeof fetch;
}

const item = { id: 'i1', title: 'Shipping times and costs', content: 'Express shipping costs 14.99 dollars.', vertical: 'customer-service', jurisdiction: null, subRegion: null, updatedAt: '2026-01-01T00:00:00.000Z' };

describe('SourcePanel', () => {
  it("shows an imported page's URL as a link that opens it in a new tab", async () => {
    const url = 'https://help.example.com/shipping.html';
    render(<SourcePanel source={{ id: 'i1', title: item.title, score: 1, url }} fetch={fetchReturning({ ...item, url })} onClose={() => undefined} />);
    await screen.findByText('Express shipping costs 14.99 dollars.');
    const link = screen.getByRole('link', { name: url });
    expect(link).toHaveAttribute('href', url);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('shows no link for an item without a URL, nor for an address that is not http(s)', async () => {
    const { unmount } = render(<SourcePanel source={{ id: 'i1', title: item.title, score: 1 }} fetch={fetchReturning({ ...item, url: null })} onClose={() => undefined} />);
    await screen.findByText('Express shipping costs 14.99 dollars.');
    expect(screen.queryByRole('link')).toBeNull();
    unmount();
    render(<SourcePanel source={{ id: 'i1', title: item.title, score: 1, url: 'javascript:alert(1)' }} fetch={fetchReturning({ ...item, url: 'javascript:alert(1)' })} onClose={() => undefined} />);
    await screen.findByText('Express shipping costs 14.99 dollars.');
    expect(screen.queryByRole('link')).toBeNull();
  });
});
