import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeAuthServer, reply, USER } from '../testing/fake-auth-server';
import { renderGate } from '../testing/render-auth';
import { useAuth } from '../AuthProvider';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function SignOut() {
  const { logout } = useAuth();
  return (
    <button type="button" onClick={() => void logout()}>
      Sign out
    </button>
  );
}

describe('AuthGate', () => {
  it("shows 'Checking authentication...' while the session loads", async () => {
    let answer!: () => void;
    fakeAuthServer({ 'GET /api/auth/me': () => new Promise((resolve) => (answer = () => resolve(reply.unauthenticated()))) });
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    renderGate();
    expect(screen.getByText('Checking authentication...')).toBeInTheDocument();
    expect(screen.queryByText('Admin Access')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(answer).toBeDefined());
    act(() => answer());
    expect(await screen.findByRole('heading', { name: 'Admin Access' })).toBeInTheDocument();
    expect(screen.queryByText('Checking authentication...')).not.toBeInTheDocument();
  });

  it('shows the console straight away when the session is live (reload keeps the session)', async () => {
    fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user: USER }) });
    renderGate();
    expect(await screen.findByText('Console content')).toBeInTheDocument();
    expect(screen.queryByText('Admin Access')).not.toBeInTheDocument();
  });

  it('goes back to the login screen after logout', async () => {
    fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user: USER }), 'POST /api/auth/logout': () => reply.ok({}) });
    const user = userEvent.setup();
    renderGate(<SignOut />);
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Admin Access' })).toBeInTheDocument();
    expect(screen.getByText('Enter your email to continue')).toBeInTheDocument();
  });
});
