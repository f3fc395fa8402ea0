import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from '../../database/columns';

/**
 * An admin's TOTP secret (RFC 6238), encrypted with the secret box (the user id as associated
 * data). `confirmedAt` is null while it is being set up: it counts only once a code from the
 * authenticator app was accepted. `lastStep` is the time step of the last accepted code: a code
 * of that step or an earlier one is refused, so a code seen over a shoulder cannot be replayed.
 */
@Entity('admin_second_factors')
export class SecondFactor {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 36 })
  userId: string;

  @Column({ type: 'text' })
  secret: string;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'confirmed_at', nullable: true })
  confirmedAt: number | null;

  @EpochMsColumn({ name: 'last_step', nullable: true })
  lastStep: number | null;
}
