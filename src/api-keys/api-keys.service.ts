/**
 * API keys: issued in the console (shown once), checked on every machine-channel request, revoked
 * at once on every server.
 *
 * - A key reads `sak_<8 hex>_<43 base64url>` (256 random bits after the prefix). The prefix finds
 *   the row; the SHA-256 of the whole key is compared in constant time. The key is never stored.
 * - Each server caches the rows it looked up (by prefix, unknown prefixes too) for CACHE_TTL_MS.
 *   Revoking drops the row from every server's cache through the `api-keys` cluster channel
 *   (Redis pub/sub), so the next request anywhere reads the revoked row; a server that lost its
 *   subscription clears its whole cache when it comes back, and the TTL bounds anything else.
 * - Last use is noted in memory and written every LAST_USED_FLUSH_MS (one UPDATE per key used
 *   meanwhile, never one per request), so the console's "last used" is at most that late.
 */
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { AdminUser } from '../auth/admin-user.entity';
import { Clock } from '../common/clock';
import { AppError } from '../common/app-error';
import { ClusterChannel } from '../common/cluster-channel';
import { RATE_LIMITER, RateLimiter } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { queuedWrite } from '../database/write-queue';
import type { ApiKeyCreate, ApiKeyInfo, ApiKeyScope, IssuedApiKey } from '../shared/contracts/api-keys';
import { ApiKey } from './api-key.entity';
import { API_KEY_MESSAGES } from './api-keys.errors';

export const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;
export const LAST_USED_FLUSH_MS = 30_000;
const KEY_PATTERN = /^sak_([0-9a-f]{8})_[A-Za-z0-9_-]{43}$/;

