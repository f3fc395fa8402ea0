import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Embeddable chat widgets: their settings, allowed origins (JSON list) and the identity secret
 * (encrypted with the server key). Usage events name the widget a chat came through
 * (`widget_id`, null for the chat page and machine channels), so Analytics counts requests per widget.
 */
export class WidgetsPostgres1732194800000 implements MigrationInterface {
  name = 'WidgetsPostgres1732194800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE widgets (
      id varchar(36) PRIMARY KEY NOT NULL,
      name varchar(100) NOT NULL,
      allowed_origins text NOT NULL,
      verticals text NOT NULL,
      default_vertical varchar(40) NOT NULL,
      greeting text NOT NULL,
      color varchar(7) NOT NULL,
      text_color varchar(7) NOT NULL,
      position varchar(20) NOT NULL,
      default_language varchar(10) NOT NULL,
      launcher_label varchar(40) NOT NULL,
      require_identity smallint NOT NULL DEFAULT 0,
      messages_per_minute integer,
      secret_cipher text NOT NULL,
      secret_rotated_at bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    )`);
    await q.query('ALTER TABLE usage_events ADD COLUMN widget_id varchar(36)');
    await q.query('CREATE INDEX idx_usage_events_widget ON usage_events (widget_id, created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX idx_usage_events_widget');
    await q.query('ALTER TABLE usage_events DROP COLUMN widget_id');
    await q.query('DROP TABLE widgets');
  }
}
