import { MigrationInterface, QueryRunner } from 'typeorm';

/** Agent configurations; API keys only as AES-256-GCM ciphertext. Global settings live in `settings`. */
export class AgentsSqlite1732190400000 implements MigrationInterface {
  name = 'AgentsSqlite1732190400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE agents (
      agent_id varchar(64) PRIMARY KEY NOT NULL,
      agent_name varchar(100) NOT NULL,
      vertical varchar(32) NOT NULL,
      enabled boolean NOT NULL,
      system_prompt text NOT NULL,
      timeout_ms integer NOT NULL,
      provider varchar(32) NOT NULL,
      model varchar(200) NOT NULL,
      api_key_cipher text,
      temperature double precision,
      max_tokens integer NOT NULL,
      endpoint varchar(500),
      base_url varchar(500),
      api_version varchar(40),
      position integer NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agents');
  }
}
