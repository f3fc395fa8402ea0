import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (src/audit): one row per state-changing admin request and sign-in event. Rows are
 * never changed: a trigger refuses every UPDATE (the retention purge deletes whole rows).
 * `changes` is the field-level before/after as JSON, with secrets recorded only as "changed".
 */
export class AuditSqlite1732193100000 implements MigrationInterface {
  name = 'AuditSqlite1732193100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE audit_entries (
      id varchar(36) PRIMARY KEY NOT NULL,
      created_at bigint NOT NULL,
      actor_kind varchar(10) NOT NULL,
      actor_id varchar(64),
      actor_email varchar(254),
      actor_name varchar(100),
      actor_role varchar(10),
      action varchar(60) NOT NULL,
      target_kind varchar(30),
      target_id varchar(200),
      target_title varchar(200),
      changes text,
      ip varchar(64),
      user_agent varchar(300),
      request_id varchar(100)
    )`);
    await q.query('CREATE INDEX idx_audit_entries_created_at ON audit_entries (created_at)');
    await q.query('CREATE INDEX idx_audit_entries_actor ON audit_entries (actor_id, created_at)');
    await q.query('CREATE INDEX idx_audit_entries_action ON audit_entries (action, created_at)');
    await q.query('CREATE INDEX idx_audit_entries_target ON audit_entries (target_kind, target_id)');
    await q.query(`CREATE TRIGGER audit_entries_append_only BEFORE UPDATE ON audit_entries
      BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE audit_entries');
  }
}
