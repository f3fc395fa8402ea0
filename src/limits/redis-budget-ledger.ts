import Redis from 'ioredis';
import { closeRedis } from '../common/redis-close';
import { RedisOutageLog } from '../common/redis-outage-log';
import { BudgetCharge, BudgetLedger, MemoryBudgetLedger, ReserveResult, SpendFigures, SpendLoader } from './budget-ledger';

/**
 * The ledger in Redis, shared by every server (keys under REDIS_PREFIX):
 * - `<p>:budget:<month>:spent`  hash scope -> US dollars spent (field `_init` once loaded);
 * - `<p>:budget:<month>:holds`  hash holdId -> "amount|scope|scope|...";
 * - `<p>:budget:<month>:expiry` sorted set holdId by expiry.
 * Reserving is one Lua script (check every capped scope, then hold), so two servers can never
 * both take the last dollars of a cap. Commands are never queued while Redis is away: the ledger
 * then falls back to this server's memory (counted from the database), limited per server.
 */
const RESERVE = `
local spentKey, holdsKey, expiryKey = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local holdId = ARGV[2]
local amount = tonumber(ARGV[3])
local expiresAt = tonumber(ARGV[4])
local n = tonumber(ARGV[5])
if redis.call('HEXISTS', spentKey, '_init') == 0 then return {-1} end
local dead = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', now)
for _, id in ipairs(dead) do redis.call('HDEL', holdsKey, id) end
if #dead > 0 then redis.call('ZREMRANGEBYSCORE', expiryKey, '-inf', now) end
local held = {}
local capped = false
for i = 1, n do
  if ARGV[5 + i * 2] ~= '' then capped = true end
end
if capped then
  for _, v in ipairs(redis.call('HVALS', holdsKey)) do
    local first = true
    local value = 0
    for part in string.gmatch(v, '[^|]+') do
      if first then value = tonumber(part); first = false
      else held[part] = (held[part] or 0) + value end
    end
  end
  for i = 1, n do
    local scope = ARGV[4 + i * 2]
    local cap = ARGV[5 + i * 2]
    if cap ~= '' then
      local spent = tonumber(redis.call('HGET', spentKey, scope) or '0')
      local holding = held[scope] or 0
      if spent + holding + amount > tonumber(cap) then return {0, i, tostring(spent), tostring(holding)} end
    end
  end
end
local scopes = {}
for i = 1, n do scopes[i] = ARGV[4 + i * 2] end
redis.call('HSET', holdsKey, holdId, tostring(amount) .. '|' .. table.concat(scopes, '|'))
redis.call('ZADD', expiryKey, expiresAt, holdId)
redis.call('PEXPIRE', holdsKey, 86400000)
redis.call('PEXPIRE', expiryKey, 86400000)
return {1}
`;

const SETTLE = `
local spentKey, holdsKey, expiryKey = KEYS[1], KEYS[2], KEYS[3]
local holdId = ARGV[1]
local cost = ARGV[2]
redis.call('HDEL', holdsKey, holdId)
redis.call('ZREM', expiryKey, holdId)
if redis.call('HEXISTS', spentKey, '_init') == 0 then return {} end
local out = {}
for i = 3, #ARGV do
  out[#out + 1] = redis.call('HINCRBYFLOAT', spentKey, ARGV[i], cost)
end
return out
`;

/** Loads the month once: the first server to run it wins; the others' loads are dropped. */
const INIT = `
local spentKey = KEYS[1]
if redis.call('HEXISTS', spentKey, '_init') == 1 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HINCRBYFLOAT', spentKey, ARGV[i], ARGV[i + 1]) end
redis.call('HSET', spentKey, '_init', '1')
redis.call('PEXPIRE', spentKey, 3456000000)
return 1
`;

const TOKENS = `
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if tonumber(ARGV[1]) > 0 then redis.call('PEXPIRE', KEYS[1], 172800000) end
return v
`;

type LedgerRedis = Redis & {
  budgetReserve(spent: string, holds: string, expiry: string, ...args: (string | number)[]): Promise<(number | string)[]>;
  budgetSettle(spent: string, holds: string, expiry: string, ...args: (string | number)[]): Promise<string[]>;
  budgetInit(spent: string, ...args: (string | number)[]): Promise<number>;
  visitorTokens(key: string, add: number): Promise<number>;
};

