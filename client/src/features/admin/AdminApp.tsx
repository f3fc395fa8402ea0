import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { AuthGate, AuthProvider, createAdminQueryClient } from '../auth';
import { AdminConsole } from './components/AdminConsole';
import './admin.css';

/** "/admin": the session (AuthProvider), the authentication gate, and the console behind it. */
export default function AdminApp() {
  const [queryClient] = useState(createAdminQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <AuthGate>
          <AdminConsole />
        </AuthGate>
      </AuthProvider>
    </QueryClientProvider>
  );
}
