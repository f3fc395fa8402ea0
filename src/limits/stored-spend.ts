import type { AnalyticsService } from '../analytics/analytics.service';
import { monthBounds } from '../shared/contracts/limits';

/** The budget scopes one reply is charged to. */
export function scopesOf(agentId: string, vertical: string): string[] {
  return ['global', `vertical:${vertical}`, `agent:${agentId}`];
}

/** A month's spend per scope from the stored usage events (through analytics): where the budget ledger starts a month. */
export async function storedSpend(analytics: Pick<AnalyticsService, 'spendByAgentAndVertical'>, month: string): Promise<Record<string, number>> {
  const { start, end } = monthBounds(month);
  const spend: Record<string, number> = {};
  for (const row of await analytics.spendByAgentAndVertical(start, end)) {
    if (!row.usd) continue;
    for (const scope of scopesOf(row.agentId, row.vertical)) spend[scope] = (spend[scope] ?? 0) + row.usd;
  }
  return spend;
}
