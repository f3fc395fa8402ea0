import { RateLimiter, RateLimitResult, RateLimitRule, spacingMs } from './rate-limiter';

/** Counters of one process: a sorted list of hit times per key, pruned on every hit. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  private readonly hits = new Map<string, number[]>();
  /** Lease holders per key, with their expiry. */
  private readonly leases = new Map<string, Map<string, number>>();
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

  async lease(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<RateLimitResult> {
    let holders = this.leases.get(key);
    if (!holders) this.leases.set(key, (holders = new Map()));
    let oldest = Infinity;
    for (const [m, expires] of holders) {
      if (expires <= now) holders.delete(m);
      else if (m !== member) oldest = Math.min(oldest, expires);
    }
    if (!holders.has(member) && holders.size >= limit) return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, oldest - now) };
    holders.set(member, now + ttlMs);
    return { allowed: true, remaining: Math.max(0, limit - holders.size), retryAfterMs: 0 };
  }

  async release(key: string, member: string): Promise<void> {
    const holders = this.leases.get(key);
    if (!holders) return;
    holders.delete(member);
    if (holders.size === 0) this.leases.delete(key);
  }

  async close(): Promise<void> {
    this.hits.clear();
    this.leases.clear();
  }

  /** Drops keys whose newest hit is older than a day (no rule here has a longer window). */
  private sweep(now: number): void {
    this.sinceSweep = 0;
    for (const [key, times] of this.hits) if (times.length === 0 || times[times.length - 1] < now - 86_400_000) this.hits.delete(key);
  }
}
