import { RateLimiter, RateLimitResult, RateLimitRule, spacingMs } from './rate-limiter';

/** Counters of one process: a sorted list of hit times per key, pruned on every hit. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  private readonly hits = new Map<string, number[]>();
  private sinceSweep = 0;

  async hit(key: string, rule: RateLimitRule, now: number): Promise<RateLimitResult> {
    if (++this.sinceSweep >= 1000) this.sweep(now);
    const times = (this.hits.get(key) ?? []).filter((t) => t > now - rule.windowMs);
    if (times.length >= rule.limit) {
      this.hits.set(key, times);
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, times[0] + rule.windowMs - now) };
    }
    const wait = spacingMs(rule.spacing, times.length);
    const spaced = wait > 0 && times.length > 0 ? times[times.length - 1] + wait : 0;
    if (now < spaced) {
      this.hits.set(key, times);
      return { allowed: false, remaining: rule.limit - times.length, retryAfterMs: Math.max(1, spaced - now) };
    }
    times.push(now);
    this.hits.set(key, times);
    return { allowed: true, remaining: rule.limit - times.length, retryAfterMs: 0 };
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
  }

  async close(): Promise<void> {
    this.hits.clear();
  }

  /** Drops keys whose newest hit is older than a day (no rule here has a longer window). */
  private sweep(now: number): void {
    this.sinceSweep = 0;
    for (const [key, times] of this.hits) if (times.length === 0 || times[times.length - 1] < now - 86_400_000) this.hits.delete(key);
  }
}