export class RedisBudgetLedger implements BudgetLedger {
  readonly kind = 'redis' as const;
  private readonly redis: LedgerRedis;
  private readonly fallback: MemoryBudgetLedger;
  private readonly outage: RedisOutageLog;
  private readonly ready: Promise<void>;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly load: SpendLoader,
  ) {
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    redis.defineCommand('budgetReserve', { numberOfKeys: 3, lua: RESERVE });
    redis.defineCommand('budgetSettle', { numberOfKeys: 3, lua: SETTLE });
    redis.defineCommand('budgetInit', { numberOfKeys: 1, lua: INIT });
    redis.defineCommand('visitorTokens', { numberOfKeys: 1, lua: TOKENS });
    this.redis = redis as LedgerRedis;
    this.outage = RedisOutageLog.for(redisUrl);
    this.outage.watch(redis, 'budget ledger');
    this.fallback = new MemoryBudgetLedger(load);
    this.ready = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async reserve(month: string, holdId: string, charges: BudgetCharge[], amountUsd: number, expiresAt: number, now: number): Promise<ReserveResult> {
    return this.orFallback(
      async () => {
        const args = [now, holdId, amountUsd, expiresAt, charges.length, ...charges.flatMap((c) => [c.scope, c.cap === null ? '' : c.cap])];
        let result = await this.redis.budgetReserve(...this.keys(month), ...args);
        if (Number(result[0]) === -1) {
          await this.initMonth(month);
          result = await this.redis.budgetReserve(...this.keys(month), ...args);
        }
        if (Number(result[0]) === 1) return { ok: true } as const;
        const charge = charges[Number(result[1]) - 1];
        return { ok: false, scope: charge.scope, spent: Number(result[2]), held: Number(result[3]) } as const;
      },
      () => this.fallback.reserve(month, holdId, charges, amountUsd, expiresAt, now),
    );
  }

  async settle(month: string, holdId: string, scopes: string[], costUsd: number): Promise<Record<string, number>> {
    return this.orFallback(
      async () => {
        const totals = await this.redis.budgetSettle(...this.keys(month), holdId, costUsd, ...scopes);
        return Object.fromEntries(totals.map((v, i) => [scopes[i], Number(v)]));
      },
      () => this.fallback.settle(month, holdId, scopes, costUsd),
    );
  }

  async figures(month: string, now: number): Promise<SpendFigures> {
    return this.orFallback(
      async () => {
        const [spentKey, holdsKey, expiryKey] = this.keys(month);
        if (!(await this.redis.hexists(spentKey, '_init'))) await this.initMonth(month);
        const [spentRaw, holdsRaw, live] = await Promise.all([this.redis.hgetall(spentKey), this.redis.hgetall(holdsKey), this.redis.zrangebyscore(expiryKey, now, '+inf')]);
        const spent: Record<string, number> = {};
        for (const [scope, value] of Object.entries(spentRaw)) if (scope !== '_init') spent[scope] = Number(value);
        const alive = new Set(live);
        const held: Record<string, number> = {};
        for (const [id, value] of Object.entries(holdsRaw)) {
          if (!alive.has(id)) continue;
          const [amount, ...scopes] = value.split('|');
          for (const scope of scopes) held[scope] = (held[scope] ?? 0) + Number(amount);
        }
        return { spent, held };
      },
      () => this.fallback.figures(month, now),
    );
  }

  async visitorTokens(visitorKey: string, day: string, add: number): Promise<number> {
    return this.orFallback(
      () => this.redis.visitorTokens(`${this.prefix}:budget:tokens:${day}:${visitorKey}`, Math.round(add)),
      () => this.fallback.visitorTokens(visitorKey, day, add),
    );
  }

  close(): Promise<void> {
    return closeRedis(this.redis);
  }

  private async initMonth(month: string): Promise<void> {
    const spent = await this.load(month);
    await this.redis.budgetInit(this.keys(month)[0], ...Object.entries(spent).flatMap(([scope, usd]) => [scope, usd]));
  }

  private keys(month: string): [string, string, string] {
    const base = `${this.prefix}:budget:${month}`;
    return [`${base}:spent`, `${base}:holds`, `${base}:expiry`];
  }

  private async orFallback<T>(work: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    try {
      await this.ready;
      return await work();
    } catch (error) {
      this.outage.commandFailed('budget ledger (counting in memory on this server)', error);
      return fallback();
    }
  }
}
