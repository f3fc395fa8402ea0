/**
 * Rate-limit counters behind one interface: a sliding log per key ("at most `limit` hits in any
 * `windowMs`"). In memory by default; in Redis with REDIS_URL, so every server counts together.
 * The caller passes `now`, so an injected clock drives both implementations.
 */
export interface RateLimitRule {
  /** Most hits allowed in any window. */
  limit: number;
  windowMs: number;
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
  close(): Promise<void>;
  readonly kind: 'memory' | 'redis';
}

export const RATE_LIMITER = Symbol('RATE_LIMITER');
