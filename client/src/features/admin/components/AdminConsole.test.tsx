/** The console shell: header, logout, and the tabs. */
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferredReply, fakeAuthServer, reply, USER } from '../../auth/testing/fake-auth-server';
import { renderGate } from '../../auth/testing/render-auth';
import { AdminConsole } from './AdminConsole';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

async function signedInConsole(user: { name: string; email: string; role?: string } = USER, routes: Parameters<typeof fakeAuthServer>[0] = {}) {
  const server = fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user }), ...routes });
  renderGate(<AdminConsole />);
  await screen.findByRole('heading', { name: 'Admin Dashboard' });
  return server;
}

describe('admin console shell', () => {
  it("has the title 'Admin Dashboard', a 'Back to Support' link to \"/\", and the admin's name and email", async () => {
    await signedInConsole();
    expect(screen.getByRole('link', { name: 'Back to Support' })).toHaveAttribute('href', '/');
    expect(screen.getByText('Ada Lovelace')).toBeInTheDocument();
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
  });

  it("falls back to 'Admin User' when the admin has no name", async () => {
    await signedInConsole({ name: '', email: 'admin@localhost' });
    expect(screen.getByText('Admin User')).toBeInTheDocument();
    expect(screen.getByText('admin@localhost')).toBeInTheDocument();
  });

  it("Logout reads 'Logging out...' while busy, then the login screen shows", async () => {
    const pending = deferredReply(reply.ok({ message: 'Logged out' }));
    const server = await signedInConsole(USER, { 'POST /api/auth/logout': pending.handler });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Logging out...' })).toBeDisabled();
    pending.release();
    expect(await screen.findByRole('heading', { name: 'Admin Access' })).toBeInTheDocument();
    expect(server.callsTo('POST /api/auth/logout')).toHaveLength(1);
  });

  it('logs out locally even when the logout request fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await signedInConsole(USER, { 'POST /api/auth/logout': () => 'network-error' });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Admin Access' })).toBeInTheDocument();
  });

  it('has its tabs, Knowledge Base selected by default; clicking or arrow keys switch the panel', async () => {
    await signedInConsole();
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['Knowledge Base', 'Configuration', 'Analytics', 'Conversations', 'Inbox', 'Budgets', 'API keys', 'Widgets', 'Team', 'Audit', 'Security']);
    expect(screen.getByRole('tab', { name: 'Knowledge Base' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Knowledge Base');

    const user = userEvent.setup();
    await user.click(screen.getByRole('tab', { name: 'Analytics' }));
    expect(screen.getByRole('tab', { name: 'Analytics' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Knowledge Base' })).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Analytics');

    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Conversations' })).toHaveFocus());
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Conversations');
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Inbox' })).toHaveFocus());
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Inbox');
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Budgets' })).toHaveFocus());
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Budgets');
    await user.keyboard('{End}');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Security' })).toHaveFocus());
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Security');
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Knowledge Base' })).toHaveFocus());
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Knowledge Base');
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Configuration');
  });

  it('shows an admin the Team and Audit tabs, each with its panel', async () => {
    await signedInConsole({ ...USER, role: 'admin' }, { 'GET /api/team/members': () => reply.ok({ data: { members: [], invitations: [] } }) });
    const user = userEvent.setup();
    await user.click(screen.getByRole('tab', { name: 'Team' }));
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Team');
    await user.click(screen.getByRole('tab', { name: 'Audit' }));
    expect(screen.getByRole('tabpanel')).toHaveAccessibleName('Audit');
  });

  it('shows the API keys tab only to roles that may use it', async () => {
    await signedInConsole({ ...USER, role: 'viewer' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).not.toContain('API keys');
    expect(screen.getByRole('tab', { name: 'Security' })).toBeInTheDocument();
  });

  it('shows an agent Knowledge, Conversations, Inbox and Security only: no configuration, analytics, budgets, keys or widgets', async () => {
    await signedInConsole({ ...USER, role: 'agent' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Knowledge Base', 'Conversations', 'Inbox', 'Security']);
  });

  it('shows a viewer what they may read (Knowledge, Analytics, Conversations) and Security, no Inbox, nothing to configure', async () => {
    await signedInConsole({ ...USER, role: 'viewer' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Knowledge Base', 'Analytics', 'Conversations', 'Security']);
  });
});
