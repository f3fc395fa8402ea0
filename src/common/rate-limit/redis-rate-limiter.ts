import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { closeRedis } from '../redis-close';
import { RedisOutageLog } from '../redis-outage-log';
import { MemoryRateLimiter } from './memory-rate-limiter';
import { RateLimiter, RateLimitResult, RateLimitRule } from './rate-limiter';

/**
 * Sliding log in a Redis sorted set per key (`<prefix>:rl:<key>`), updated atomically by one Lua
 * script, so all servers share the counts. Commands are never buffered while Redis is away
 * (`enableOfflineQueue: false`): a hit then falls back to this server's memory counters, so
 * sign-in keeps working (limited per server) during a Redis outage instead of failing or
 * letting everything through.
 */
const SLIDING_LOG = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local after = tonumber(ARGV[5])
local base = tonumber(ARGV[6])
local max = tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local retry = tonumber(oldest[2]) + window - now
  if retry < 1 then retry = 1 end
  return {0, 0, retry}
end
if after >= 0 and count >= after and count > 0 then
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  local wait = base * 2 ^ math.min(40, count - after)
  if wait > max then wait = max end
  local retry = tonumber(newest[2]) + wait - now
  if retry > 0 then
    if retry < 1 then retry = 1 end
    return {0, limit - count, math.ceil(retry)}
  end
end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, window)
return {1, limit - count - 1, 0}
`;

/** Leases: a sorted set of holders scored by their expiry (`<prefix>:rl:<key>`). */
const LEASE = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local member = ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local held = redis.call('ZSCORE', key, member)
local count = redis.call('ZCARD', key)
if not held and count >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local retry = tonumber(oldest[2]) - now
  if retry < 1 then retry = 1 end
  return {0, 0, retry}
end
redis.call('ZADD', key, now + ttl, member)
if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
if not held then count = count + 1 end
return {1, limit - count, 0}
`;

const FIRST_CONNECT_WAIT_MS = 1000;

type SlidingLogRedis = Redis & {
  leaseSlot(key: string, now: number, ttlMs: number, limit: number, member: string): Promise<[number, number, number]>;
  slidingLog(key: string, now: number, windowMs: number, limit: number, member: string, after: number, baseMs: number, maxMs: number): Promise<[number, number, number]>;
};

export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis' as const;
  private readonly redis: SlidingLogRedis;
  private readonly fallback = new MemoryRateLimiter();
  private readonly outage: RedisOutageLog;
  /** The first hits wait (together, once) for the initial connection; later ones never wait. */
  private initialConnection: Promise<void> | undefined;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
  ) {
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    redis.defineCommand('slidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
    redis.defineCommand('leaseSlot', { numberOfKeys: 1, lua: LEASE });
    this.outage = RedisOutageLog.for(redisUrl);
    this.outage.watch(redis, 'rate limiter');
    this.redis = redis as SlidingLogRedis;
  }

  async hit(key: string, rule: RateLimitRule, now: number): Promise<RateLimitResult> {
    try {
      // Right after start the connection is still being made: wait for it briefly (an outage later falls back at once).
      await (this.initialConnection ??= this.firstConnection().catch(() => undefined));
      const [allowed, remaining, retryAfterMs] = await this.redis.slidingLog(
        this.redisKey(key),
        now,
        rule.windowMs,
        rule.limit,
        `${now}-${randomBytes(6).toString('hex')}`,
        rule.spacing?.after ?? -1,
        rule.spacing?.baseMs ?? 0,
        rule.spacing?.maxMs ?? 0,
      );
      return { allowed: allowed === 1, remaining, retryAfterMs };
    } catch (error) {
      // Counted quietly while Redis is known to be down (the outage log says it falls back).
      this.outage.commandFailed('rate limiter (counting in memory on this server)', error);
      return this.fallback.hit(key, rule, now);
    }
  }

  async lease(key: string, member: string, limit: number, ttlMs: number, now: number): Promise<RateLimitResult> {
    try {
      await (this.initialConnection ??= this.firstConnection().catch(() => undefined));
      const [allowed, remaining, retryAfterMs] = await this.redis.leaseSlot(this.redisKey(key), now, ttlMs, limit, member);
      return { allowed: allowed === 1, remaining: Math.max(0, remaining), retryAfterMs };
    } catch (error) {
      this.outage.commandFailed('rate limiter (counting in memory on this server)', error);
      return this.fallback.lease(key, member, limit, ttlMs, now);
    }
  }

  async release(key: string, member: string): Promise<void> {
    await this.fallback.release(key, member);
    await this.redis.zrem(this.redisKey(key), member).catch(() => undefined);
  }

  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    await this.redis.del(this.redisKey(key)).catch(() => undefined);
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  private firstConnection(): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error(`not connected within ${FIRST_CONNECT_WAIT_MS} ms`));
      }, FIRST_CONNECT_WAIT_MS);
      this.redis.once('ready', onReady);
    });
  }

  private redisKey(key: string): string {
    return `${this.prefix}:rl:${key}`;
  }

}
