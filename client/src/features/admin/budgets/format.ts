/** US dollars for budgets: cents for large sums, up to 4 significant decimals for small ones. */
export function usd(value: number): string {
  const digits = value !== 0 && Math.abs(value) < 1 ? 4 : 2;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}

/** Spent as a whole percent of the limit (a zero limit is 100% reached). */
export function percentOf(spent: number, limit: number): number {
  if (limit <= 0) return 100;
  return Math.round((spent / limit) * 100);
}
