/**
 * The console's members (admin_users): lookup by normalized email, create, and every change of a
 * member (role, name, password, disable, remove), with the rules that hold whoever asks: the team
 * API (src/team), the admin command line (admin-cli.ts, built outside Nest) and the start-up rules
 * (ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME create or update an owner; with no member at all,
 * admin@localhost, an owner with code sign-in).
 *
 * - The last enabled owner cannot be removed, disabled or given another role (409): someone must
 *   always be able to manage the team. Checked inside the change's transaction, with the enabled
 *   owners' rows locked first on Postgres (SQLite runs one write at a time), so two owners
 *   demoting each other at once cannot both succeed.
 * - Disabling or removing a member ends their sessions at once: revoked in the database in the
 *   same transaction, and their /admin sockets dropped on every server (SessionEvents).
 * - A role change moves their open sockets to the new role's events (SessionEvents); HTTP checks
 *   the role on every request.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { isValidEmail, normalizeEmail } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import type { Role } from '../shared/contracts/roles';
import { AdminSession } from './admin-session.entity';
import { AdminUser } from './admin-user.entity';
import { hashPassword, verifyPassword } from './passwords';
import { SessionEvents } from './session-events';

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
const NAME_MAX = 100;

export const MEMBER_MESSAGES = {
  lastOwner: 'The team needs at least one enabled owner: make another member an owner first.',
} as const;

export interface NewAdmin {
  email: string;
  name?: string;
  /** When given, password sign-in is on. */
  password?: string;
  /** Code sign-in (default on). */
  otpLogin?: boolean;
  /** Default owner (the command line and the start-up rules create people who run the install). */
  role?: Role;
}

export interface MemberChange {
  role?: Role;
  disabled?: boolean;
  name?: string;
}

export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

function validEmailOrThrow(email: string): string {
  const normalized = normalizeEmail(email);
  if (!isValidEmail(normalized)) throw new AppError('validation_failed', `"${email}" is not an email address.`);
  return normalized;
}

function validNameOrThrow(name: string | undefined): string {
  const trimmed = (name ?? '').trim();
  if (trimmed.length > NAME_MAX) throw new AppError('validation_failed', `The name must be at most ${NAME_MAX} characters long.`);
  return trimmed;
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(e?.message ?? '');
}

/** 409 unless an enabled owner other than `memberId` remains. */
function assertAnotherOwner(enabledOwners: string[], memberId: string): void {
  if (!enabledOwners.some((id) => id !== memberId)) throw new AppError('conflict', MEMBER_MESSAGES.lastOwner);
}

const isEnabledOwner = (user: Pick<AdminUser, 'role' | 'disabledAt'>) => user.role === 'owner' && user.disabledAt === null;

