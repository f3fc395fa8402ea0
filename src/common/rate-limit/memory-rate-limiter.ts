import { RateLimiter, RateLimitResult, RateLimitRule, spacingMs } from './rate-limiter';

/** Inserts `t` into the ascending list (at the end, unless a controlled clock went back). */
function insertSorted(times: number[], t: number): void {
  if (times.length === 0 || times[times.length - 1] <= t) {
    times.push(t);
    return;
  }
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  times.splice(lo, 0, t);
}

/** Counters of one process: a sorted list of hit times per key, pruned on every hit. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory' as const;
  private readonly hits = new Map<string, number[]>();
  /** Lease holders per key, with their expiry. */
  private readonly leases = new Map<string, Map<string, number>>();
  private sinceSweep = 0;

  async hit(key: string, rule: RateLimitRule, now: number): Promise<RateLimitResult> {
    if (++this.sinceSweep >= 1000) this.sweep(now);
    let times = this.hits.get(key);
    if (!times) this.hits.set(key, (times = []));
    // Kept sorted: the hits that left the window are at the front (pruned in place: an IP's hour
    // window can hold thousands of hits, and copying them on every message showed in profiles).
    const cutoff = now - rule.windowMs;
    let expired = 0;
    while (expired < times.length && times[expired] <= cutoff) expired += 1;
    if (expired > 0) times.splice(0, expired);
    if (times.length >= rule.limit) {
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, times[0] + rule.windowMs - now) };
    }
    const wait = spacingMs(rule.spacing, times.length);
    const spaced = wait > 0 && times.length > 0 ? times[times.length - 1] + wait : 0;
    if (now < spaced) {
      return { allowed: false, remaining: rule.limit - times.length, retryAfterMs: Math.max(1, spaced - now) };
    }
    insertSorted(times, now);
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
