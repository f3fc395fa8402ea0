/**
 * Rate-limit counters behind one interface: a sliding log per key ("at most `limit` hits in any
 * `windowMs`"), optionally with a growing delay between hits once the window holds `spacing.after`
 * of them (slows rather than locks). In memory by default; in Redis with REDIS_URL, so every
 * server counts together. The caller passes `now`, so an injected clock drives both
 * implementations. Leases (`lease`/`release`) count things held at once rather than over time.
 */
export interface RateLimitRule {
  /** Most hits allowed in any window. */
  limit: number;
  windowMs: number;
  /**
   * Once the window holds `after` hits or more, the next one must come at least
   * min(maxMs, baseMs x 2^(hits - after)) after the newest: 1 s, 2 s, 4 s, ... up to maxMs.
   */
  spacing?: RateLimitSpacing;
}

export interface RateLimitSpacing {
  after: number;
  baseMs: number;
  maxMs: number;
}

/** The wait a spaced rule asks for after `hits` hits in the window (0 below `after`). */
export function spacingMs(spacing: RateLimitSpacing | undefined, hits: number): number {
  if (!spacing || hits < spacing.after) return 0;
  return Math.min(spacing.maxMs, spacing.baseMs * 2 ** Math.min(40, hits - spacing.after));
}

export interface RateLimitResult {
  allowed: boolean;
  /** Hits left in the window after this one (0 when refused). */
  remaining: number;
  /** When refused: ms until a hit would be allowed again. 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts a hit on `key` under `rule` unless the limit is reached (a refused hit is not counted). */
  hit(key: string, rule: RateLimitRule, now: number): Promise<RateLimitResult>;
  /** Forgets every hit on `key`. */
  reset(key: string): Promise<void>;
  /**
   * Takes (or renews) a lease `member` on `key` for `ttlMs`: at most `limit` unexpired leases per
   * key (concurrent replies, open sockets). Refused when `limit` others hold one; `retryAfterMs`
   * is then when the oldest would expire. A holder that dies without releasing loses it at expiry.
   */
  lease(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<RateLimitResult>;
  /** Gives a lease back. */
  release(key: string, member: string): Promise<void>;
  close(): Promise<void>;
  readonly kind: 'memory' | 'redis';
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');
