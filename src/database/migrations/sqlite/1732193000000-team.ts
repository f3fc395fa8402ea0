import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Members and roles (src/team): every admin gets a role, and the admins that exist become owners
 * (they could do everything before); a member can be disabled. team_invitations holds invitations
 * by email: only the SHA-256 of the link's token, the role it grants, who sent it, and when it
 * expires, was accepted or was revoked.
 */
export class TeamSqlite1732193000000 implements MigrationInterface {
  name = 'TeamSqlite1732193000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query("ALTER TABLE admin_users ADD COLUMN role varchar(10) NOT NULL DEFAULT 'owner'");
    await q.query('ALTER TABLE admin_users ADD COLUMN disabled_at bigint');
    await q.query(`CREATE TABLE team_invitations (
      id varchar(36) PRIMARY KEY NOT NULL,
      email varchar(254) NOT NULL,
      role varchar(10) NOT NULL,
      token_hash varchar(64) NOT NULL,
      invited_by varchar(36) REFERENCES admin_users (id) ON DELETE SET NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      accepted_at bigint,
      accepted_by varchar(36),
      revoked_at bigint
    )`);
    await q.query('CREATE UNIQUE INDEX idx_team_invitations_token_hash ON team_invitations (token_hash)');
    await q.query('CREATE INDEX idx_team_invitations_email ON team_invitations (email)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE team_invitations');
    await q.query('ALTER TABLE admin_users DROP COLUMN disabled_at');
    await q.query('ALTER TABLE admin_users DROP COLUMN role');
  }
}
