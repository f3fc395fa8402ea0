/** US dollars: the console's one money format. */
export { formatUsd as usd } from '../../../lib/format';

/** Spent as a whole percent of the limit (a zero limit is 100% reached). */
export function percentOf(spent: number, limit: number): number {
  if (limit <= 0) return 100;
  return Math.round((spent / limit) * 100);
}
