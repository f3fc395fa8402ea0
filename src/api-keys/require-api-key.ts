/**
 * The one gate of the machine channels (/interact now; A2A, MCP and the widget's server calls
 * later): `@RequireApiKey(scope)` on a route, or `ApiKeysService.authenticate` where there is no
 * route (a socket handshake).
 *
 *   @Post('a2a')
 *   @RequireApiKey('a2a')
 *   handle(@CurrentApiKey() key: ApiKeyPrincipal) { ... }
 *
 * The key comes as `Authorization: Bearer <key>` or `X-API-Key: <key>`. A route opened to callers
 * without a key (`anonymous: 'unless-required'`, /interact for the public chat) still refuses a
 * wrong key, and refuses a missing one while the global setting `requireApiKey` is on, except for
 * the chat page's own requests (same-origin, as the browser marks them), which need no key.
 */
import { applyDecorators, CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata, UseGuards } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { AgentRegistryService } from '../agents/agent-registry.service';
import type { AuditActor } from '../audit/audit.service';
import { IS_PUBLIC } from '../auth/public.decorator';
import { AppError } from '../common/app-error';
import type { ApiKeyScope } from '../shared/contracts/api-keys';
import { API_KEY_MESSAGES } from './api-keys.errors';
import { ApiKeyPrincipal, ApiKeysService } from './api-keys.service';

export const API_KEY_REQUIREMENT = 'apiKey:requirement';

export interface ApiKeyRequirement {
  scope: ApiKeyScope;
  /** 'unless-required': callers without a key pass while the global setting requireApiKey is off. */
  anonymous?: 'unless-required';
}

/** `auditActor`: a change made with a key is recorded in the audit log as made by that key. */
export type ApiKeyRequest = Request & { apiKey?: ApiKeyPrincipal; auditActor?: AuditActor };

/** The raw key of a request: `X-API-Key`, else the token of `Authorization: Bearer`. */
export function apiKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const direct = headers['x-api-key'];
  const value = (Array.isArray(direct) ? direct[0] : direct)?.trim();
  if (value) return value.slice(0, 200);
  const auth = headers.authorization;
  const bearer = /^Bearer\s+(\S+)/i.exec(Array.isArray(auth) ? (auth[0] ?? '') : (auth ?? ''));
  return bearer ? bearer[1].slice(0, 200) : undefined;
}

/**
 * The browser says the request comes from this site's own pages (the chat page's /interact
 * fallback). A browser sets the header itself, so no other site's page can borrow the exemption; a
 * non-browser client can send it, but gets no more than the public chat socket gives anyone.
 */
function fromOwnPage(req: Request): boolean {
  return req.header('sec-fetch-site') === 'same-origin';
}

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    private readonly agents: AgentRegistryService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.getAllAndOverride<ApiKeyRequirement | undefined>(API_KEY_REQUIREMENT, [context.getHandler(), context.getClass()]);
    if (!requirement) return true;
    const req = context.switchToHttp().getRequest<ApiKeyRequest>();
    const raw = apiKeyOf(req.headers);
    if (raw === undefined) {
      const open = requirement.anonymous === 'unless-required' && (!this.agents.globalSettings().requireApiKey || fromOwnPage(req));
      if (open) return true;
      throw new AppError('unauthorized', API_KEY_MESSAGES.missing);
    }
    req.apiKey = await this.keys.authenticate(raw, requirement.scope);
    req.auditActor = { kind: 'api-key', id: req.apiKey.id, name: `${req.apiKey.name} (${req.apiKey.prefix})` };
    return true;
  }
}

/**
 * Requires an API key with `scope` on a route (no admin session needed). A route open to callers
 * without a key also carries @Public(), which documents that.
 */
export function RequireApiKey(scope: ApiKeyScope, options: Omit<ApiKeyRequirement, 'scope'> = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(IS_PUBLIC, true),
    SetMetadata(API_KEY_REQUIREMENT, { scope, ...options }),
    UseGuards(ApiKeyGuard),
    ApiSecurity('apiKeyBearer'),
    ApiSecurity('apiKey'),
  );
}

/** The key of a route under @RequireApiKey (undefined for an anonymous caller where that is allowed). */
export const CurrentApiKey = createParamDecorator((_data: unknown, context: ExecutionContext): ApiKeyPrincipal | undefined => {
  return context.switchToHttp().getRequest<ApiKeyRequest>().apiKey;
});
