import type { TestApp } from './test-app';

/** Tables a request can write to (the hourly rollups are written by a timer, not by requests). */
const WRITABLE_TABLES = [
  'knowledge_items',
  'knowledge_attachments',
  'knowledge_chunks',
  'agents',
  'settings',
  'usage_events',
  'reply_feedback',
  'admin_users',
  'admin_sessions',
  'admin_sign_in_events',
  'one_time_codes',
  'mail_outbox',
  'team_invitations',
  'audit_entries',
  'admin_second_factors',
  'admin_recovery_codes',
  'api_keys',
];

/**
 * What a refused request must leave untouched: every row count, the stored settings, and each
 * agent's numbers. Compare two snapshots with toBe.
 */
export async function dbSnapshot(t: TestApp): Promise<string> {
  const counts = await Promise.all(WRITABLE_TABLES.map(async (table) => `${table}=${(await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n}`));
  const settings = await t.dataSource.query('SELECT key, value FROM settings ORDER BY key');
  const agents = await t.dataSource.query('SELECT agent_id, timeout_ms, temperature, max_tokens, updated_at FROM agents ORDER BY agent_id');
  return JSON.stringify({ counts, settings, agents });
}
