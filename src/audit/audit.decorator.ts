/**
 * Names what a state-changing route does, for the audit log (the interceptor writes the entry):
 *
 *   @Put(':id')
 *   @Audit('knowledge.update', { target: 'knowledge' })            // the target's id: the :id parameter
 *   @Audit('settings.update', { target: 'settings', id: 'global' }) // a fixed id
 *   @Audit('knowledge.create', { target: 'knowledge', idFrom: (reply) => reply.data?.id })
 *
 * Every state-changing request of a signed-in member is recorded, named or not: a route without
 * @Audit is recorded as `<METHOD> <route>` with no target. A public route is recorded only when
 * it has @Audit (accepting an invitation); `@Audit(false)` leaves a route out where its service
 * records the event itself (sign-in, through SignInAuditService).
 */
import { SetMetadata } from '@nestjs/common';

export const AUDIT_KEY = 'audit:route';

export interface AuditRoute {
  /** `<target kind>.<verb>`: knowledge.update, member.invite, ... */
  action: string;
  /** The kind of target (registered with AuditTargets for before/after snapshots). */
  target?: string;
  /** A fixed target id (a singleton such as the global settings). */
  id?: string;
  /** The route parameter that holds the target's id (default `id`). Never a secret (an invitation token). */
  param?: string;
  /** The target's id from the handler's reply (a create), when no parameter names it. */
  idFrom?: (reply: any) => string | undefined;
  /** For a public route that signs someone in: the acting member from the reply's `user`. */
  actorFromReply?: boolean;
}

export function Audit(action: string | false, options: Omit<AuditRoute, 'action'> = {}): MethodDecorator {
  return SetMetadata(AUDIT_KEY, action === false ? false : { action, ...options });
}
