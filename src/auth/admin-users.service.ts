/**
 * Admin users: lookup by normalized email, create / update / remove, and the start-up rules
 * (ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME create or update an admin; with no admin at all,
 * admin@localhost with code sign-in). The admin CLI builds it outside Nest (admin-cli.ts).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { isValidEmail, normalizeEmail } from '../config/app-config';
import { queuedWrite } from '../database/write-queue';
import { AdminUser } from './admin-user.entity';
import { hashPassword, verifyPassword } from './passwords';
import { SessionEvents } from './session-events';

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
const NAME_MAX = 100;

export interface NewAdmin {
  email: string;
  name?: string;
  /** When given, password sign-in is on. */
  password?: string;
  /** Code sign-in (default on). */
  otpLogin?: boolean;
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
    const email = validEmailOrThrow(input.email);
    const name = validNameOrThrow(input.name);
    const otpLogin = input.otpLogin ?? true;
    const passwordHash = input.password !== undefined ? await hashPassword(input.password) : null;
    if (!otpLogin && !passwordHash) throw new AppError('validation_failed', 'An admin needs a password when code sign-in is off.');
    const now = Date.now();
    const user: AdminUser = { id: randomUUID(), email, name, passwordHash, passwordLogin: passwordHash !== null, otpLogin, createdAt: now, updatedAt: now };
    try {
      await queuedWrite(this.dataSource, () => this.repo.insert(user));
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('conflict', `An admin with the email ${email} already exists.`);
      throw error;
    }
    return user;
  }

  /** Sets the password and turns password sign-in on. */
  async setPassword(email: string, password: string): Promise<AdminUser> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `No admin has the email ${normalizeEmail(email)}.`);
    const passwordHash = await hashPassword(password);
    const updatedAt = Date.now();
    await queuedWrite(this.dataSource, () => this.repo.update({ id: user.id }, { passwordHash, passwordLogin: true, updatedAt }));
    return { ...user, passwordHash, passwordLogin: true, updatedAt };
  }

  /** Deletes the admin; their sessions and codes go with them (ON DELETE CASCADE) and their sockets are dropped. */
  async remove(email: string): Promise<AdminUser> {
    const user = await this.findByEmail(email);
    if (!user) throw new AppError('not_found', `No admin has the email ${normalizeEmail(email)}.`);
    await queuedWrite(this.dataSource, () => this.repo.delete({ id: user.id }));
    this.events?.publish({ type: 'user-removed', userId: user.id });
    return user;
  }

  /**
   * ADMIN_EMAIL at start: creates the admin, or updates the name (when ADMIN_NAME is set) and the
   * password (when ADMIN_PASSWORD is set, and only if it differs). Code sign-in is always on. A
   * password set earlier (CLI) is kept when ADMIN_PASSWORD is not set.
   */
  async upsertFromEnvironment(email: string, password: string | undefined, name: string | undefined): Promise<UpsertOutcome> {
    const existing = await this.findByEmail(email);
    if (!existing) {
      try {
        await this.create({ email, name, password, otpLogin: true });
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

  /** With no admin at all: creates admin@localhost with code sign-in. true when it did. */
  async ensureAnyAdmin(): Promise<boolean> {
    if ((await this.count()) > 0) return false;
    try {
      await this.create({ email: DEFAULT_ADMIN_EMAIL, otpLogin: true });
      return true;
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return false;
      throw error;
    }
  }
}
