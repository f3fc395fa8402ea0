import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn } from './columns';

/** Small key/value store for app-wide facts (e.g. whether the sample knowledge was seeded). */
@Entity('settings')
export class Setting {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  key: string;

  @Column({ type: 'text' })
  value: string;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
