import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn, JsonColumn } from '../database/columns';

/**
 * An embeddable chat widget: where it may be embedded (`allowedOrigins`, canonical origins or
 * `https://*.example.com` patterns), what it offers and how its launcher looks. `secretCipher` is
 * the identity-verification secret, encrypted with the server key (it must be read back to check
 * HMAC signatures and JWTs, so it cannot be a hash).
 */
@Entity('widgets')
export class WidgetRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @JsonColumn({ name: 'allowed_origins' })
  allowedOrigins: string[];

  @JsonColumn()
  verticals: string[];

  @Column({ name: 'default_vertical', type: 'varchar', length: 40 })
  defaultVertical: string;

  @Column({ type: 'text' })
  greeting: string;

  @Column({ type: 'varchar', length: 7 })
  color: string;

  @Column({ name: 'text_color', type: 'varchar', length: 7 })
  textColor: string;

  @Column({ type: 'varchar', length: 20 })
  position: string;

  @Column({ name: 'default_language', type: 'varchar', length: 10 })
  defaultLanguage: string;

  @Column({ name: 'launcher_label', type: 'varchar', length: 40 })
  launcherLabel: string;

  @Column({
    name: 'require_identity',
    type: 'smallint',
    transformer: { to: (v: boolean) => (v ? 1 : 0), from: (v: unknown) => Number(v) === 1 },
  })
  requireIdentity: boolean;

  @Column({ name: 'messages_per_minute', type: 'integer', nullable: true })
  messagesPerMinute: number | null;

  @Column({ name: 'secret_cipher', type: 'text' })
  secretCipher: string;

  @EpochMsColumn({ name: 'secret_rotated_at' })
  secretRotatedAt: number;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
