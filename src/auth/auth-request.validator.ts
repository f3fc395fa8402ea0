/** Parses the auth request bodies: 400 with a clear message for anything malformed. */
import { AppError } from '../common/app-error';
import { isValidEmail, normalizeEmail } from '../config/app-config';

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('validation_failed', 'Send a JSON object.');
  }
  return body as Record<string, unknown>;
}

export function readEmail(body: unknown): string {
  const raw = bodyOf(body).email;
  if (typeof raw !== 'string' || raw.trim() === '') throw new AppError('validation_failed', 'Email is required');
  const email = normalizeEmail(raw);
  if (!isValidEmail(email)) throw new AppError('validation_failed', 'Enter a valid email address');
  return email;
}

export function readPassword(body: unknown): string {
  const raw = bodyOf(body).password;
  if (typeof raw !== 'string' || raw === '') throw new AppError('validation_failed', 'Password is required');
  if (raw.length > 4096) throw new AppError('validation_failed', 'The password is too long');
  return raw;
}

export function readOtp(body: unknown): string {
  const raw = bodyOf(body).otp;
  if (typeof raw !== 'string' || raw.trim() === '') throw new AppError('validation_failed', 'Verification code is required');
  const code = raw.trim();
  if (!/^\d{6}$/.test(code)) throw new AppError('validation_failed', 'The verification code is 6 digits');
  return code;
}
