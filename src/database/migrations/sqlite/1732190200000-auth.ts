import { MigrationInterface, QueryRunner } from 'typeorm';

/** Admin sign-in: admins, sessions (token hashes), one-time codes (HMACs), the mail outbox and the sign-in audit. */
export class AuthSqlite1732190200000 implements MigrationInterface {
  name = 'AuthSqlite1732190200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE admin_users (
      id varchar(36) PRIMARY KEY NOT NULL,
      email varchar(254) NOT NULL,
      name varchar(100) NOT NULL,
      password_hash varchar(255),
      password_login boolean NOT NULL,
      otp_login boolean NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
    await q.query('CREATE UNIQUE INDEX idx_admin_users_email ON admin_users (email)');
    await q.query(`CREATE TABLE admin_sessions (
      id varchar(36) PRIMARY KEY NOT NULL,
      user_id varchar(36) NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      token_hash varchar(64) NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      revoked_at bigint,
      replaced_by varchar(36),
      ip varchar(64),
      user_agent varchar(300)
    )`);
    await q.query('CREATE UNIQUE INDEX idx_admin_sessions_token_hash ON admin_sessions (token_hash)');
    await q.query('CREATE INDEX idx_admin_sessions_user ON admin_sessions (user_id)');
    await q.query(`CREATE TABLE one_time_codes (
      id varchar(36) PRIMARY KEY NOT NULL,
      user_id varchar(36) NOT NULL REFERENCES admin_users (id) ON DELETE CASCADE,
      code_hash varchar(64) NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      used_at bigint,
      attempts integer NOT NULL DEFAULT 0
    )`);
    await q.query('CREATE INDEX idx_one_time_codes_user ON one_time_codes (user_id)');
    await q.query(`CREATE TABLE mail_outbox (
      id varchar(36) PRIMARY KEY NOT NULL,
      kind varchar(20) NOT NULL,
      to_address varchar(254) NOT NULL,
      subject varchar(300) NOT NULL,
      payload text,
      status varchar(12) NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_error varchar(500),
      created_at bigint NOT NULL,
      expires_at bigint,
      locked_until bigint,
      sent_at bigint
    )`);
    await q.query('CREATE INDEX idx_mail_outbox_status ON mail_outbox (status, created_at)');
    await q.query(`CREATE TABLE admin_sign_in_events (
      id varchar(36) PRIMARY KEY NOT NULL,
      created_at bigint NOT NULL,
      user_id varchar(36),
      email varchar(254) NOT NULL,
      method varchar(10) NOT NULL,
      outcome varchar(10) NOT NULL,
      reason varchar(40),
      ip varchar(64)
    )`);
    await q.query('CREATE INDEX idx_admin_sign_in_events_created_at ON admin_sign_in_events (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE admin_sign_in_events');
    await q.query('DROP TABLE mail_outbox');
    await q.query('DROP TABLE one_time_codes');
    await q.query('DROP TABLE admin_sessions');
    await q.query('DROP TABLE admin_users');
  }
}
