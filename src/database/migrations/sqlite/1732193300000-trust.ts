import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Second factor, sessions and API keys.
 *
 * - admin_sessions: `stage` ('full'; 'totp' while the sign-in waits for the authenticator code;
 *   'enrol' while a member must set up a second factor), `signed_in_at` (kept across refreshes)
 *   and `last_active_at` (written at most once a minute per session).
 * - admin_second_factors: one TOTP secret per admin, encrypted; `confirmed_at` null while being
 *   set up; `last_step` is the last accepted time step, so a code is never accepted twice.
 * - admin_recovery_codes: HMACs of the ten recovery codes, each used once.
 * - api_keys: SHA-256 of each key and its visible prefix; the key itself is never stored.
 */
export class TrustSqlite1732193300000 implements MigrationInterface {
  name = 'TrustSqlite1732193300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_sessions ADD COLUMN stage varchar(8) NOT NULL DEFAULT 'full'`);
    await q.query('ALTER TABLE admin_sessions ADD COLUMN signed_in_at bigint');
    await q.query('ALTER TABLE admin_sessions ADD COLUMN last_active_at bigint');
    await q.query(`CREATE TABLE admin_second_factors (
      user_id varchar(36) PRIMARY KEY NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      secret text NOT NULL,
      created_at bigint NOT NULL,
      confirmed_at bigint,
      last_step bigint
    )`);
    await q.query(`CREATE TABLE admin_recovery_codes (
      id varchar(36) PRIMARY KEY NOT NULL,
      user_id varchar(36) NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      code_hash varchar(64) NOT NULL,
      created_at bigint NOT NULL,
      used_at bigint
    )`);
    await q.query('CREATE INDEX idx_admin_recovery_codes_user ON admin_recovery_codes (user_id)');
    await q.query(`CREATE TABLE api_keys (
      id varchar(36) PRIMARY KEY NOT NULL,
      name varchar(100) NOT NULL,
      prefix varchar(16) NOT NULL,
      key_hash varchar(64) NOT NULL,
      scopes varchar(200) NOT NULL,
      expires_at bigint,
      rate_limit_per_minute integer,
      created_by varchar(36) REFERENCES admin_users (id) ON DELETE SET NULL,
      created_at bigint NOT NULL,
      last_used_at bigint,
      revoked_at bigint
    )`);
    await q.query('CREATE UNIQUE INDEX idx_api_keys_prefix ON api_keys (prefix)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE api_keys');
    await q.query('DROP TABLE admin_recovery_codes');
    await q.query('DROP TABLE admin_second_factors');
    await q.query('ALTER TABLE admin_sessions DROP COLUMN last_active_at');
    await q.query('ALTER TABLE admin_sessions DROP COLUMN signed_in_at');
    await q.query('ALTER TABLE admin_sessions DROP COLUMN stage');
  }
}
