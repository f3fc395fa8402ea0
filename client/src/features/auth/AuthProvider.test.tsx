/** The auth session (user, isLoading, isAuthenticated, refresh), through a probe component and a fake `fetch`. */
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { ApiError, apiRequest } from '../../lib/api';
import { AuthProvider, createAdminQueryClient, REFRESH_INTERVAL_MS, SESSION_QUERY_KEY, useAuth, type AuthContextValue } from './AuthProvider';
import { fakeAuthServer, reply, USER } from './testing/fake-auth-server';
import { withProviders } from './testing/render-auth';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

let auth: AuthContextValue;
function Probe() {
  auth = useAuth();
  return <p data-testid="state">{JSON.stringify({ user: auth.user, isLoading: auth.isLoading, isAuthenticated: auth.isAuthenticated })}</p>;
}

const state = () => JSON.parse(screen.getByTestId('state').textContent!) as { user: unknown; isLoading: boolean; isAuthenticated: boolean };

async function mounted() {
  render(withProviders(<Probe />));
  await waitFor(() => expect(state().isLoading).toBe(false));
}

describe('AuthProvider', () => {
  it("throws 'useAuth must be used within an AuthProvider' outside the provider", () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => renderHook(() => useAuth())).toThrow('useAuth must be used within an AuthProvider');
  });

  it('is loading until the status check answers, then signed in when it has success and a user', async () => {
    let answer!: () => void;
    fakeAuthServer({ 'GET /api/auth/me': () => new Promise((resolve) => (answer = () => resolve(reply.ok({ user: USER })))) });
    render(withProviders(<Probe />));
    expect(state()).toEqual({ user: null, isLoading: true, isAuthenticated: false });
    await waitFor(() => expect(answer).toBeDefined());
    act(() => answer());
    await waitFor(() => expect(state()).toEqual({ user: USER, isLoading: false, isAuthenticated: true }));
  });

  it.each([
    ['a 401', () => reply.unauthenticated()],
    ['success without a user', () => reply.ok({})],
    ['success false with a user', () => ({ status: 200, body: { success: false, user: USER } })],
    ['a network failure', () => 'network-error' as const],
  ])('the status check with %s leaves the user signed out and ends loading', async (_name, handler) => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    fakeAuthServer({ 'GET /api/auth/me': handler });
    await mounted();
    expect(state()).toEqual({ user: null, isLoading: false, isAuthenticated: false });
  });

  it('code verification and password sign-in set the user only when success and a user come back', async () => {
    const server = fakeAuthServer({
      'POST /api/auth/verify-otp': () => reply.ok({ message: 'no user here' }),
      'POST /api/auth/login-password': () => reply.error(401, 'unauthorized', 'Invalid email or password'),
    });
    await mounted();
    await act(async () => expect(await auth.verifyOtp(USER.email, '123456')).toEqual({ success: false, message: 'no user here' }));
    await act(async () => expect(await auth.loginWithPassword(USER.email, 'wrong password!')).toEqual({ success: false, message: 'Invalid email or password' }));
    expect(state().isAuthenticated).toBe(false);
    server.on('POST /api/auth/verify-otp', () => reply.ok({ message: 'Login successful', user: USER }));
    await act(async () => expect(await auth.verifyOtp(USER.email, '123456')).toMatchObject({ success: true, user: USER }));
    await waitFor(() => expect(state()).toEqual({ user: USER, isLoading: false, isAuthenticated: true }));
  });

  it('logout clears the user even when the request fails (the failure is only logged)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user: USER }), 'POST /api/auth/logout': () => 'network-error' });
    await mounted();
    expect(state().isAuthenticated).toBe(true);
    await act(() => auth.logout());
    await waitFor(() => expect(state()).toEqual({ user: null, isLoading: false, isAuthenticated: false }));
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('Logout failed'));
  });

  it('refreshes every 23 hours while signed in; a success keeps the session', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user: USER }), 'POST /api/auth/refresh': () => reply.ok({ user: USER }) });
    await mounted();
    expect(REFRESH_INTERVAL_MS).toBe(82_800_000);
    await act(async () => vi.advanceTimersByTime(REFRESH_INTERVAL_MS - 1000));
    expect(server.callsTo('POST /api/auth/refresh')).toHaveLength(0);
    await act(async () => vi.advanceTimersByTime(1000));
    await waitFor(() => expect(server.callsTo('POST /api/auth/refresh')).toHaveLength(1));
    expect(state().isAuthenticated).toBe(true);
    await act(async () => vi.advanceTimersByTime(REFRESH_INTERVAL_MS));
    await waitFor(() => expect(server.callsTo('POST /api/auth/refresh')).toHaveLength(2));
    expect(server.callsTo('POST /api/auth/logout')).toHaveLength(0);
  });

  it('a failed refresh logs out and returns false', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeAuthServer({
      'GET /api/auth/me': () => reply.ok({ user: USER }),
      'POST /api/auth/refresh': () => reply.unauthenticated(),
      'POST /api/auth/logout': () => reply.unauthenticated(),
    });
    await mounted();
    await act(async () => vi.advanceTimersByTime(REFRESH_INTERVAL_MS));
    await waitFor(() => expect(state().isAuthenticated).toBe(false));
    expect(server.callsTo('POST /api/auth/logout')).toHaveLength(1);
  });

  it('an unsuccessful refresh (success false) logs out and returns false; no timer runs while signed out', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = fakeAuthServer({
      'GET /api/auth/me': () => reply.ok({ user: USER }),
      'POST /api/auth/refresh': () => ({ status: 200, body: { success: false, message: 'nope' } }),
      'POST /api/auth/logout': () => reply.ok({}),
    });
    await mounted();
    let result: boolean | undefined;
    await act(async () => {
      result = await auth.refreshToken();
    });
    expect(result).toBe(false);
    await waitFor(() => expect(state().isAuthenticated).toBe(false));
    expect(server.callsTo('POST /api/auth/logout')).toHaveLength(1);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await act(async () => vi.advanceTimersByTime(REFRESH_INTERVAL_MS * 2));
    expect(server.callsTo('POST /api/auth/refresh')).toHaveLength(1);
  });

  it('with the console query client, any admin call answered 401 signs the console out', async () => {
    // The session ended elsewhere: from then on the status check is refused too.
    let ended = false;
    fakeAuthServer({
      'GET /api/auth/me': () => (ended ? reply.unauthenticated() : reply.ok({ user: USER })),
      'GET /api/knowledge': () => ((ended = true), reply.unauthenticated()),
    });
    const client = createAdminQueryClient();
    render(
      <MemoryRouter>
        <QueryClientProvider client={client}>
          <AuthProvider>
            <Probe />
          </AuthProvider>
        </QueryClientProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(state().isAuthenticated).toBe(true));
    await expect(client.fetchQuery({ queryKey: ['knowledge'], queryFn: () => apiRequest('/api/knowledge') })).rejects.toBeInstanceOf(ApiError);
    await waitFor(() => expect(state()).toEqual({ user: null, isLoading: false, isAuthenticated: false }));
  });

  it('a 401 from a session sent to set up a second factor shows the set-up: the status is read again', async () => {
    let enrol = false;
    fakeAuthServer({
      'GET /api/auth/me': () => (enrol ? reply.ok({ secondFactor: 'enrol', data: { user: USER, secondFactor: 'enrol', expiresAt: '2030-01-01T00:00:00Z' } }) : reply.ok({ user: USER })),
      'GET /api/knowledge': () => ((enrol = true), reply.unauthenticated()),
    });
    const client = createAdminQueryClient();
    render(
      <MemoryRouter>
        <QueryClientProvider client={client}>
          <AuthProvider>
            <Probe />
          </AuthProvider>
        </QueryClientProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(state().isAuthenticated).toBe(true));
    await expect(client.fetchQuery({ queryKey: ['knowledge'], queryFn: () => apiRequest('/api/knowledge') })).rejects.toBeInstanceOf(ApiError);
    await waitFor(() => expect(auth.secondFactor).toBe('enrol'));
    expect(state()).toEqual({ user: null, isLoading: false, isAuthenticated: false });
  });

  it('logout drops every cached admin query (only the session entry stays, empty)', async () => {
    fakeAuthServer({ 'GET /api/auth/me': () => reply.ok({ user: USER }), 'POST /api/auth/logout': () => reply.ok({}) });
    const client = createAdminQueryClient();
    render(
      <MemoryRouter>
        <QueryClientProvider client={client}>
          <AuthProvider>
            <Probe />
          </AuthProvider>
        </QueryClientProvider>
      </MemoryRouter>,
    );
    await waitFor(() => expect(state().isAuthenticated).toBe(true));
    client.setQueryData(['knowledge', 'list'], [{ id: 'secret item' }]);
    await act(() => auth.logout());
    expect(client.getQueryData(['knowledge', 'list'])).toBeUndefined();
    expect(client.getQueryData(SESSION_QUERY_KEY)).toBeNull();
  });
});
