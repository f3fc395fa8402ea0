/** The auth calls (all with cookies, through lib/api). */
import {
  EmailRequestSchema,
  PasswordLoginSchema,
  SecondFactorCodeSchema,
  SecurityPolicyUpdateSchema,
  TotpCodeSchema,
  VerifyOtpSchema,
  type AuthUser,
  type LoginMethods,
  type RecoveryCodes,
  type SecondFactorCode,
  type SecondFactorStep,
  type SecurityPolicy,
  type SessionInfo,
  type TotpEnrolment,
  type TotpStatus,
} from '@shared/contracts/auth';
import { ApiError, apiRequest } from '../../../lib/api';

export type { AuthUser, LoginMethods, SecondFactorCode, SecondFactorStep, SessionInfo, TotpEnrolment, TotpStatus };

/** An auth response: success, user, message; `secondFactor` when a second-factor step is still to go. */
export interface AuthResponse {
  success: boolean;
  message?: string;
  user?: AuthUser;
  secondFactor?: SecondFactorStep;
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
  verifyTotp: (proof: SecondFactorCode) => apiRequest<AuthResponse>('/api/auth/verify-totp', { method: 'POST', body: proof, contract: SecondFactorCodeSchema }),
  me: () => apiRequest<AuthResponse>('/api/auth/me'),
  refresh: () => apiRequest<AuthResponse>('/api/auth/refresh', { method: 'POST' }),
  logout: () => apiRequest<AuthResponse>('/api/auth/logout', { method: 'POST' }),
};

/** The second factor and sessions of the signed-in admin, and the team's sign-in policy. */
export const securityApi = {
  totpStatus: (signal?: AbortSignal) => apiRequest<{ data: TotpStatus }>('/api/auth/totp', { signal }).then((r) => r.data),
  enrol: () => apiRequest<{ data: TotpEnrolment }>('/api/auth/totp/enrol', { method: 'POST' }).then((r) => r.data),
  confirm: (code: string) => apiRequest<{ data: RecoveryCodes }>('/api/auth/totp/confirm', { method: 'POST', body: { code }, contract: TotpCodeSchema }).then((r) => r.data),
  newRecoveryCodes: (code: string) =>
    apiRequest<{ data: RecoveryCodes }>('/api/auth/totp/recovery-codes', { method: 'POST', body: { code }, contract: TotpCodeSchema }).then((r) => r.data),
  disable: (proof: SecondFactorCode) => apiRequest('/api/auth/totp', { method: 'DELETE', body: proof, contract: SecondFactorCodeSchema }),
  policy: (signal?: AbortSignal) => apiRequest<{ data: SecurityPolicy }>('/api/auth/security', { signal }).then((r) => r.data),
  setPolicy: (policy: SecurityPolicy) =>
    apiRequest<{ data: SecurityPolicy }>('/api/auth/security', { method: 'PUT', body: policy, contract: SecurityPolicyUpdateSchema }).then((r) => r.data),
  sessions: (scope: 'mine' | 'all', signal?: AbortSignal) => apiRequest<{ data: SessionInfo[] }>('/api/auth/sessions', { query: { scope }, signal }).then((r) => r.data),
  endSession: (id: string) => apiRequest<{ data: { current: boolean } }>(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }).then((r) => r.data),
  resetMember: (id: string) => apiRequest(`/api/team/members/${encodeURIComponent(id)}/totp`, { method: 'DELETE' }),
};

/** The server's own message, when the server answered with one (not a network failure or a bare status). */
export function serverMessage(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const body = error.body as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' && message.trim() !== '' ? message : undefined;
}
