import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReplyFeedback } from './ReplyFeedback';

const REPLY_ID = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/** `fetch` answering POST /api/feedback like the server (or failing), recording each body. */
function fakeFeedbackServer() {
  const bodies: unknown[] = [];
  let status = 200;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body));
      bodies.push({ route: `${init?.method} ${new URL(String(input), 'http://localhost').pathname}`, ...body });
      const payload = status === 200 ? { success: true, data: body } : { success: false, error: { code: 'not_found', message: 'That reply was not found.' }, requestId: 't' };
      return new Response(JSON.stringify(payload), { status, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return {
    bodies,
    failWith(next: number) {
      status = next;
    },
  };
}

describe('ReplyFeedback', () => {
  let errorLog: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    errorLog = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    errorLog.mockRestore();
  });

  it('sends a thumbs-down for the reply and shows it chosen', async () => {
    const server = fakeFeedbackServer();
    const onChange = vi.fn();
    render(<ReplyFeedback replyId={REPLY_ID} onChange={onChange} />);
    expect(screen.getByRole('group', { name: 'Rate this reply' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Not helpful' }));
    expect(screen.getByRole('button', { name: 'Not helpful' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Helpful' })).toHaveAttribute('aria-pressed', 'false');
    await waitFor(() => expect(onChange).toHaveBeenCalledWith('down'));
    expect(server.bodies).toEqual([{ route: 'POST /api/feedback', replyId: REPLY_ID, vote: 'down' }]);
  });

  it('changes the vote with the other thumb and withdraws it with the same one', async () => {
    const server = fakeFeedbackServer();
    render(<ReplyFeedback replyId={REPLY_ID} initialVote="down" />);
    expect(screen.getByRole('button', { name: 'Not helpful' })).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(screen.getByRole('button', { name: 'Helpful' }));
    expect(screen.getByRole('button', { name: 'Helpful' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Not helpful' })).toHaveAttribute('aria-pressed', 'false');
    await userEvent.click(screen.getByRole('button', { name: 'Helpful' }));
    expect(screen.getByRole('button', { name: 'Helpful' })).toHaveAttribute('aria-pressed', 'false');
    await waitFor(() => expect(server.bodies).toHaveLength(2));
    expect(server.bodies.map((b) => (b as { vote: unknown }).vote)).toEqual(['up', null]);
  });

  it('puts the previous choice back and says so when the vote cannot be saved', async () => {
    const server = fakeFeedbackServer();
    server.failWith(404);
    render(<ReplyFeedback replyId={REPLY_ID} initialVote="up" />);
    await userEvent.click(screen.getByRole('button', { name: 'Not helpful' }));
    expect(await screen.findByText('Your feedback could not be saved.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Helpful' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'Not helpful' })).toHaveAttribute('aria-pressed', 'false');
    expect(errorLog).toHaveBeenCalled();
  });
});