@Injectable()
export class AdminUsersService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(AdminUser) private readonly repo: Repository<AdminUser>,
    @Optional() private readonly events?: SessionEvents,
  ) {}

  findByEmail(email: string): Promise<AdminUser | null> {
    return this.repo.findOneBy({ email: normalizeEmail(email) });
  }

  findById(id: string): Promise<AdminUser | null> {
    return this.repo.findOneBy({ id });
  }

  list(): Promise<AdminUser[]> {
    return this.repo.find({ order: { createdAt: 'ASC', email: 'ASC' } });
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  async create(input: NewAdmin): Promise<AdminUser> {
    const user = await this.newMember(input);
    try {
      await queuedWrite(this.dataSource, () => this.repo.insert(user));
    } catch (error) {
      throw this.conflictOr(error, user.email);
    }
    return user;
  }

  /** The row `create` would insert, checked, for a caller that inserts it in its own transaction (`insertIn`). */
  async newMember(input: NewAdmin): Promise<AdminUser> {
    const email = validEmailOrThrow(input.email);
    const name = validNameOrThrow(input.name);
    const otpLogin = input.otpLogin ?? true;
    const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
    if (!otpLogin && !passwordHash) throw new AppError('validation_failed', 'A member needs a password when code sign-in is off.');
    const now = Date.now();
    return { id: randomUUID(), email, name, passwordHash, passwordLogin: passwordHash !== null, otpLogin, role: input.role ?? 'owner', disabledAt: null, createdAt: now, updatedAt: now };
  }

  /** Inserts a row from `newMember` in the caller's transaction; 409 when the email is taken. */
  async insertIn(manager: EntityManager, user: AdminUser): Promise<void> {
    if (await manager.existsBy(AdminUser, { email: user.email })) throw this.conflictOr(null, user.email);
    try {
      await manager.insert(AdminUser, user);
    } catch (error) {
      throw this.conflictOr(error, user.email);
    }
  }

  /** Sets the password and turns password sign-in on. */
  async setPassword(email: string, password: string): Promise<AdminUser> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `No member has the email ${normalizeEmail(email)}.`);
    const passwordHash = await hashPassword(password);
    const updatedAt = Date.now();
    await queuedWrite(this.dataSource, () => this.repo.update({ id: user.id }, { passwordHash, passwordLogin: true, updatedAt }));
    return { ...user, passwordHash, passwordLogin: true, updatedAt };
  }

  /**
   * Changes a member's role, name or enabled state; returns the member before and after. 404 for an
   * unknown id, 409 when it would leave no enabled owner. Disabling ends their sessions.
   */
  async change(id: string, change: MemberChange): Promise<{ before: AdminUser; after: AdminUser }> {
    const result = await writeTransaction(this.dataSource, async (manager) => {
      const owners = await this.enabledOwners(manager);
      const before = await this.member(manager, id);
      const after: AdminUser = { ...before };
      if (change.name !== undefined) after.name = validNameOrThrow(change.name);
      if (change.role !== undefined) after.role = change.role;
      if (change.disabled !== undefined) after.disabledAt = change.disabled ? (before.disabledAt ?? Date.now()) : null;
      if (isEnabledOwner(before) && !isEnabledOwner(after)) assertAnotherOwner(owners, before.id);
      if (after.name === before.name && after.role === before.role && after.disabledAt === before.disabledAt) return { before, after };
      after.updatedAt = Date.now();
      await manager.update(AdminUser, { id }, { name: after.name, role: after.role, disabledAt: after.disabledAt, updatedAt: after.updatedAt });
      if (after.disabledAt !== null && before.disabledAt === null) await this.revokeSessionsIn(manager, id);
      return { before, after };
    });
    const { before, after } = result;
    if (after.disabledAt !== null && before.disabledAt === null) await this.events?.publish({ type: 'user-removed', userId: id });
    else if (after.role !== before.role) await this.events?.publish({ type: 'role-changed', userId: id, role: after.role });
    return result;
  }

  /** Deletes the member; their sessions and codes go with them (ON DELETE CASCADE) and their sockets are dropped. 409 for the last enabled owner. */
  async removeById(id: string): Promise<AdminUser> {
    const user = await writeTransaction(this.dataSource, async (manager) => {
      const owners = await this.enabledOwners(manager);
      const found = await this.member(manager, id);
      if (isEnabledOwner(found)) assertAnotherOwner(owners, found.id);
      await manager.delete(AdminUser, { id });
      return found;
    });
    await this.events?.publish({ type: 'user-removed', userId: user.id });
    return user;
  }

  async remove(email: string): Promise<AdminUser> {
    return this.removeById(await this.idOf(email));
  }

  /** The id of the member with this email, or 404. */
  async idOf(email: string): Promise<string> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `No member has the email ${normalizeEmail(email)}.`);
    return user.id;
  }

  /**
   * ADMIN_EMAIL at start: creates the owner, or updates the name (when ADMIN_NAME is set) and the
   * password (when ADMIN_PASSWORD is set, and only if it differs). Code sign-in is always on. A
   * password set earlier (CLI) is kept when ADMIN_PASSWORD is not set. The role of an existing
   * member is left as the team set it.
   */
  async upsertFromEnvironment(email: string, password: string | undefined, name: string | undefined): Promise<UpsertOutcome> {
    const existing = await this.findByEmail(email);
    if (!existing) {
      try {
        await this.create({ email, name, password, otpLogin: true, role: 'owner' });
        return 'created';
      } catch (error) {
        // Another server starting at the same time created it first: update instead.
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        return this.upsertFromEnvironment(email, password, name);
      }
    }
    const changes: Partial<AdminUser> = {};
    if (name !== undefined && validNameOrThrow(name) !== existing.name) changes.name = validNameOrThrow(name);
    if (!existing.otpLogin) changes.otpLogin = true;
    if (password !== undefined && !(existing.passwordHash && (await verifyPassword(existing.passwordHash, password)))) {
      changes.passwordHash = await hashPassword(password);
      changes.passwordLogin = true;
    } else if (password !== undefined && !existing.passwordLogin) {
      changes.passwordLogin = true;
    }
    if (Object.keys(changes).length === 0) return 'unchanged';
    await queuedWrite(this.dataSource, () => this.repo.update({ id: existing.id }, { ...changes, updatedAt: Date.now() }));
    return 'updated';
  }

  /** With no member at all: creates admin@localhost, an owner with code sign-in. true when it did. */
  async ensureAnyAdmin(): Promise<boolean> {
    if ((await this.count()) > 0) return false;
    try {
      await this.create({ email: DEFAULT_ADMIN_EMAIL, otpLogin: true, role: 'owner' });
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return false;
      throw error;
    }
  }

  private conflictOr(error: unknown, email: string): unknown {
    return error === null || isUniqueViolation(error) ? new AppError('conflict', `A member with the email ${email} already exists.`) : error;
  }

  private async member(manager: EntityManager, id: string): Promise<AdminUser> {
    const user = await manager.findOneBy(AdminUser, { id });
    if (!user) throw new AppError('not_found', 'No such member.');
    return user;
  }

  /**
   * The enabled owners' ids. On Postgres their rows stay locked until the transaction ends, always
   * taken first and in id order, so concurrent member changes queue here instead of deadlocking.
   */
  private async enabledOwners(manager: EntityManager): Promise<string[]> {
    const query = manager.createQueryBuilder(AdminUser, 'u').select('u.id').where("u.role = 'owner' AND u.disabled_at IS NULL").orderBy('u.id');
    if (dialectOf(this.dataSource) === 'postgres') query.setLock('pessimistic_write');
    return (await query.getMany()).map((u) => u.id);
  }

  private async revokeSessionsIn(manager: EntityManager, userId: string): Promise<void> {
    await manager.createQueryBuilder().update(AdminSession).set({ revokedAt: Date.now() }).where('user_id = :userId AND revoked_at IS NULL', { userId }).execute();
  }
}
