/**
 * The team API: members (role, status, second factor, last sign-in), invitations by email, and
 * accepting one. The same schemas check the console's forms and the server's bodies.
 */
import { z } from 'zod';
import { AuthUserSchema, isValidEmail, normalizeEmail } from './auth';
import { RoleSchema } from './roles';
import { body, flag, text } from './rules';

/** An invitation link works this long after it was sent. */
export const INVITATION_TTL_HOURS = 72;
export const MEMBER_NAME_MAX = 100;
export const NEW_PASSWORD_MIN = 12;
export const NEW_PASSWORD_MAX = 128;

export const INVITE_EMAIL_REQUIRED = 'Email is required';
export const INVITE_EMAIL_INVALID = 'Enter a valid email address';

const inviteEmail = z
  .string({ error: INVITE_EMAIL_REQUIRED })
  .overwrite(normalizeEmail)
  .min(1, INVITE_EMAIL_REQUIRED)
  .refine(isValidEmail, INVITE_EMAIL_INVALID)
  .meta({ description: 'Compared trimmed and lower-cased.' });

/** A new password: 12 to 128 characters (counted as characters, not bytes), no composition rules. */
export const newPassword = z
  .string({ error: 'Password must be text' })
  .refine((p) => [...p].length >= NEW_PASSWORD_MIN, `The password must be at least ${NEW_PASSWORD_MIN} characters long`)
  .refine((p) => [...p].length <= NEW_PASSWORD_MAX, `The password must be at most ${NEW_PASSWORD_MAX} characters long`);

export const MemberStatusSchema = z.enum(['active', 'disabled']);
export type MemberStatus = z.infer<typeof MemberStatusSchema>;

export const MemberSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    role: RoleSchema,
    status: MemberStatusSchema,
    /** Their authenticator app is set up. */
    twoFactor: z.boolean(),
    /** Sign-in methods they may use. */
    passwordLogin: z.boolean(),
    codeLogin: z.boolean(),
    /** ISO date-time of their last complete sign-in, or null (never). */
    lastSignInAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Member' });
export type Member = z.infer<typeof MemberSchema>;

export const InvitationStatusSchema = z.enum(['pending', 'accepted', 'expired', 'revoked']);
export type InvitationStatus = z.infer<typeof InvitationStatusSchema>;

export const InvitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: RoleSchema,
    status: InvitationStatusSchema,
    invitedBy: z.object({ name: z.string(), email: z.string() }).nullable(),
    createdAt: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof InvitationSchema>;

/** GET /api/team/members: the members, and the invitations still waiting to be accepted. */
export const TeamSchema = z.object({ members: z.array(MemberSchema), invitations: z.array(InvitationSchema) }).meta({ id: 'Team' });
export type Team = z.infer<typeof TeamSchema>;

/** POST /api/team/invitations. */
export const InvitationCreateSchema = body({ email: inviteEmail, role: RoleSchema }).meta({ id: 'InvitationCreate' });
export type InvitationCreate = z.input<typeof InvitationCreateSchema>;

export const MEMBER_UPDATE_EMPTY = 'Send the role, the name or whether the member is disabled';

/** PATCH /api/team/members/{id}: any of the three. */
export const MemberUpdateSchema = body({
  role: RoleSchema.optional(),
  disabled: flag('Disabled').optional(),
  name: text('Name', MEMBER_NAME_MAX).optional(),
})
  .refine((b) => b.role !== undefined || b.disabled !== undefined || b.name !== undefined, MEMBER_UPDATE_EMPTY)
  .meta({ id: 'MemberUpdate' });
export type MemberUpdate = z.input<typeof MemberUpdateSchema>;

/** GET /api/team/invitations/{token}: what the acceptance page shows before the invitee answers. */
export const InvitationPreviewSchema = z
  .object({ email: z.string(), role: RoleSchema, invitedBy: z.string().nullable(), expiresAt: z.string() })
  .meta({ id: 'InvitationPreview' });
export type InvitationPreview = z.infer<typeof InvitationPreviewSchema>;

/**
 * POST /api/team/invitations/{token}/accept: a name, and either a password (password sign-in) or
 * none (sign-in with a code mailed to the address). Code sign-in stays on either way.
 */
export const InvitationAcceptSchema = body({
  name: text('Name', MEMBER_NAME_MAX, { required: 'Enter your name' }),
  password: newPassword.optional(),
}).meta({ id: 'InvitationAccept' });
export type InvitationAccept = z.input<typeof InvitationAcceptSchema>;

/** The answer to accepting: the new member (`user` at the top, as sign-in answers, and in `data`). */
export const AcceptedInvitationSchema = z
  .object({ success: z.literal(true), message: z.string(), user: AuthUserSchema, data: z.object({ user: AuthUserSchema }) })
  .meta({ id: 'AcceptedInvitation' });
