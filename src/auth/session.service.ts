/**
 * Admin sessions. The browser holds a random 256-bit token (base64url) in an HttpOnly cookie; the
 * database holds only its SHA-256. A session is valid for 24 hours unless revoked. Refresh
 * rotates: a conditional UPDATE revokes the old session (only one of two racing refreshes wins)
 * and a new one is created in the same transaction.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import type { Role } from '../shared/contracts/roles';
import { AdminSession } from './admin-session.entity';
import { AdminUser } from './admin-user.entity';
import { Clock } from './clock';
import { SessionEvents } from './session-events';

export const SESSION_TTL_MS = 24 * 3600 * 1000;

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export interface AdminAuth {
  user: AdminUser;
  session: AdminSession;
}

export interface IssuedSession {
  /** The cookie value; never stored, never logged. */
  token: string;
  session: AdminSession;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

@Injectable()
export class SessionService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(AdminSession) private readonly sessions: Repository<AdminSession>,
    @InjectRepository(AdminUser) private readonly users: Repository<AdminUser>,
    private readonly clock: Clock,
    private readonly events: SessionEvents,
  ) {}

  async create(userId: string, client: ClientInfo): Promise<IssuedSession> {
    const issued = this.newSession(userId, client);
    await queuedWrite(this.dataSource, () => this.sessions.insert(issued.session));
    return issued;
  }

  /** The session and its member for a cookie token, or null when unknown, revoked, expired, or the member is gone or disabled. */
  async validate(token: string | undefined): Promise<AdminAuth | null> {
    if (!token) return null;
    const session = await this.sessions.findOneBy({ tokenHash: hashToken(token) });
    return this.check(session);
  }

  /** The role of a session's member while the session is valid, else null (the socket namespace re-checks its sockets with this). */
  async activeRole(sessionId: string): Promise<Role | null> {
    const session = await this.sessions.findOneBy({ id: sessionId });
    return (await this.check(session))?.user.role ?? null;
  }

  /** Revokes `current` and issues its successor; 401 when `current` was already revoked (a parallel refresh won). */
  async rotate(current: AdminSession, client: ClientInfo): Promise<IssuedSession> {
    const next = this.newSession(current.userId, client);
    const now = this.clock.now();
    const rotated = await writeTransaction(this.dataSource, async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(AdminSession)
        .set({ revokedAt: now, replacedBy: next.session.id })
        .where('id = :id AND revoked_at IS NULL AND expires_at > :now', { id: current.id, now })
        .execute();
      if (!result.affected) return false;
      await manager.insert(AdminSession, next.session);
      return true;
    });
    if (!rotated) throw new AppError('unauthorized', 'Not authenticated');
    void this.events.publish({ type: 'rotated', fromSessionId: current.id, toSessionId: next.session.id });
    return next;
  }

  async revoke(sessionId: string): Promise<void> {
    const now = this.clock.now();
    await queuedWrite(this.dataSource, () =>
      this.sessions
        .createQueryBuilder()
        .update()
        .set({ revokedAt: now })
        .where('id = :id AND revoked_at IS NULL', { id: sessionId })
        .execute(),
    );
    void this.events.publish({ type: 'revoked', sessionId });
  }

  countActive(): Promise<number> {
    return this.sessions
      .createQueryBuilder('s')
      .where('s.revoked_at IS NULL AND s.expires_at > :now', { now: this.clock.now() })
      .getCount();
  }

  private newSession(userId: string, client: ClientInfo): IssuedSession {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    return {
      token,
      session: {
        id: randomUUID(),
        userId,
        tokenHash: hashToken(token),
        createdAt: now,
        expiresAt: now + SESSION_TTL_MS,
        revokedAt: null,
        replacedBy: null,
        ip: client.ip?.slice(0, 64) ?? null,
        userAgent: client.userAgent?.slice(0, 300) ?? null,
      },
    };
  }

  private async check(session: AdminSession | null): Promise<AdminAuth | null> {
    if (!session || session.revokedAt !== null || session.expiresAt <= this.clock.now()) return null;
    const user = await this.users.findOneBy({ id: session.userId });
    return user && user.disabledAt === null ? { user, session } : null;
  }
}
