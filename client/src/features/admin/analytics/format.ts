import { verticalName } from '../../../lib/vertical-names';

/** Number formats of the Analytics tab. */

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(n: number): string {
  return integer.format(n);
}

/** Dollars, in the console's one money format (cents from a dollar up, 4 decimals below). */
export { formatUsd as formatDollars } from '../../../lib/format';

/** Rounded milliseconds, or '-' when there is no figure. */
export function formatMs(ms: number | null | undefined): string {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? '-' : `${Math.round(ms)}ms`;
}


export type SuccessLevel = 'good' | 'warning' | 'bad';

/** Success-rate badge colour: error rate below 2% green, below 5% yellow, else red. */
export function successLevel(errorRate: number): SuccessLevel {
  if (errorRate < 0.02) return 'good';
  if (errorRate < 0.05) return 'warning';
  return 'bad';
}

/** A vertical as shown: its name, as in the chat page ('customer-service' -> 'Customer Support'). */
export function verticalLabel(vertical: string): string {
  return verticalName(vertical);
}

/** "13:00" for an hour of today's series, "Nov 21, 13:00" when the window spans days. */
export function formatHour(iso: string, withDate: boolean): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit', hour12: false });
  if (!withDate) return time;
  return `${date.toLocaleDateString('en-US', { month: 'short', day: 'numeric' })}, ${time}`;
}

export function formatTimestamp(iso: string): string {
  return new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}
