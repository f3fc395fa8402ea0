import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RateLimiter } from './rate-limiter';
import { RedisRateLimiter } from './redis-rate-limiter';
import { describeWith, NEEDS } from '../../../test/support/requirements';

/** The same behaviour from both implementations (Redis runs when REDIS_URL is set; CI sets it). */
function contract(name: string, make: () => RateLimiter, suite: (name: string, fn: () => void) => void = describe) {
  suite(name, () => {
    let limiter: RateLimiter;
    const rule = { limit: 3, windowMs: 60_000 };
    let key: string;
    const t0 = 1_700_000_000_000;

    beforeEach(() => {
      limiter = make();
      key = `spec-${randomBytes(6).toString('hex')}`;
    });

    afterEach(async () => {
      await limiter.close();
    });

    it('allows `limit` hits in a window and refuses the next with the time until the oldest leaves', async () => {
      expect(await limiter.hit(key, rule, t0)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
      expect(await limiter.hit(key, rule, t0 + 10_000)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
      expect(await limiter.hit(key, rule, t0 + 20_000)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
      expect(await limiter.hit(key, rule, t0 + 30_000)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 30_000 });
    });

    it('slides: the window frees a slot when the oldest hit is older than windowMs', async () => {
      for (const at of [0, 10_000, 20_000]) await limiter.hit(key, rule, t0 + at);
      expect((await limiter.hit(key, rule, t0 + 59_999)).allowed).toBe(false);
      expect((await limiter.hit(key, rule, t0 + 60_000)).allowed).toBe(true);
      expect(await limiter.hit(key, rule, t0 + 60_001)).toMatchObject({ allowed: false, retryAfterMs: 9_999 });
    });

    it('does not count refused hits (hammering does not extend the wait)', async () => {
      const one = { limit: 1, windowMs: 30_000 };
      await limiter.hit(key, one, t0);
      for (let i = 1; i <= 5; i += 1) expect((await limiter.hit(key, one, t0 + i * 1000)).allowed).toBe(false);
      expect((await limiter.hit(key, one, t0 + 30_000)).allowed).toBe(true);
    });

    it('spacing: after `after` hits each further hit must wait base x 2^n after the newest (capped), and is never locked out', async () => {
      const spaced = { limit: 1_000, windowMs: 3_600_000, spacing: { after: 2, baseMs: 1000, maxMs: 4000 } };
      expect((await limiter.hit(key, spaced, t0)).allowed).toBe(true);
      expect((await limiter.hit(key, spaced, t0 + 1)).allowed).toBe(true);
      // 2 hits: the next waits 1 s after the newest (t0 + 1).
      expect(await limiter.hit(key, spaced, t0 + 500)).toMatchObject({ allowed: false, retryAfterMs: 501 });
      expect((await limiter.hit(key, spaced, t0 + 1001)).allowed).toBe(true);
      // 3 hits: 2 s; 4 hits: 4 s; 5 hits: still 4 s (the cap).
      expect(await limiter.hit(key, spaced, t0 + 2000)).toMatchObject({ allowed: false, retryAfterMs: 1001 });
      expect((await limiter.hit(key, spaced, t0 + 3001)).allowed).toBe(true);
      expect(await limiter.hit(key, spaced, t0 + 6000)).toMatchObject({ allowed: false, retryAfterMs: 1001 });
      expect((await limiter.hit(key, spaced, t0 + 7001)).allowed).toBe(true);
      expect((await limiter.hit(key, spaced, t0 + 11_000)).allowed).toBe(false);
      expect((await limiter.hit(key, spaced, t0 + 11_001)).allowed).toBe(true);
      // A success resets the count: no wait any more.
      await limiter.reset(key);
      expect((await limiter.hit(key, spaced, t0 + 11_002)).allowed).toBe(true);
    });

    it('leases: at most `limit` holders at once; renewing is not a second one; release and expiry free a slot', async () => {
      expect(await limiter.lease(key, 'a', 2, 10_000, t0)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
      expect((await limiter.lease(key, 'b', 2, 10_000, t0 + 1000)).allowed).toBe(true);
      expect(await limiter.lease(key, 'c', 2, 10_000, t0 + 2000)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 8000 });
      // 'a' renews its own lease (until t0 + 12 s).
      expect((await limiter.lease(key, 'a', 2, 10_000, t0 + 2000)).allowed).toBe(true);
      await limiter.release(key, 'b');
      expect((await limiter.lease(key, 'c', 2, 10_000, t0 + 3000)).allowed).toBe(true);
      // 'a' expires at t0 + 12 s without being released: a slot frees itself.
      expect((await limiter.lease(key, 'd', 2, 10_000, t0 + 11_000)).allowed).toBe(false);
      expect((await limiter.lease(key, 'd', 2, 10_000, t0 + 12_001)).allowed).toBe(true);
    });

    it('keeps keys apart, and reset forgets a key', async () => {
      const one = { limit: 1, windowMs: 30_000 };
      await limiter.hit(key, one, t0);
      expect((await limiter.hit(`${key}-other`, one, t0)).allowed).toBe(true);
      expect((await limiter.hit(key, one, t0)).allowed).toBe(false);
      await limiter.reset(key);
      expect((await limiter.hit(key, one, t0)).allowed).toBe(true);
    });
  });
}

contract('MemoryRateLimiter', () => new MemoryRateLimiter());

const redisUrl = process.env.REDIS_URL;
// The Redis contract is skipped only without a Redis to test against (a developer machine);
// .ci/run always sets REDIS_URL, so CI runs it.
const describeRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);
contract('RedisRateLimiter (needs REDIS_URL)', () => new RedisRateLimiter(redisUrl ?? 'redis://unset', `spec${randomBytes(3).toString('hex')}`), describeRedis);

describe('RedisRateLimiter without a reachable Redis', () => {
  it('falls back to counting in memory instead of failing or letting everything through', async () => {
    const limiter = new RedisRateLimiter('redis://127.0.0.1:1', 'spec');
    try {
      const rule = { limit: 2, windowMs: 60_000 };
      expect((await limiter.hit('k', rule, 1000)).allowed).toBe(true);
      expect((await limiter.hit('k', rule, 1001)).allowed).toBe(true);
      expect(await limiter.hit('k', rule, 1002)).toMatchObject({ allowed: false, retryAfterMs: 59_998 });
    } finally {
      await limiter.close();
    }
  });
});

if (redisUrl) {
  describe('RedisRateLimiter in Redis', () => {
    it('keeps the counts in Redis under `<prefix>:rl:<key>`', async () => {
      const prefix = `spec${randomBytes(3).toString('hex')}`;
      const limiter = new RedisRateLimiter(redisUrl, prefix);
      const raw = new Redis(redisUrl);
      try {
        await limiter.hit('k', { limit: 5, windowMs: 60_000 }, 1000);
        await limiter.hit('k', { limit: 5, windowMs: 60_000 }, 2000);
        expect(await raw.zcard(`${prefix}:rl:k`)).toBe(2);
      } finally {
        await limiter.close();
        raw.disconnect();
      }
    });
  });

  describe('RedisRateLimiter shared by two servers', () => {
    it('counts hits of both against one limit, under REDIS_PREFIX', async () => {
      const prefix = `spec${randomBytes(3).toString('hex')}`;
      const a = new RedisRateLimiter(redisUrl, prefix);
      const b = new RedisRateLimiter(redisUrl, prefix);
      try {
        const rule = { limit: 2, windowMs: 60_000 };
        expect((await a.hit('shared', rule, 1000)).allowed).toBe(true);
        expect((await b.hit('shared', rule, 1001)).allowed).toBe(true);
        expect((await a.hit('shared', rule, 1002)).allowed).toBe(false);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
