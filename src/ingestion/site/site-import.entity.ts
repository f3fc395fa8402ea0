import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EpochMsColumn, JsonColumn } from '../../database/columns';
import type { SiteImportStatus } from '../../shared/contracts/knowledge-import';
import type { CrawlState, SiteImportOptions } from './crawl-state';

/** A website import: its settings and its crawl state, which lets it resume and re-sync. */
@Entity('site_imports')
export class SiteImportRow {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ type: 'varchar', length: 20 })
  status: SiteImportStatus;

  @Column({ name: 'start_url', type: 'varchar', length: 2000 })
  startUrl: string;

  @JsonColumn()
  options: SiteImportOptions;

  @JsonColumn()
  state: CrawlState;

  /** Last sign of life of the run (a run whose heartbeat stopped is resumed at start). */
  @EpochMsColumn({ name: 'heartbeat_at', default: 0 })
  heartbeatAt: number;

  @EpochMsColumn({ name: 'next_resync_at', nullable: true })
  nextResyncAt: number | null;

  @EpochMsColumn({ name: 'created_at' })
  createdAt: number;

  @EpochMsColumn({ name: 'updated_at' })
  updatedAt: number;
}
