import { MigrationInterface, QueryRunner } from 'typeorm';

export class CorePostgres1732190000000 implements MigrationInterface {
  name = 'CorePostgres1732190000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE usage_events (
      id varchar(36) PRIMARY KEY,
      created_at bigint NOT NULL,
      request_id varchar(100) NOT NULL,
      agent_id varchar(100) NOT NULL,
      vertical varchar(40) NOT NULL,
      provider varchar(40) NOT NULL,
      model varchar(120) NOT NULL,
      channel varchar(10) NOT NULL,
      status varchar(10) NOT NULL,
      error_code varchar(40),
      error_message varchar(500),
      prompt_tokens bigint NOT NULL,
      completion_tokens bigint NOT NULL,
      cost_usd double precision NOT NULL,
      latency_ms bigint NOT NULL,
      ttft_ms bigint,
      language varchar(10)
    )`);
    await q.query('CREATE INDEX idx_usage_events_created_at ON usage_events (created_at)');
    await q.query(`CREATE TABLE settings (
      key varchar(100) PRIMARY KEY NOT NULL,
      value text NOT NULL,
      updated_at bigint NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE settings');
    await q.query('DROP TABLE usage_events');
  }
}
