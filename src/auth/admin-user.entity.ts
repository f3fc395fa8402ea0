import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';
import type { Role } from '../shared/contracts/roles';

/**
 * A member of the console (owner, admin, agent or viewer). `email` is stored normalized (trimmed,
 * lower-case), so it is unique case-insensitively. A disabled member cannot sign in and has no
 * valid session.
 */
@Entity('admin_users')
@Index('idx_admin_users_email', ['email'], { unique: true })
export class AdminUser {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** argon2id PHC string, or null when the admin has no password. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255, nullable: true })
  passwordHash: string | null;

  @Column({ name: 'password_login', type: 'boolean' })
  passwordLogin: boolean;

  @Column({ name: 'otp_login', type: 'boolean' })
  otpLogin: boolean;

  @Column({ type: 'varchar', length: 10 })
  role: Role;

  /** When the member was disabled; null while enabled. */
  @EpochMsColumn({ name: 'disabled_at', nullable: true })
  disabledAt: number | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
