import { useEffect, useState, type ReactNode } from 'react';
import { useAuth } from '../AuthProvider';
import { GATE } from '../strings';
import { EnrolScreen } from './EnrolScreen';
import { LoginScreen } from './LoginScreen';

/** How long 'Login successful!' stays on screen before the console replaces the login screen. */
export const SUCCESS_PAUSE_MS = 700;

/**
 * "/admin": 'Checking authentication...' while the session loads, the login screen when signed
 * out (or the second-factor set-up when the team requires one), the console (children) when signed in. After a sign-in on this screen, the login screen
 * stays a moment so its 'Login successful!' banner is seen; a reload with a live session goes
 * straight to the console.
 */
export function AuthGate({ children }: { children: ReactNode }) {
  const { isLoading, isAuthenticated, secondFactor } = useAuth();
  const [shown, setShown] = useState<'login' | 'console' | null>(null);

  // Derived during render (no flash of the wrong screen): first decision, and sign-out.
  if (!isLoading && shown === null) setShown(isAuthenticated ? 'console' : 'login');
  if (shown === 'console' && !isAuthenticated) setShown('login');

  useEffect(() => {
    if (shown !== 'login' || !isAuthenticated) return;
    const timer = setTimeout(() => setShown('console'), SUCCESS_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [shown, isAuthenticated]);

  if (isLoading || shown === null) {
    return (
      <div className="auth-checking" role="status" aria-live="polite">
        <span className="auth-spinner" aria-hidden="true" />
        <p>{GATE.checking}</p>
      </div>
    );
  }
  if (shown === 'console' && isAuthenticated) return <>{children}</>;
  // A member who must set up a second factor gets nothing else until it is done.
  if (!isAuthenticated && secondFactor === 'enrol') return <EnrolScreen />;
  return <LoginScreen />;
}
