import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { Route, Routes } from 'react-router';
import { AuthGate, AuthProvider, createAdminQueryClient } from '../auth';
import { AdminConsole } from './components/AdminConsole';
import { InvitationPage } from './team/InvitationPage';
import './admin.css';

/**
 * "/admin": the session (AuthProvider), the authentication gate, and the console behind it;
 * "/admin/invitation/:token", the page an invitation mail links to, needs no session.
 */
export default function AdminApp() {
  const [queryClient] = useState(createAdminQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <Routes>
          <Route path="invitation/:token" element={<InvitationPage />} />
          <Route
            path="*"
            element={
              <AuthGate>
                <AdminConsole />
              </AuthGate>
            }
          />
        </Routes>
      </AuthProvider>
    </QueryClientProvider>
  );
}
