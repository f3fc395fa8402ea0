/**
 * Admin sessions. The browser holds a random 256-bit token (base64url) in an HttpOnly cookie; the
 * database holds only its SHA-256. A session is valid for 24 hours unless revoked. Refresh
 * rotates: a conditional UPDATE revokes the old session (only one of two racing refreshes wins)
 * and a new one is created in the same transaction.
 *
 * A sign-in that still needs its second factor gets a session of stage 'totp' (10 minutes), and a
 * member who must first set one up a session of stage 'enrol' (30 minutes). `validate` never
 * answers those: only the routes of that step read them (`validateAt`). Passing the step replaces
 * the session with a full one (a new token, so a token seen before the second factor is worth
 * nothing after it).
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { backgroundWrite } from '../database/background-writes';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import type { Role } from '../shared/contracts/roles';
import { AdminSession, SessionStage } from './admin-session.entity';
import { AdminUser } from './admin-user.entity';
import { Clock } from '../common/clock';
import { SessionEvents } from './session-events';

export const SESSION_TTL_MS = 24 * 3600 * 1000;
const STAGE_TTL_MS: Record<SessionStage, number> = { full: SESSION_TTL_MS, totp: 10 * 60 * 1000, enrol: 30 * 60 * 1000 };
/** `last_active_at` is written when it is older than this (one write a minute per busy session). */
export const LAST_ACTIVE_RESOLUTION_MS = 60_000;

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

  async create(userId: string, client: ClientInfo, stage: SessionStage = 'full'): Promise<IssuedSession> {
    const issued = this.newSession(userId, client, stage);
    await queuedWrite(this.dataSource, () => this.sessions.insert(issued.session));
    return issued;
  }

  /** The full session and its member for a cookie token, or null when unknown, revoked, expired, not full, or the member is gone or disabled. */
  async validate(token: string | undefined): Promise<AdminAuth | null> {
    return this.validateAt(token, ['full']);
  }

  /** Like `validate`, for a route that also serves sessions of the given stages. */
  async validateAt(token: string | undefined, stages: readonly SessionStage[]): Promise<AdminAuth | null> {
    if (!token) return null;
    const session = await this.sessions.findOneBy({ tokenHash: hashToken(token) });
    if (!session || !stages.includes(session.stage ?? 'full')) return null;
    const auth = await this.check(session);
    if (auth) this.touch(auth.session);
    return auth;
  }

  /** The role of a full session's member while the session is valid, else null (the socket namespace re-checks its sockets with this). */
  async activeRole(sessionId: string): Promise<Role | null> {
    const session = await this.sessions.findOneBy({ id: sessionId });
    if (session?.stage !== 'full') return null;
    return (await this.check(session))?.user.role ?? null;
  }

  /**
   * Replaces a session of a second-factor stage with a full one (the step was passed): the old
   * one is revoked with a conditional UPDATE, so a stage is passed once.
   */
  async promote(current: AdminSession, client: ClientInfo): Promise<IssuedSession> {
    return this.replace(current, client, 'full', current.stage === 'full' ? (current.signedInAt ?? current.createdAt) : this.clock.now());
  }

  /** The active full sessions of one admin, or of everyone (newest activity first). */
  async listActive(userId?: string): Promise<Array<AdminSession & { user: AdminUser }>> {
    const query = this.sessions
      .createQueryBuilder('s')
      .innerJoinAndMapOne('s.user', AdminUser, 'u', 'u.id = s.user_id')
      .where("s.revoked_at IS NULL AND s.expires_at > :now AND s.stage = 'full'", { now: this.clock.now() });
    if (userId) query.andWhere('s.user_id = :userId', { userId });
    const rows = (await query.getMany()) as Array<AdminSession & { user: AdminUser }>;
    const lastActive = (s: AdminSession) => s.lastActiveAt ?? s.createdAt;
    return rows.sort((a, b) => lastActive(b) - lastActive(a));
  }

  async findActive(sessionId: string): Promise<AdminSession | null> {
    const session = await this.sessions.findOneBy({ id: sessionId });
    return session && session.stage === 'full' && session.revokedAt === null && session.expiresAt > this.clock.now() ? session : null;
  }

  /** Ends every session of the admin (all stages); their sockets are dropped. */
  async revokeAllOf(userId: string): Promise<void> {
    const now = this.clock.now();
    await queuedWrite(this.dataSource, () =>
      this.sessions.createQueryBuilder().update().set({ revokedAt: now }).where('user_id = :userId AND revoked_at IS NULL', { userId }).execute(),
    );
    void this.events.publish({ type: 'user-sessions-ended', userId });
  }

  /**
   * Full sessions of admins not in `keep` become 'enrol' sessions (a second factor became
   * required): they can do nothing but set one up. Their sockets are dropped. Answers their ids.
   */
  async requireEnrolment(exceptUserIds: Set<string>): Promise<string[]> {
    const now = this.clock.now();
    const active = await this.sessions
      .createQueryBuilder('s')
      .where("s.revoked_at IS NULL AND s.expires_at > :now AND s.stage = 'full'", { now })
      .getMany();
    const ids = active.filter((s) => !exceptUserIds.has(s.userId)).map((s) => s.id);
    if (ids.length === 0) return [];
    await queuedWrite(this.dataSource, () =>
      this.sessions.createQueryBuilder().update().set({ stage: 'enrol' }).where("id IN (:...ids) AND stage = 'full'", { ids }).execute(),
    );
    for (const sessionId of ids) void this.events.publish({ type: 'revoked', sessionId });
    return ids;
  }

  /** Revokes `current` and issues its successor; 401 when `current` was already revoked (a parallel refresh won). */
  async rotate(current: AdminSession, client: ClientInfo): Promise<IssuedSession> {
    return this.replace(current, client, current.stage ?? 'full', current.signedInAt ?? current.createdAt);
  }

  private async replace(current: AdminSession, client: ClientInfo, stage: SessionStage, signedInAt: number): Promise<IssuedSession> {
    const next = this.newSession(current.userId, client, stage, signedInAt);
    const now = this.clock.now();
    const rotated = await writeTransaction(this.dataSource, async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(AdminSession)
        .set({ revokedAt: now, replacedBy: next.session.id })
        .where('id = :id AND revoked_at IS NULL AND expires_at > :now AND stage = :stage', { id: current.id, now, stage: current.stage ?? 'full' })
        .execute();
      if (!result.affected) return false;
      await manager.insert(AdminSession, next.session);
      return true;
    });
    if (!rotated) throw new AppError('unauthorized', 'Not authenticated');
    if (current.stage === 'full' && stage === 'full') void this.events.publish({ type: 'rotated', fromSessionId: current.id, toSessionId: next.session.id });
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
      .where("s.revoked_at IS NULL AND s.expires_at > :now AND s.stage = 'full'", { now: this.clock.now() })
      .getCount();
  }

  private newSession(userId: string, client: ClientInfo, stage: SessionStage, signedInAt?: number): IssuedSession {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    return {
      token,
      session: {
        id: randomUUID(),
        userId,
        tokenHash: hashToken(token),
        createdAt: now,
        expiresAt: now + STAGE_TTL_MS[stage],
        revokedAt: null,
        replacedBy: null,
        ip: client.ip?.slice(0, 64) ?? null,
        userAgent: client.userAgent?.slice(0, 300) ?? null,
        stage,
        signedInAt: signedInAt ?? now,
        lastActiveAt: now,
      },
    };
  }

  /** Notes the session's activity, at most once a minute (never delays the request; a failed write is only a stale time). */
  private touch(session: AdminSession): void {
    const now = this.clock.now();
    if (now - (session.lastActiveAt ?? session.createdAt) < LAST_ACTIVE_RESOLUTION_MS) return;
    session.lastActiveAt = now;
    void backgroundWrite(this.dataSource, queuedWrite(this.dataSource, () => this.sessions.update({ id: session.id }, { lastActiveAt: now }))).catch(() => undefined);
  }

  private async check(session: AdminSession | null): Promise<AdminAuth | null> {
    if (!session || session.revokedAt !== null || session.expiresAt <= this.clock.now()) return null;
    const user = await this.users.findOneBy({ id: session.userId });
    return user && user.disabledAt === null ? { user, session } : null;
  }
}
