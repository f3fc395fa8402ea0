/**
 * The auth API: the sign-in forms' bodies, checked by the same
 * schemas in the login screen and on the server, and the answers. The required-field messages
 * are the schemas' own.
 */
import { z } from 'zod';
import { body } from './rules';

export const PASSWORD_MAX_CHARS = 4096;
export const OTP_DIGITS = 6;

/** Trimmed and lower-cased: how an admin email is compared and stored. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Deliberately loose (admin@localhost is valid): something@something, no spaces, at most 254 characters. */
export function isValidEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email);
}

export const EMAIL_REQUIRED = 'Email is required';
export const PASSWORD_REQUIRED = 'Password is required';
export const CODE_REQUIRED = 'Verification code is required';
export const CODE_INCOMPLETE = `Enter all ${OTP_DIGITS} digits of the code`;

const email = z
  .string({ error: EMAIL_REQUIRED })
  .overwrite(normalizeEmail)
  .min(1, EMAIL_REQUIRED)
  .refine(isValidEmail, 'Enter a valid email address')
  .meta({ description: 'The admin email (compared trimmed and lower-cased).' });

const password = z
  .string({ error: PASSWORD_REQUIRED })
  .refine((p) => p.trim() !== '', PASSWORD_REQUIRED)
  .refine((p) => p.length <= PASSWORD_MAX_CHARS, 'The password is too long');

const otp = z
  .string({ error: CODE_REQUIRED })
  .trim()
  .min(1, CODE_REQUIRED)
  .regex(new RegExp(`^\\d{${OTP_DIGITS}}$`), CODE_INCOMPLETE);

/** POST /api/auth/check-methods and /api/auth/request-otp. */
export const EmailRequestSchema = body({ email }).meta({ id: 'EmailRequest' });
export type EmailRequest = z.input<typeof EmailRequestSchema>;

/** POST /api/auth/login-password. */
export const PasswordLoginSchema = body({ email, password }).meta({ id: 'PasswordLogin' });
export type PasswordLogin = z.input<typeof PasswordLoginSchema>;

/** POST /api/auth/verify-otp. */
export const VerifyOtpSchema = body({ email, otp }).meta({ id: 'VerifyOtp' });
export type VerifyOtp = z.input<typeof VerifyOtpSchema>;

export const AuthUserSchema = z.object({ name: z.string(), email: z.string() }).meta({ id: 'AuthUser' });
export type AuthUser = z.infer<typeof AuthUserSchema>;

export const LoginMethodsSchema = z.object({ password: z.boolean(), otp: z.boolean() });
export type LoginMethods = z.infer<typeof LoginMethodsSchema>;

/** check-methods: `methods` at the top (where API clients read it) and in `data`. */
export const CheckMethodsResponseSchema = z
  .object({ success: z.literal(true), message: z.string(), methods: LoginMethodsSchema, data: z.object({ methods: LoginMethodsSchema }) })
  .meta({ id: 'CheckMethodsResponse' });

/** Sign-in, code verification and refresh: the session cookie is set; `user` at the top and in `data`. */
export const SessionResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    user: AuthUserSchema,
    data: z.object({ user: AuthUserSchema, expiresAt: z.string() }),
  })
  .meta({ id: 'SessionResponse' });

export const RequestOtpResponseSchema = z
  .object({ success: z.literal(true), message: z.string(), data: z.object({ expiresAt: z.string() }) })
  .meta({ id: 'RequestOtpResponse' });

export const MeResponseSchema = z
  .object({ success: z.literal(true), user: AuthUserSchema, data: z.object({ user: AuthUserSchema, expiresAt: z.string() }) })
  .meta({ id: 'MeResponse' });

export const LogoutResponseSchema = z.object({ success: z.literal(true), message: z.string(), data: z.null() }).meta({ id: 'LogoutResponse' });

export const AuthStatsSchema = z
  .object({ admins: z.number().int(), activeSessions: z.number().int(), signIns24h: z.number().int(), failedAttempts24h: z.number().int() })
  .meta({ id: 'AuthStats' });
export type AuthStats = z.infer<typeof AuthStatsSchema>;
