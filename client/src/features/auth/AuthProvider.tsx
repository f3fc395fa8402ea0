/**
 * The auth session: `user`, `isLoading`, `isAuthenticated`.
 *
 * - On start a status check (GET /api/auth/me) sets the user only when the answer has success and
 *   a user; otherwise, or on failure, the user is cleared. Loading ends either way.
 * - Code verification and password sign-in set the user only when success and a user come back.
 * - Logout always clears the user, even when the request fails (the failure is only logged).
 * - While signed in, the session is refreshed every 23 hours; a failed or unsuccessful refresh
 *   logs out and returns false.
 *
 * The session lives in the TanStack Query cache (key ['auth', 'session']), so the rest of the
 * admin console reads server state through one layer.
 */
import { MutationCache, QueryCache, QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../lib/api';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { authApi, type AuthResponse, type AuthUser, type LoginMethods, type SecondFactorCode, type SecondFactorStep, serverMessage } from './api/auth-api';
import { LOGIN, SESSION } from './strings';

/** 23 hours: the session (24 hours) is refreshed an hour before it ends. */
export const REFRESH_INTERVAL_MS = 23 * 60 * 60 * 1000;
export const SESSION_QUERY_KEY = ['auth', 'session'] as const;

export interface ActionResult {
  success: boolean;
  message?: string;
  user?: AuthUser;
  /** The first factor was right; this step is still to go. */
  secondFactor?: SecondFactorStep;
}

export interface MethodsResult {
  success: boolean;
  message?: string;
  methods?: LoginMethods;
}

export interface AuthContextValue {
  user: AuthUser | null;
  isLoading: boolean;
  isAuthenticated: boolean;
  /** A sign-in under way that still needs its second factor ('totp') or its set-up ('enrol'). */
  secondFactor: SecondFactorStep | null;
  checkLoginMethods(email: string): Promise<MethodsResult>;
  loginWithPassword(email: string, password: string): Promise<ActionResult>;
  requestOtp(email: string): Promise<ActionResult>;
  verifyOtp(email: string, otp: string): Promise<ActionResult>;
  /** The authenticator code, or a recovery code, of a sign-in waiting for it. */
  verifySecondFactor(proof: SecondFactorCode): Promise<ActionResult>;
  /** The set-up of a member who had to have a second factor is done: signed in as `user`. */
  completeEnrolment(user: AuthUser): void;
  logout(): Promise<void>;
  refreshToken(): Promise<boolean>;
}

/** Exported for tests that mount one console tab with a member of a given role (testing/render-auth). */
export const AuthContext = createContext<AuthContextValue | null>(null);

function describe(error: unknown, fallback: string): string {
  return serverMessage(error) ?? (error instanceof Error && error.message ? `${fallback}: ${error.message}` : fallback);
}

async function fetchSession(): Promise<{ user: AuthUser | null; secondFactor: SecondFactorStep | null }> {
  try {
    const body = await authApi.me();
    if (body.success && body.user) return { user: body.user, secondFactor: null };
    return { user: null, secondFactor: body.success && body.secondFactor ? body.secondFactor : null };
  } catch (error) {
    console.info(`Auth status: ${describe(error, SESSION.notAuthenticated)}`);
    return { user: null, secondFactor: null };
  }
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [secondFactor, setSecondFactor] = useState<SecondFactorStep | null>(null);
  const session = useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: async () => {
      const found = await fetchSession();
      setSecondFactor(found.secondFactor);
      return found.user;
    },
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const user = session.data ?? null;
  const isAuthenticated = user !== null;

  const setUser = useCallback((next: AuthUser | null) => queryClient.setQueryData(SESSION_QUERY_KEY, next), [queryClient]);

  /** success + user -> signed in; success + secondFactor -> that step is next; anything else leaves the session as it was. */
  const signIn = useCallback(
    async (call: () => Promise<AuthResponse>, fallback: string): Promise<ActionResult> => {
      try {
        const body = await call();
        if (body.success && body.user) {
          setSecondFactor(null);
          setUser(body.user);
          return { success: true, message: body.message, user: body.user };
        }
        if (body.success && body.secondFactor) {
          setSecondFactor(body.secondFactor);
          return { success: true, message: body.message, secondFactor: body.secondFactor };
        }
        return { success: false, message: body.message || fallback };
      } catch (error) {
        return { success: false, message: serverMessage(error) ?? fallback };
      }
    },
    [setUser],
  );

  const checkLoginMethods = useCallback(async (email: string): Promise<MethodsResult> => {
    try {
      const body = await authApi.checkMethods(email);
      return { success: body.success, message: body.message, methods: body.methods };
    } catch (error) {
      return { success: false, message: serverMessage(error) ?? LOGIN.checkMethodsFailed };
    }
  }, []);

  /** No fallback message here: the caller knows whether it was a first send or a resend. */
  const requestOtp = useCallback(async (email: string): Promise<ActionResult> => {
    try {
      const body = await authApi.requestOtp(email);
      return { success: body.success, message: body.message || undefined };
    } catch (error) {
      return { success: false, message: serverMessage(error) };
    }
  }, []);

  const loginWithPassword = useCallback((email: string, password: string) => signIn(() => authApi.loginPassword(email, password), LOGIN.loginFailed), [signIn]);
  const verifyOtp = useCallback((email: string, otp: string) => signIn(() => authApi.verifyOtp(email, otp), LOGIN.verificationFailed), [signIn]);
  const verifySecondFactor = useCallback((proof: SecondFactorCode) => signIn(() => authApi.verifyTotp(proof), LOGIN.verificationFailed), [signIn]);
  const completeEnrolment = useCallback(
    (next: AuthUser) => {
      setSecondFactor(null);
      setUser(next);
    },
    [setUser],
  );

  const logout = useCallback(async () => {
    try {
      await authApi.logout();
    } catch (error) {
      console.error(describe(error, SESSION.logoutFailed));
    } finally {
      setSecondFactor(null);
      setUser(null);
      // Nothing an admin loaded stays in memory after logout.
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_QUERY_KEY[0] });
    }
  }, [queryClient, setUser]);

  const refreshToken = useCallback(async (): Promise<boolean> => {
    try {
      const body = await authApi.refresh();
      if (body.success) {
        if (body.user) setUser(body.user);
        return true;
      }
      console.error(body.message || SESSION.refreshFailed);
    } catch (error) {
      console.error(describe(error, SESSION.refreshFailed));
    }
    await logout();
    return false;
  }, [logout, setUser]);

  useEffect(() => {
    if (!isAuthenticated) return;
    const timer = setInterval(() => void refreshToken(), REFRESH_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [isAuthenticated, refreshToken]);

  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      isLoading: session.isPending,
      isAuthenticated,
      secondFactor,
      checkLoginMethods,
      loginWithPassword,
      requestOtp,
      verifyOtp,
      verifySecondFactor,
      completeEnrolment,
      logout,
      refreshToken,
    }),
    [user, session.isPending, isAuthenticated, secondFactor, checkLoginMethods, loginWithPassword, requestOtp, verifyOtp, verifySecondFactor, completeEnrolment, logout, refreshToken],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/**
 * The console's query client: any admin call answered 401 (session expired or ended elsewhere)
 * signs the console out, so the gate shows the login screen instead of failing panels; the status
 * is then read again, since a session may instead have been sent to set up a second factor.
 */
export function createAdminQueryClient(): QueryClient {
  const signOutOn401 = (error: unknown) => {
    if (!(error instanceof ApiError && error.status === 401) || client.getQueryData(SESSION_QUERY_KEY) === null) return;
    client.setQueryData(SESSION_QUERY_KEY, null);
    void client.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: signOutOn401 }),
    mutationCache: new MutationCache({ onError: signOutOn401 }),
    defaultOptions: {
      queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 1, refetchOnWindowFocus: false },
    },
  });
  return client;
}

export function useAuth(): AuthContextValue {
  const context = useContext(AuthContext);
  if (!context) throw new Error(SESSION.outsideProvider);
  return context;
}
