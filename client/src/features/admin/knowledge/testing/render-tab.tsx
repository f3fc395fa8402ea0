import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect } from 'vitest';
import type { Role } from '@shared/contracts/roles';
import { asMember } from '../../../auth/testing/render-auth';
import { KnowledgeTab, type KnowledgeTabProps } from '../KnowledgeTab';
import { fakeFeed } from './fake-knowledge-server';
import { loadLegacyPdfJs } from './legacy-pdfjs';

/**
 * The tab as the console mounts it for a member of `role` (its own query client), with a fake `/admin` socket, PDF.js's
 * build that runs in jsdom, and helpers that read the in-page notices (they replaced `window.alert`). Files are offered to inputs whatever
 * their `accept` says (a user can pick "All files", and drops ignore it).
 */
export function renderTab(props: KnowledgeTabProps = {}, role: Role = 'owner') {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const live = fakeFeed();
  const user = userEvent.setup({ applyAccept: false });
  const view = render(
    <QueryClientProvider client={client}>{asMember(<KnowledgeTab connectFeed={live.connect} loadPdfJs={loadLegacyPdfJs} {...props} />, role)}</QueryClientProvider>,
  );
  return { user, live, client, ...view };
}

/** The texts of the notices shown now, oldest first. */
export function noticeTexts(): string[] {
  const stack = screen.queryByRole('region', { name: 'Notifications' });
  if (!stack) return [];
  return Array.from(stack.querySelectorAll('.notice-text')).map((p) => p.textContent ?? '');
}

/** Waits for a notice with exactly `text` (an alert text, word for word) and returns it. */
export async function expectNotice(text: string, options?: { timeout?: number }): Promise<HTMLElement> {
  await waitFor(() => expect(noticeTexts()).toContain(text), options);
  const stack = screen.getByRole('region', { name: 'Notifications' });
  return Array.from(within(stack).getAllByText((_, el) => el?.classList.contains('notice-text') === true && el.textContent === text))[0].parentElement!;
}

/** A text file; `bytes` pads it to an exact size. */
export function textFile(name: string, text: string, type = 'text/plain'): File {
  return new File([text], name, { type });
}

/** A 1x1 PNG. */
export function pngFile(name = 'diagram.png'): File {
  const bytes = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
  return new File([bytes], name, { type: 'image/png' });
}
