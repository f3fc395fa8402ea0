/** Messages of the auth API (the client shows the server's message when it gets one). */
import { AppError } from '../common/app-error';

export const AUTH_MESSAGES = {
  emailNotAuthorized: 'Email not authorized',
  accountDisabled: 'This account is disabled. Ask an owner or admin of your team to enable it.',
  notAuthenticated: 'Not authenticated',
  signInStepExpired: 'This sign-in has timed out or was already completed. Please sign in again.',
  invalidCredentials: 'Invalid email or password',
  passwordLoginDisabled: 'Password login is not enabled for this email',
  otpLoginDisabled: 'Code login is not enabled for this email',
  noActiveCode: 'No active verification code. Please request a new one.',
  codeExpired: 'The verification code has expired. Please request a new one.',
  tooManyAttempts: 'Too many incorrect attempts. Please request a new code.',
  codeUsed: 'This verification code has already been used. Please request a new one.',
  crossOrigin: 'Cross-origin requests to the admin API are not allowed',
} as const;

export function invalidCodeMessage(attemptsLeft: number): string {
  return `Invalid verification code. ${attemptsLeft} ${attemptsLeft === 1 ? 'attempt' : 'attempts'} left.`;
}

function humanWait(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

export type RateLimitedWhat = 'code-burst' | 'code-hourly' | 'attempts' | 'account';

/** 429 with the wait; the auth controller turns `retryAfterSeconds` into a Retry-After header. */
export class RateLimitedError extends AppError {
  constructor(
    what: RateLimitedWhat,
    readonly retryAfterSeconds: number,
  ) {
    const wait = humanWait(retryAfterSeconds);
    const message =
      what === 'code-burst'
        ? `Please wait ${wait} before requesting another code.`
        : what === 'code-hourly'
          ? `Too many codes requested for this email. Try again in ${wait}.`
          : what === 'account'
            ? `Too many failed sign-ins for this account. Try again in ${wait}.`
            : `Too many sign-in attempts. Try again in ${wait}.`;
    super('rate_limited', message, { retryAfterSeconds });
    this.name = 'RateLimitedError';
  }
}
