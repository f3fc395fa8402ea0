/** The auth calls of product-spec section 7 (all with cookies, through lib/api). */
import { ApiError, apiRequest } from '../../../lib/api';

export interface AuthUser {
  name: string;
  email: string;
}

export interface LoginMethods {
  password: boolean;
  otp: boolean;
}

/** The spec's auth response: success, user, message. */
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
  checkMethods: (email: string) => apiRequest<CheckMethodsResponse>('/api/auth/check-methods', { method: 'POST', body: { email } }),
  loginPassword: (email: string, password: string) => apiRequest<AuthResponse>('/api/auth/login-password', { method: 'POST', body: { email, password } }),
  requestOtp: (email: string) => apiRequest<AuthResponse>('/api/auth/request-otp', { method: 'POST', body: { email } }),
  verifyOtp: (email: string, otp: string) => apiRequest<AuthResponse>('/api/auth/verify-otp', { method: 'POST', body: { email, otp } }),
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
