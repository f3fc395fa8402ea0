import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { AuthProvider } from '../AuthProvider';
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
