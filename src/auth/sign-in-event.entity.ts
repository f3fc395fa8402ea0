import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../database/columns';

export type SignInMethod = 'password' | 'otp' | 'totp' | 'recovery';
/** 'partial': a right password or emailed code, with the second factor still to come. */
export type SignInOutcome = 'success' | 'failure' | 'partial';

/** Sign-in audit: one row per password, code, authenticator code or recovery code attempt (the stats endpoint counts them). */
@Entity('admin_sign_in_events')
@Index('idx_admin_sign_in_events_created_at', ['createdAt'])
export class SignInEvent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  /** Null when the email is not an admin's. */
  @Column({ name: 'user_id', type: 'varchar', length: 36, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ type: 'varchar', length: 10 })
  method: SignInMethod;

  @Column({ type: 'varchar', length: 10 })
  outcome: SignInOutcome;

  @Column({ type: 'varchar', length: 40, nullable: true })
  reason: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;
}
