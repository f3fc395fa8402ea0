import { MigrationInterface, QueryRunner } from 'typeorm';

/** Analytics: hourly usage rollups, their latency histograms, and reply feedback (one vote per reply). */
export class AnalyticsPostgres1732190500000 implements MigrationInterface {
  name = 'AnalyticsPostgres1732190500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE usage_hourly (
      hour_start bigint NOT NULL,
      agent_id varchar(100) NOT NULL,
      vertical varchar(40) NOT NULL,
      provider varchar(40) NOT NULL,
      model varchar(120) NOT NULL,
      requests bigint NOT NULL,
      errors bigint NOT NULL,
      cancelled bigint NOT NULL,
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      cost_usd double precision NOT NULL,
      latency_sum bigint NOT NULL,
      latency_count bigint NOT NULL,
      ttft_sum bigint NOT NULL,
      ttft_count bigint NOT NULL,
      PRIMARY KEY (hour_start, agent_id, vertical, provider, model)
    )`);
    await q.query(`CREATE TABLE usage_hourly_latency (
      hour_start bigint PRIMARY KEY NOT NULL,
      latency_hist text NOT NULL,
      ttft_hist text NOT NULL
    )`);
    await q.query(`CREATE TABLE reply_feedback (
      reply_id varchar(36) PRIMARY KEY NOT NULL,
      vote varchar(4) NOT NULL,
      agent_id varchar(100) NOT NULL,
      reply_created_at bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
    await q.query('CREATE INDEX idx_reply_feedback_reply_created_at ON reply_feedback (reply_created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE reply_feedback');
    await q.query('DROP TABLE usage_hourly_latency');
    await q.query('DROP TABLE usage_hourly');
  }
}
