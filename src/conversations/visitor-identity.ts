/**
 * Who a visitor is: an anonymous, random 256-bit secret in an HttpOnly cookie (`sa_visitor`).
 *
 * Why a cookie and not local storage: the browser sends it by itself with the page, every fetch,
 * the POST /interact fallback and the Socket.IO handshake, so the server knows the visitor before
 * the first message without the client holding the secret; HttpOnly keeps it out of reach of any
 * script (a reply rendered as Markdown cannot leak it); a cookie set by the server is not cut to 7
 * days as script-written storage is in Safari (ITP), so conversations last the retention period;
 * and SameSite=Lax keeps other sites from using it in requests they forge (the page still gets it
 * when the visitor arrives through a link).
 *
 * The server stores only the SHA-256 of the secret (`visitorKey`): a leaked database names no
 * visitor. The cookie is set when the page is served (so the socket and the first fetch carry it),
 * by the visitor API and POST /interact for callers that never loaded the page, and on a socket
 * handshake that came without one; each page load renews it for the retention period.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { AgentRegistryService } from '../agents/agent-registry.service';
import { parseCookies } from '../auth/cookies';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export const VISITOR_COOKIE = 'sa_visitor';
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const DAY_MS = 86_400_000;

export interface Visitor {
  /** SHA-256 (hex) of the cookie secret: what the database stores. */
  key: string;
  /** The request carried the cookie (a returning visitor) rather than getting a new one. */
  returning: boolean;
}

/** The secret a request's Cookie header carries, if it is well formed. */
export function visitorSecretFrom(cookieHeader: string | undefined): string | undefined {
  const secret = parseCookies(cookieHeader)[VISITOR_COOKIE];
  return secret && SECRET_PATTERN.test(secret) ? secret : undefined;
}

/**
 * The visitor token a widget's iframe sends (X-Visitor-Token) instead of the cookie, which a
 * browser may not send to a third-party frame. Issued by POST /api/public/widgets/{id}/visitor;
 * the same form as the cookie's secret, and hashed the same way.
 */
export function visitorTokenFrom(headers: IncomingHttpHeaders): string | undefined {
  const token = headers['x-visitor-token'];
  return typeof token === 'string' && SECRET_PATTERN.test(token) ? token : undefined;
}

export function visitorKeyOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newVisitorSecret(): string {
  return randomBytes(32).toString('base64url');
}

type WithVisitor = { visitorSecret?: string };

@Injectable()
export class VisitorIdentity {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly agents: AgentRegistryService,
  ) {}

  /** The visitor a request names (a widget's visitor token first, else the cookie), or undefined. */
  fromHeaders(headers: IncomingHttpHeaders): Visitor | undefined {
    const token = visitorTokenFrom(headers);
    if (token) return { key: visitorKeyOf(token), returning: true };
    const secret = visitorSecretFrom(headers.cookie);
    return secret ? { key: visitorKeyOf(secret), returning: true } : undefined;
  }

  /**
   * The visitor of an HTTP request: the one its cookie names, else a new one whose cookie goes out
   * with the response. `renew` sets the cookie again (a fresh expiry) for a returning visitor too.
   */
  ensure(req: Request, res: Response, renew = false): Visitor {
    // A widget's iframe names its visitor with the token it keeps: no cookie is read or set.
    const token = visitorTokenFrom(req.headers);
    if (token) return { key: visitorKeyOf(token), returning: true };
    const known = (req as Request & WithVisitor).visitorSecret ?? visitorSecretFrom(req.headers.cookie);
    const secret = known ?? newVisitorSecret();
    (req as Request & WithVisitor).visitorSecret = secret;
    if (!known || renew) res.append('Set-Cookie', this.cookie(secret, this.config.cookieSecure ?? req.secure));
    return { key: visitorKeyOf(secret), returning: known !== undefined };
  }

  /**
   * For a Socket.IO handshake (engine.io `initial_headers`): without a visitor cookie, a new one
   * is made, remembered on the request (the connection handler reads it) and set on the response.
   */
  onHandshake(headers: Record<string, string | string[]>, req: IncomingMessage): void {
    if (visitorSecretFrom(req.headers.cookie)) return;
    const secret = newVisitorSecret();
    (req as IncomingMessage & WithVisitor).visitorSecret = secret;
    const encrypted = Boolean((req.socket as { encrypted?: boolean } | undefined)?.encrypted);
    const existing = headers['set-cookie'];
    const cookie = this.cookie(secret, this.config.cookieSecure ?? encrypted);
    headers['set-cookie'] = existing === undefined ? [cookie] : [...(Array.isArray(existing) ? existing : [existing]), cookie];
  }

  /** The visitor of a socket's handshake request (its cookie, or the one made for it). */
  ofHandshake(req: IncomingMessage): Visitor {
    const sent = visitorSecretFrom(req.headers.cookie);
    const secret = sent ?? (req as IncomingMessage & WithVisitor).visitorSecret ?? newVisitorSecret();
    (req as IncomingMessage & WithVisitor).visitorSecret = secret;
    return { key: visitorKeyOf(secret), returning: sent !== undefined };
  }

  /** HttpOnly, SameSite=Lax, Path=/, for the retention period. */
  private cookie(secret: string, secure: boolean): string {
    const maxAge = Math.floor((this.agents.globalSettings().conversationRetentionDays * DAY_MS) / 1000);
    const parts = [`${VISITOR_COOKIE}=${secret}`, 'Path=/', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax'];
    if (secure) parts.push('Secure');
    return parts.join('; ');
  }
}
