import { MigrationInterface, QueryRunner } from 'typeorm';

/** a2a_tasks: the A2A tasks of each API key, with their context (the conversation) and question. */
export class A2aPostgres1732193900000 implements MigrationInterface {
  name = 'A2aPostgres1732193900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE a2a_tasks (
      id varchar(36) PRIMARY KEY,
      api_key_id varchar(36) NOT NULL,
      context_id varchar(100) NOT NULL,
      vertical varchar(40) NOT NULL,
      question text NOT NULL,
      message_id varchar(100) NOT NULL,
      created_at bigint NOT NULL
    )`);
    await q.query('CREATE INDEX idx_a2a_tasks_key_created ON a2a_tasks (api_key_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE a2a_tasks');
  }
}
