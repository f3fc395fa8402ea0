/**
 * Roles of the console's members, shared by the server (route guard, socket rooms, the team API)
 * and the client (which tabs and buttons a member sees). What each role may use is written once,
 * in ACCESS; a route names one of its lists with @Roles(...ACCESS.x) (src/auth/roles.decorator.ts).
 *
 * - owner: everything, including other owners and the audit log's retention.
 * - admin: everything except owners (cannot invite, change or remove an owner, or make one).
 * - agent: reads knowledge and conversations, answers handed-off conversations; no
 *   configuration, keys, budgets, team or audit.
 * - viewer: reads knowledge, analytics and conversations; changes nothing.
 */
import { z } from 'zod';

export const ROLES = ['owner', 'admin', 'agent', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', agent: 'Agent', viewer: 'Viewer' };

const EVERY_ROLE: readonly Role[] = ROLES;
const MANAGERS: readonly Role[] = ['owner', 'admin'];

/** Who may use what. A private route that names none of these is for MANAGERS only (deny by default). */
export const ACCESS = Object.freeze({
  /** Signed in at all: the session routes (me, refresh, logout). */
  signedIn: EVERY_ROLE,
  knowledgeRead: EVERY_ROLE,
  knowledgeWrite: MANAGERS,
  conversationsRead: EVERY_ROLE,
  /** Answering conversations handed to a person. */
  conversationsAnswer: ['owner', 'admin', 'agent'] as readonly Role[],
  knowledgeGapsWrite: MANAGERS,
  analyticsRead: ['owner', 'admin', 'viewer'] as readonly Role[],
  configuration: MANAGERS,
  budgets: MANAGERS,
  team: MANAGERS,
  audit: MANAGERS,
  /** How long the audit log is kept: shortening it erases history, so owners only. */
  auditRetention: ['owner'] as readonly Role[],
  /** Issuing and revoking API keys, and whether /interact requires one. */
  apiKeys: MANAGERS,
  /** Embeddable chat widgets: their settings, allowed origins and identity secrets. */
  widgets: MANAGERS,
  /**
   * The team's sign-in policy (a second factor required of everyone), resetting a member's second
   * factor, seeing and ending everyone's sessions. Each member's own second factor and sessions: signedIn.
   */
  teamSecurity: ['owner'] as readonly Role[],
});
export type AccessRule = keyof typeof ACCESS;

/** The default of a private route without a declaration. */
export const DEFAULT_ROLES: readonly Role[] = MANAGERS;

export function roleAllows(role: Role | undefined | null, allowed: readonly Role[]): boolean {
  return role !== undefined && role !== null && allowed.includes(role);
}

export function can(role: Role | undefined | null, rule: AccessRule): boolean {
  return roleAllows(role, ACCESS[rule]);
}

export const UNKNOWN_ROLE = `The role must be one of: ${ROLES.join(', ')}`;
export const RoleSchema = z.enum(ROLES, { error: UNKNOWN_ROLE }).meta({ id: 'Role', description: `One of ${ROLES.join(', ')}.` });

