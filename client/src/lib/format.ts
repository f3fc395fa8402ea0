/** "850 ms" under a second, else "1.2 s" (processing time under a reply). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

const SIZE_UNITS = ['Bytes', 'KB', 'MB', 'GB'] as const;

/**
 * A file size for people: Bytes, KB, MB or GB (powers of 1024), rounded
 * to at most 2 decimals: 0 -> "0 Bytes", 1536 -> "1.5 KB", 10485760 -> "10 MB".
 */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  let unit = Math.max(0, Math.min(Math.floor(Math.log(bytes) / Math.log(1024)), SIZE_UNITS.length - 1));
  let value = Math.round((bytes / 1024 ** unit) * 100) / 100;
  // 1048575 bytes rounds to 1024 KB: say 1 MB instead.
  if (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    unit += 1;
    value = Math.round((bytes / 1024 ** unit) * 100) / 100;
  }
  return `${value} ${SIZE_UNITS[unit]}`;
}

/** A 0-1 fraction as a percent: 0.734 -> "73%"; with one decimal, 0.9655 -> "96.6%". */
export function formatPercent(fraction: number, decimals = 0): string {
  return `${(fraction * 100).toFixed(decimals)}%`;
}

/**
 * US dollars, the one money format of the console: cents for sums of a dollar or more (and for
 * zero, "$0.00"), up to 4 decimals below a dollar, where LLM costs live ("$0.0123", "$0.50").
 */
export function formatUsd(value: number): string {
  const digits = value !== 0 && Math.abs(value) < 1 ? 4 : 2;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: digits })}`;
}
