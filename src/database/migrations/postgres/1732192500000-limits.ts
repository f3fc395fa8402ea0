import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cost and abuse control (src/limits).
 *
 * - limited_hourly: requests refused by a chat limit or a budget, counted per hour, rule and
 *   channel (Analytics shows them). Servers add to the same row (upsert), so the table stays small
 *   however many requests an attacker sends.
 * - budget_alerts: one row per budget, month and threshold ('soft' or 'cap') once it was crossed;
 *   the primary key makes the alert (mail to every admin, console banner) happen once per month
 *   whichever server saw it first.
 */
export class LimitsPostgres1732192500000 implements MigrationInterface {
  name = 'LimitsPostgres1732192500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE limited_hourly (
      hour_start bigint NOT NULL,
      rule varchar(20) NOT NULL,
      channel varchar(10) NOT NULL,
      count bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (hour_start, rule, channel)
    )`);
    await q.query(`CREATE TABLE budget_alerts (
      month varchar(7) NOT NULL,
      scope varchar(80) NOT NULL,
      threshold varchar(8) NOT NULL,
      created_at bigint NOT NULL,
      spent_usd double precision NOT NULL,
      monthly_usd double precision NOT NULL,
      PRIMARY KEY (month, scope, threshold)
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS budget_alerts');
    await q.query('DROP TABLE IF EXISTS limited_hourly');
  }
}
