/**
 * Which roles may use a route: one declaration per route (or per controller), read by the global
 * guard (AuthGuard) and shown in /api/openapi.json as `x-roles`.
 *
 *   @Get()
 *   @Roles(...ACCESS.knowledgeRead)          // owner, admin, agent, viewer
 *   list() { ... }
 *
 *   @Put(':id')
 *   @Roles(...ACCESS.knowledgeWrite)         // owner, admin
 *   update() { ... }
 *
 * A private route without @Roles is for owners and admins only (DEFAULT_ROLES): deny by default,
 * so a new route is never open to agents or viewers by accident. A member whose role is not listed
 * gets 403 `forbidden`. @Public() routes need no session and no role. The lists live in
 * src/shared/contracts/roles.ts (ACCESS), which the console reads too.
 */
import { applyDecorators, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import { DEFAULT_ROLES, ROLE_LABELS, type Role } from '../shared/contracts/roles';

export const ROLES_KEY = 'auth:roles';
export const ROLES_EXTENSION = 'x-roles';

export function Roles(...roles: Role[]): ClassDecorator & MethodDecorator {
  if (roles.length === 0) throw new Error('@Roles needs at least one role');
  return applyDecorators(SetMetadata(ROLES_KEY, roles), ApiExtension(ROLES_EXTENSION, roles));
}

/** The roles a handler accepts: its own declaration, its controller's, or DEFAULT_ROLES. */
export function rolesOf(reflector: Reflector, context: Pick<ExecutionContext, 'getHandler' | 'getClass'>): readonly Role[] {
  return reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [context.getHandler(), context.getClass()]) ?? DEFAULT_ROLES;
}

export function forbiddenMessage(role: Role): string {
  return `Your role (${ROLE_LABELS[role]}) does not allow this.`;
}
