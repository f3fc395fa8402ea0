import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeAuthServer, reply, USER } from '../auth/testing/fake-auth-server';
import AdminApp from './AdminApp';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('AdminApp ("/admin")', () => {
  it('goes from the gate through a password sign-in to the console', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    fakeAuthServer({
      'POST /api/auth/check-methods': () => reply.ok({ methods: { password: true, otp: true } }),
      'POST /api/auth/login-password': () => reply.ok({ message: 'Login successful', user: USER }),
    });
    render(
      <MemoryRouter initialEntries={['/admin']}>
        <AdminApp />
      </MemoryRouter>,
    );
    expect(screen.getByText('Checking authentication...')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Email address'), USER.email);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(await screen.findByRole('button', { name: /Login with Password/ }));
    await user.type(screen.getByLabelText('Password'), 'correct horse battery{Enter}');
    expect(await screen.findByText('Login successful!')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' }, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Knowledge Base' })).toHaveAttribute('aria-selected', 'true');
  });

  it('opens an invitation link without a session: the invitation form with the invited address, no sign-in gate', async () => {
    fakeAuthServer({
      'GET /api/team/invitations/tok-123': () => reply.ok({ data: { email: 'new.agent@example.com', role: 'agent', invitedBy: 'Olivia Owner', expiresAt: '2030-01-01T00:00:00.000Z' } }),
    });
    render(
      <MemoryRouter initialEntries={['/admin/invitation/tok-123']}>
        <Routes>
          <Route path="/admin/*" element={<AdminApp />} />
        </Routes>
      </MemoryRouter>,
    );
    expect(await screen.findByDisplayValue('new.agent@example.com')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Admin Dashboard' })).not.toBeInTheDocument();
  });
});
