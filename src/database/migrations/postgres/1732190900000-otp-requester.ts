import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sign-in code belongs to the address that asked for it (a hash of the client IP): a request
 * from another address neither replaces it nor spends its tries, and its mail row is known so
 * that only that mail is superseded when the same address asks again.
 * Codes written before have neither and are treated as before.
 */
export class OtpRequesterPostgres1732190900000 implements MigrationInterface {
  name = 'OtpRequesterPostgres1732190900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE one_time_codes ADD COLUMN requester varchar(64)');
    await q.query('ALTER TABLE one_time_codes ADD COLUMN mail_id varchar(36)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE one_time_codes DROP COLUMN mail_id');
    await q.query('ALTER TABLE one_time_codes DROP COLUMN requester');
  }
}
