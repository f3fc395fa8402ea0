/** The auth calls (all with cookies, through lib/api). */
import { EmailRequestSchema, PasswordLoginSchema, VerifyOtpSchema, type AuthUser, type LoginMethods } from '@shared/contracts/auth';
import { ApiError, apiRequest } from '../../../lib/api';

export type { AuthUser, LoginMethods };

/** An auth response: success, user, message. */
export interface AuthResponse {
  success: boolean;
  message?: string;
  user?: AuthUser;
}

export interface CheckMethodsResponse {
  success: boolean;
  message?: string;
  methods?: LoginMethods;
}

export const authApi = {
  checkMethods: (email: string) => apiRequest<CheckMethodsResponse>('/api/auth/check-methods', { method: 'POST', body: { email }, contract: EmailRequestSchema }),
  loginPassword: (email: string, password: string) =>
    apiRequest<AuthResponse>('/api/auth/login-password', { method: 'POST', body: { email, password }, contract: PasswordLoginSchema }),
  requestOtp: (email: string) => apiRequest<AuthResponse>('/api/auth/request-otp', { method: 'POST', body: { email }, contract: EmailRequestSchema }),
  verifyOtp: (email: string, otp: string) => apiRequest<AuthResponse>('/api/auth/verify-otp', { method: 'POST', body: { email, otp }, contract: VerifyOtpSchema }),
  me: () => apiRequest<AuthResponse>('/api/auth/me'),
  refresh: () => apiRequest<AuthResponse>('/api/auth/refresh', { method: 'POST' }),
  logout: () => apiRequest<AuthResponse>('/api/auth/logout', { method: 'POST' }),
};

/** The server's own message, when the server answered with one (not a network failure or a bare status). */
export function serverMessage(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const body = error.body as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' && message.trim() !== '' ? message : undefined;
}