/** Who called: the key, as the request handlers see it. */
export interface ApiKeyPrincipal {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function scopesOf(row: ApiKey): ApiKeyScope[] {
  return row.scopes.split(',').filter(Boolean) as ApiKeyScope[];
}

function displayPrefix(prefix: string): string {
  return `sak_${prefix}`;
}

@Injectable()
export class ApiKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ApiKeys');
  private readonly cache = new Map<string, { row: ApiKey | null; loadedAt: number }>();
  private readonly lastUsed = new Map<string, number>();
  private readonly channel: ClusterChannel<{ prefix: string }>;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = new ClusterChannel<{ prefix: string }>({
      redisUrl: config.redisUrl,
      redisPrefix: config.redisPrefix,
      name: 'api-keys',
      onMessage: (message) => (message?.prefix ? this.cache.delete(message.prefix) : this.cache.clear()),
      onReconnect: () => this.cache.clear(),
    });
  }

  async onModuleInit(): Promise<void> {
    await this.channel.start();
    this.flushTimer = setInterval(() => void this.flushLastUsed(), LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushLastUsed();
    await this.channel.close();
  }

  async issue(input: ApiKeyCreate & { expiresAt?: number }, createdBy: AdminUser): Promise<IssuedApiKey> {
    const now = this.clock.now();
    for (let attempt = 0; ; attempt++) {
      const prefix = randomBytes(4).toString('hex');
      const key = `${displayPrefix(prefix)}_${randomBytes(32).toString('base64url')}`;
      const row: ApiKey = {
        id: randomUUID(),
        name: input.name,
        prefix,
        keyHash: sha256(key).toString('hex'),
        scopes: [...input.scopes].join(','),
        expiresAt: input.expiresAt ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        createdBy: createdBy.id,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      };
      try {
        await queuedWrite(this.dataSource, () => this.keys.insert(row));
      } catch (error) {
        // Two keys with the same 32-bit prefix: draw another (the unique index says so).
        if (attempt < 3 && /unique|duplicate/i.test((error as Error).message)) continue;
        throw error;
      }
      // A server that cached this prefix as unknown (someone guessed it) must look again.
      this.forget(prefix);
      return { key, apiKey: this.info(row, createdBy, now) };
    }
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.keys
      .createQueryBuilder('k')
      .leftJoinAndMapOne('k.creator', AdminUser, 'u', 'u.id = k.created_by')
      .orderBy('k.created_at', 'DESC')
      .getMany();
    const now = this.clock.now();
    return (rows as Array<ApiKey & { creator?: AdminUser | null }>).map((row) => this.info(row, row.creator ?? null, now));
  }

  /** Revokes the key; every server refuses it from its next request. 404 when there is no such key. */
  async revoke(id: string): Promise<{ id: string; revokedAt: string }> {
    const row = await this.keys.findOneBy({ id });
    if (!row) throw new AppError('not_found', API_KEY_MESSAGES.notFound);
    if (row.revokedAt === null) {
      const now = this.clock.now();
      await queuedWrite(this.dataSource, () =>
        this.keys.createQueryBuilder().update().set({ revokedAt: now }).where('id = :id AND revoked_at IS NULL', { id }).execute(),
      );
      row.revokedAt = now;
    }
    this.forget(row.prefix);
    return { id: row.id, revokedAt: new Date(row.revokedAt).toISOString() };
  }

  /**
   * The caller of a machine channel, from the raw key of its request: 401 for an unknown,
   * malformed, revoked or expired key, 403 for a key without `scope`, 429 past the key's own rate
   * limit.
   */
  async authenticate(rawKey: string, scope: ApiKeyScope): Promise<ApiKeyPrincipal> {
    const prefix = KEY_PATTERN.exec(rawKey)?.[1];
    const row = prefix ? await this.lookup(prefix) : null;
    const expected = row ? Buffer.from(row.keyHash, 'hex') : undefined;
    const actual = sha256(rawKey);
    if (!row || !expected || expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      throw new AppError('unauthorized', API_KEY_MESSAGES.invalid);
    }
    const now = this.clock.now();
    if (row.revokedAt !== null) throw new AppError('unauthorized', API_KEY_MESSAGES.revoked);
    if (row.expiresAt !== null && row.expiresAt <= now) throw new AppError('unauthorized', API_KEY_MESSAGES.expired(new Date(row.expiresAt)));
    const scopes = scopesOf(row);
    if (!scopes.includes(scope)) throw new AppError('forbidden', API_KEY_MESSAGES.outOfScope(scope, scopes));
    if (row.rateLimitPerMinute !== null) {
      const result = await this.limiter.hit(`apikey:${row.id}`, { limit: row.rateLimitPerMinute, windowMs: 60_000 }, now);
      if (!result.allowed) {
        const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
        throw new AppError('rate_limited', API_KEY_MESSAGES.rateLimited(row.rateLimitPerMinute, retryAfterSeconds), { retryAfterSeconds });
      }
    }
    this.lastUsed.set(row.id, now);
    return { id: row.id, name: row.name, prefix: displayPrefix(row.prefix), scopes };
  }

  /** Writes the last-use times noted since the previous flush. */
  async flushLastUsed(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const pending = [...this.lastUsed];
    this.lastUsed.clear();
    for (const [id, at] of pending) {
      try {
        await queuedWrite(this.dataSource, () =>
          this.keys.createQueryBuilder().update().set({ lastUsedAt: at }).where('id = :id AND (last_used_at IS NULL OR last_used_at < :at)', { id, at }).execute(),
        );
      } catch (error) {
        this.logger.warn(`Could not note the last use of an API key: ${(error as Error).message}`);
      }
    }
  }

  private async lookup(prefix: string): Promise<ApiKey | null> {
    const now = this.clock.now();
    const cached = this.cache.get(prefix);
    if (cached && now - cached.loadedAt < CACHE_TTL_MS) return cached.row;
    const row = await this.keys.findOneBy({ prefix });
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(prefix, { row, loadedAt: now });
    return row;
  }

  private forget(prefix: string): void {
    this.cache.delete(prefix);
    void this.channel.publish({ prefix });
  }

  private info(row: ApiKey, creator: AdminUser | null, now: number): ApiKeyInfo {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    const lastUsedAt = Math.max(row.lastUsedAt ?? 0, this.lastUsed.get(row.id) ?? 0) || null;
    const status = row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active';
    return {
      id: row.id,
      name: row.name,
      prefix: displayPrefix(row.prefix),
      scopes: scopesOf(row),
      expiresAt: iso(row.expiresAt),
      rateLimitPerMinute: row.rateLimitPerMinute,
      createdAt: new Date(row.createdAt).toISOString(),
      createdBy: creator ? { name: creator.name, email: creator.email } : null,
      lastUsedAt: iso(lastUsedAt),
      revokedAt: iso(row.revokedAt),
      status,
    };
  }
}
