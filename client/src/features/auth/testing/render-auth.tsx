import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import type { AuthUser } from '@shared/contracts/auth';
import { AuthContext, AuthProvider, type AuthContextValue } from '../AuthProvider';
import { AuthGate } from '../components/AuthGate';

/** The session provider and gate as "/admin" mounts them, with `console` standing in for the console. */
export function renderGate(console: ReactNode = <p>Console content</p>) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MemoryRouter>
      <QueryClientProvider client={client}>
        <AuthProvider>
          <AuthGate>{console}</AuthGate>
        </AuthProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
}

export function withProviders(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return (
    <MemoryRouter>
      <QueryClientProvider client={client}>
        <AuthProvider>{children}</AuthProvider>
      </QueryClientProvider>
    </MemoryRouter>
  );
}

/**
 * `children` as a member signed in with `role` sees them, without a session server: for tests of
 * one console tab. The sign-in actions are not for these tests and fail if called.
 */
export function asMember(children: ReactNode, role: AuthUser['role'] = 'owner') {
  const unused = () => Promise.reject(new Error('Signing in is not part of this test'));
  const value: AuthContextValue = {
    user: { id: '00000000-0000-4000-8000-000000000001', name: 'Test Member', email: 'member@example.com', role },
    isLoading: false,
    isAuthenticated: true,
    secondFactor: null,
    checkLoginMethods: unused,
    loginWithPassword: unused,
    requestOtp: unused,
    verifyOtp: unused,
    verifySecondFactor: unused,
    completeEnrolment: () => undefined,
    logout: () => Promise.resolve(),
    refreshToken: () => Promise.resolve(true),
  };
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
