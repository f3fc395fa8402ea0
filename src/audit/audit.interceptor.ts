/**
 * The one writer of request audit entries (APP_INTERCEPTOR). For every HTTP request it keeps the
 * request's origin for the audit (audit-context.ts). For a state-changing request (POST, PUT,
 * PATCH, DELETE) of a signed-in member, and a public one named with @Audit, it snapshots the
 * target before the handler runs (AuditTargets), lets the handler answer, snapshots again and
 * records who, role, action, target, the field-level before/after, IP, user agent and request id.
 * Refused requests (4xx, 5xx) change nothing and are not recorded; a failed audit write is logged
 * and does not turn a change that was made into an error.
 */
import { CallHandler, ExecutionContext, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, mergeMap, Observable } from 'rxjs';
import type { AuthedRequest } from '../auth/request-authenticator';
import { IS_PUBLIC } from '../auth/public.decorator';
import { originOf, runWithOrigin } from './audit-context';
import { diffSnapshots } from './audit-diff';
import { AUDIT_KEY, type AuditRoute } from './audit.decorator';
import { AuditTargets, type TargetSnapshot } from './audit-targets';
import { AuditService, memberActor, type AuditActor } from './audit.service';

const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A request authenticated otherwise than by a member's session (an API key) names its actor here. */
export type AuditedRequest = AuthedRequest & { auditActor?: AuditActor };

interface Reply {
  data?: { id?: unknown; agentId?: unknown };
  user?: { id: string; email: string; name: string; role: string };
}

@Injectable()
export class AuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditService,
    private readonly targets: AuditTargets,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<AuditedRequest>();
    const origin = originOf(req);
    const route = this.reflector.get<AuditRoute | false | undefined>(AUDIT_KEY, context.getHandler());
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    const recorded = CHANGING.has(req.method) && route !== false && (route !== undefined || (!isPublic && (req.adminAuth !== undefined || req.auditActor !== undefined)));
    if (!recorded) return new Observable((subscriber) => runWithOrigin(origin, () => next.handle().subscribe(subscriber)));

    const action = route ? route.action : `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? req.path}`;
    const kind = route?.target;
    const idBefore = route ? (route.id ?? (req.params?.[route.param ?? 'id'] as string | undefined)) : undefined;
    const before = kind && idBefore ? this.targets.snapshot(kind, idBefore) : Promise.resolve(null);
    return new Observable((subscriber) =>
      runWithOrigin(origin, () =>
        from(before)
          .pipe(
            mergeMap((snapshot) => next.handle().pipe(mergeMap((reply) => this.afterward(req, route, action, idBefore, snapshot, reply as Reply)))),
          )
          .subscribe(subscriber),
      ),
    );
  }

  private async afterward(req: AuditedRequest, route: AuditRoute | undefined, action: string, idBefore: string | undefined, before: TargetSnapshot | null, reply: Reply): Promise<unknown> {
    try {
      const actor = this.actorOf(req, route, reply);
      const kind = route?.target;
      const id = idBefore ?? route?.idFrom?.(reply);
      const after = kind && id ? await this.targets.snapshot(kind, id) : null;
      await this.audit.record({
        action,
        actor,
        target: kind ? { kind, id: id ?? null, title: (after ?? before)?.title ?? null } : null,
        changes: diffSnapshots(before?.fields, after?.fields),
      });
    } catch (error) {
      this.logger.error(`Could not record "${action}" in the audit log: ${(error as Error).message}`);
    }
    return reply;
  }

  private actorOf(req: AuditedRequest, route: AuditRoute | undefined, reply: Reply): AuditActor {
    if (req.auditActor) return req.auditActor;
    if (req.adminAuth) return memberActor(req.adminAuth.user);
    if (route?.actorFromReply && reply?.user) return memberActor(reply.user);
    return { kind: 'anonymous' };
  }
}
