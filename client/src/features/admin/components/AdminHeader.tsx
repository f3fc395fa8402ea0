import { ArrowLeft, LayoutDashboard, LogOut } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useAuth } from '../../auth';
import { CONSOLE } from '../strings';

/** 'Admin Dashboard', 'Back to Support' (to "/"), the admin's name (or 'Admin User') and email, and Logout. */
export function AdminHeader() {
  const { user, logout } = useAuth();
  const [loggingOut, setLoggingOut] = useState(false);

  const onLogout = async () => {
    setLoggingOut(true);
    try {
      await logout();
    } finally {
      setLoggingOut(false);
    }
  };

  return (
    <header className="admin-header">
      <div className="admin-header-inner">
        <div className="admin-brand">
          <span className="admin-logo" aria-hidden="true">
            <LayoutDashboard size={22} />
          </span>
          <div>
            <h1 className="admin-title">{CONSOLE.title}</h1>
            <Link className="admin-back" to="/">
              <ArrowLeft size={14} aria-hidden="true" />
              {CONSOLE.backToSupport}
            </Link>
          </div>
        </div>
        <div className="admin-user">
          <span className="admin-avatar" aria-hidden="true">
            {(user?.name || CONSOLE.userFallback).trim().charAt(0).toUpperCase()}
          </span>
          <div className="admin-user-text">
            <span className="admin-user-name">{user?.name || CONSOLE.userFallback}</span>
            <span className="admin-user-email">{user?.email}</span>
          </div>
          <button type="button" className="admin-logout" onClick={() => void onLogout()} disabled={loggingOut}>
            <LogOut size={16} aria-hidden="true" />
            {loggingOut ? CONSOLE.loggingOut : CONSOLE.logout}
          </button>
        </div>
      </div>
    </header>
  );
}
