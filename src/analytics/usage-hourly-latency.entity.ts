import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochMsKey } from './epoch-ms-key';

/**
 * Latency and time-to-first-token histograms of one hour's successful replies (all agents), so
 * percentiles over any window are a merge of a few hundred small histograms instead of a sort
 * of every event. Written in the same transaction as the hour's usage_hourly rows.
 */
@Entity('usage_hourly_latency')
export class UsageHourlyLatency {
  @PrimaryColumn({ name: 'hour_start', type: 'bigint', transformer: epochMsKey })
  hourStart: number;

  /** Histogram as JSON: {"bucket": count} (see latency-histogram.ts). */
  @Column({ name: 'latency_hist', type: 'text' })
  latencyHist: string;

  @Column({ name: 'ttft_hist', type: 'text' })
  ttftHist: string;
}
