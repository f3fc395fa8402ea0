import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ChatSendPayloadSchema } from '@shared/contracts/chat';
import ChatPage from '../features/chat/ChatPage';

/** The admin console (and its PDF reader) loads only on /admin, keeping the chat page small. */
const AdminApp = lazy(() => import('../features/admin/AdminApp'));

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<ChatPage payloadContract={ChatSendPayloadSchema} />} />
      <Route
        path="/admin/*"
        element={
          <Suspense fallback={<p className="page-loading">Loading…</p>}>
            <AdminApp />
          </Suspense>
        }
      />
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}

export function App() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
