/**
 * The auth API: the sign-in forms' bodies, checked by the same
 * schemas in the login screen and on the server, and the answers. The required-field messages
 * are the schemas' own.
 */
import { z } from 'zod';
import { RoleSchema } from './roles';
import { body, flag } from './rules';

export const PASSWORD_MAX_CHARS = 4096;
export const OTP_DIGITS = 6;
/** A new sign-in code for the same email may be asked for from the same address once per this many seconds. */
export const OTP_RESEND_SECONDS = 30;

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

/** The signed-in member: the spec's name and email, with their id and role (the console shows what the role may use). */
export const AuthUserSchema = z.object({ id: z.string(), name: z.string(), email: z.string(), role: RoleSchema }).meta({ id: 'AuthUser' });
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

/** A change done, with nothing to answer but a message (turning the second factor off, a reset). */
export const DoneResponseSchema = z.object({ success: z.literal(true), message: z.string(), data: z.null() }).meta({ id: 'DoneResponse' });

export const AuthStatsSchema = z
  .object({ admins: z.number().int(), activeSessions: z.number().int(), signIns24h: z.number().int(), failedAttempts24h: z.number().int() })
  .meta({ id: 'AuthStats' });
export type AuthStats = z.infer<typeof AuthStatsSchema>;

// --- second factor (TOTP, RFC 6238) ------------------------------------------------------------

/** What a sign-in still needs after the password or emailed code: the authenticator code, or setting one up. */
export const SecondFactorStepSchema = z.enum(['totp', 'enrol']);
export type SecondFactorStep = z.infer<typeof SecondFactorStepSchema>;

/** What the sign-in tells the admin when a second-factor step is next (the login screen's subtitle too). */
export const SECOND_FACTOR_PROMPTS: Record<SecondFactorStep, string> = {
  totp: 'Enter the 6-digit code from your authenticator app',
  enrol: 'Set up two-factor authentication to continue',
};

export const RECOVERY_CODE_COUNT = 10;
/** Recovery codes: 10 letters and digits, shown as two groups of five (abcde-23456). */
export const RECOVERY_CODE_CHARS = 10;
export const CODE_DIGITS_ONLY = 'The code from your authenticator app is made of digits only';
export const RECOVERY_CODE_FORMAT = 'Enter a recovery code such as abcde-23456';

/** A 6-digit authenticator code; the spaces apps show ("123 456") are ignored. */
export const totpCode = z
  .string({ error: CODE_REQUIRED })
  .overwrite((s) => s.replace(/\s+/g, ''))
  .min(1, CODE_REQUIRED)
  .regex(/^\d*$/, CODE_DIGITS_ONLY)
  .length(OTP_DIGITS, CODE_INCOMPLETE);

/** A recovery code, compared lower-case without spaces or hyphens. */
export const recoveryCode = z
  .string({ error: RECOVERY_CODE_FORMAT })
  .overwrite((s) => s.replace(/[\s-]+/g, '').toLowerCase())
  .regex(new RegExp(`^[a-z0-9]{${RECOVERY_CODE_CHARS}}$`), RECOVERY_CODE_FORMAT);

/**
 * POST /api/auth/verify-totp and DELETE /api/auth/totp: the authenticator code, or one of the
 * recovery codes instead (exactly one of the two).
 */
export const SecondFactorCodeSchema = body({ code: totpCode.optional(), recoveryCode: recoveryCode.optional() })
  .refine((b) => b.code !== undefined || b.recoveryCode !== undefined, CODE_REQUIRED)
  .refine((b) => b.code === undefined || b.recoveryCode === undefined, 'Send either the code or a recovery code, not both')
  .meta({ id: 'SecondFactorCode' });
export type SecondFactorCode = z.input<typeof SecondFactorCodeSchema>;

/** POST /api/auth/totp/confirm and /api/auth/totp/recovery-codes: a code from the authenticator app. */
export const TotpCodeSchema = body({ code: totpCode }).meta({ id: 'TotpCode' });
export type TotpCode = z.input<typeof TotpCodeSchema>;

/**
 * Sign-in answered with a step still to go: the session cookie is set, but it opens only that
 * step (verify-totp, or setting up a second factor) until it is done.
 */
