import type { DataSource } from 'typeorm';
import { dialectOf } from '../database/data-source';
import { monthBounds } from '../shared/contracts/limits';

/** The budget scopes one reply is charged to. */
export function scopesOf(agentId: string, vertical: string): string[] {
  return ['global', `vertical:${vertical}`, `agent:${agentId}`];
}

/** A month's spend per scope from the stored usage events: where the budget ledger starts a month. */
export async function storedSpend(dataSource: DataSource, month: string): Promise<Record<string, number>> {
  const { start, end } = monthBounds(month);
  const pg = dialectOf(dataSource) === 'postgres';
  const rows: { vertical: string; agent_id: string; usd: string | number | null }[] = await dataSource.query(
    `SELECT vertical, agent_id, SUM(cost_usd) AS usd FROM usage_events WHERE created_at >= ${pg ? '$1' : '?'} AND created_at < ${pg ? '$2' : '?'} GROUP BY vertical, agent_id`,
    [start, end],
  );
  const spend: Record<string, number> = {};
  for (const row of rows) {
    const usd = Number(row.usd ?? 0);
    if (!usd) continue;
    for (const scope of scopesOf(row.agent_id, row.vertical)) spend[scope] = (spend[scope] ?? 0) + usd;
  }
  return spend;
}