export const SecondFactorStepResponseSchema = z
  .object({
    success: z.literal(true),
    message: z.string(),
    secondFactor: SecondFactorStepSchema,
    data: z.object({ secondFactor: SecondFactorStepSchema, expiresAt: z.string() }),
  })
  .meta({ id: 'SecondFactorStepResponse' });

/** login-password and verify-otp: signed in, or a second-factor step to go. */
export const SignInResponseSchema = z.union([SessionResponseSchema, SecondFactorStepResponseSchema]).meta({ id: 'SignInResponse' });
export type SignInResponse = z.infer<typeof SignInResponseSchema>;

/** GET /api/auth/me of a sign-in waiting for its second factor: no `user` at the top (not signed in yet). */
export const PendingMeResponseSchema = z
  .object({
    success: z.literal(true),
    secondFactor: SecondFactorStepSchema,
    data: z.object({ user: AuthUserSchema, secondFactor: SecondFactorStepSchema, expiresAt: z.string() }),
  })
  .meta({ id: 'PendingMeResponse' });
export const AnyMeResponseSchema = z.union([MeResponseSchema, PendingMeResponseSchema]).meta({ id: 'AnyMeResponse' });

/** GET /api/auth/totp. */
export const TotpStatusSchema = z
  .object({
    enabled: z.boolean(),
    confirmedAt: z.string().nullable(),
    recoveryCodesLeft: z.number().int(),
    /** An owner requires a second factor of every member: it cannot be turned off. */
    required: z.boolean(),
  })
  .meta({ id: 'TotpStatus' });
export type TotpStatus = z.infer<typeof TotpStatusSchema>;

/** POST /api/auth/totp/enrol: the new secret, as text, as an otpauth:// URI and as a QR code (SVG). */
export const TotpEnrolmentSchema = z
  .object({ secret: z.string(), otpauthUri: z.string(), qrSvg: z.string(), issuer: z.string(), account: z.string() })
  .meta({ id: 'TotpEnrolment' });
export type TotpEnrolment = z.infer<typeof TotpEnrolmentSchema>;

/** The recovery codes, shown once (confirm, and new codes). `signedIn`: an enrol-stage sign-in became a full one. */
export const RecoveryCodesSchema = z
  .object({ recoveryCodes: z.array(z.string()), signedIn: z.boolean(), user: AuthUserSchema.optional() })
  .meta({ id: 'RecoveryCodes' });
export type RecoveryCodes = z.infer<typeof RecoveryCodesSchema>;

/** GET|PUT /api/auth/security: the sign-in policy (an owner's to change). */
export const SecurityPolicySchema = z.object({ requireSecondFactor: z.boolean() }).meta({ id: 'SecurityPolicy' });
export type SecurityPolicy = z.infer<typeof SecurityPolicySchema>;
export const SecurityPolicyUpdateSchema = body({ requireSecondFactor: flag('Require a second factor') }).meta({ id: 'SecurityPolicyUpdate' });
export type SecurityPolicyUpdate = z.input<typeof SecurityPolicyUpdateSchema>;

// --- sessions ----------------------------------------------------------------------------------

/** GET /api/auth/sessions ?scope=all: every member's sessions (owners). */
export const SessionListQuerySchema = z
  .object({ scope: z.enum(['mine', 'all', ''], { error: 'The scope must be mine or all' }).optional().transform((v) => (v === 'all' ? 'all' : 'mine')) })
  .meta({ id: 'SessionListQuery' });
export type SessionListQuery = z.output<typeof SessionListQuerySchema>;

export const SessionInfoSchema = z
  .object({
    id: z.string(),
    /** "Chrome 126 on macOS", from the user agent ('Unknown browser' when there is none). */
    browser: z.string(),
    ip: z.string().nullable(),
    signedInAt: z.string(),
    lastActiveAt: z.string(),
    expiresAt: z.string(),
    /** The session of this request. */
    current: z.boolean(),
    user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  })
  .meta({ id: 'SessionInfo' });
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** DELETE /api/auth/sessions/{id} `data`: whether it was the caller's own session (then signed out). */
export const EndedSessionSchema = z.object({ current: z.boolean() }).meta({ id: 'EndedSession' });
