import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AgentRegistryService } from '../agents/agent-registry.service';
import type { UsageChannel } from '../analytics/usage-event.entity';
import { AppError } from '../common/app-error';
import { RATE_LIMITER, RateLimiter, RateLimitResult } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { LimitRule } from '../shared/contracts/limits';
import { LimitedCounter } from '../analytics/limited-counter.service';
import { LimitsClock } from './limits-clock';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** An open socket's lease; each server renews its sockets' leases well within it. */
export const SOCKET_LEASE_MS = 5 * MINUTE;

/** Who sends a chat message, as far as the limits are concerned. */
export interface ChatCaller {
  channel: UsageChannel;
  /** The client IP (TRUST_PROXY decides whose X-Forwarded-For counts). */
  ip: string | undefined;
  /** The visitor cookie's key. */
  visitorKey: string;
  /** The socket, for chat:send. */
  socketId?: string;
  /** /interact: the id of the API key the request was made with. */
  apiKeyId?: string;
}

/** A concurrent-reply slot: give it back when the reply ends. */
export interface ReplySlot {
  release(): void;
}

const FREE_SLOT: ReplySlot = { release: () => undefined };

type WindowRule = 'ip' | 'visitor' | 'socket' | 'key';

/** How a refusal reads (the chat page shows its own text with a countdown). */
const REFUSAL: Record<Exclude<LimitRule, 'budget' | 'visitor_tokens'>, string> = {
  ip: 'Too many messages from your network. Try again in',
  visitor: 'Too many messages. Try again in',
  socket: 'Too many messages. Try again in',
  key: 'Too many messages with this API key. Try again in',
  concurrent: 'Wait for a reply to finish before asking again. Try again in',
  sockets: 'Too many open chat connections from your network. Try again in',
};

/**
 * The chat rate limits, on the app's one rate limiter (Redis with REDIS_URL, so every
 * server counts together; memory otherwise): messages per minute and per hour per client IP, per
 * visitor and per API key, per minute per socket; replies streaming at once per visitor; sockets
 * open per IP. The figures are global settings (Configuration tab), read on every message, so a
 * change applies at once on every server. A refusal is an AppError `rate_limited` carrying
 * `retryAfterSeconds` (429 + Retry-After over HTTP, chat:error with retryAfter on the socket), and
 * is counted for Analytics.
 */
@Injectable()
export class ChatLimitsService {
  constructor(
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly agents: AgentRegistryService,
    private readonly counter: LimitedCounter,
    private readonly clock: LimitsClock,
  ) {}

  /**
   * Counts one message against every limit that applies to its caller and takes a concurrent
   * reply slot for its visitor; throws `rate_limited` when one refuses. The caller releases the
   * slot when the reply ends.
   */
  async admitMessage(caller: ChatCaller): Promise<ReplySlot> {
    const limits = this.agents.globalSettings().chatLimits;
    const now = this.clock.now();
    const checks: [WindowRule, Promise<RateLimitResult>][] = [];
    const window = (rule: WindowRule, key: string, perMinute: number, perHour?: number) => {
      checks.push([rule, this.limiter.hit(`chat:${rule}:m:${key}`, { limit: perMinute, windowMs: MINUTE }, now)]);
      if (perHour !== undefined) checks.push([rule, this.limiter.hit(`chat:${rule}:h:${key}`, { limit: perHour, windowMs: HOUR }, now)]);
    };
    if (caller.socketId) window('socket', caller.socketId, limits.socketPerMinute);
    window('visitor', caller.visitorKey, limits.visitorPerMinute, limits.visitorPerHour);
    if (caller.ip) window('ip', caller.ip, limits.ipPerMinute, limits.ipPerHour);
    if (caller.apiKeyId) window('key', caller.apiKeyId, limits.keyPerMinute, limits.keyPerHour);
    // One round trip for all of them, the concurrent-reply lease included (the Redis commands go
    // out together); a lease taken for a message a window refuses is given back.
    const slotKey = `chat:concurrent:${caller.visitorKey}`;
    const member = randomUUID();
    const leasing = this.limiter.lease(slotKey, member, limits.concurrentPerVisitor, this.config.chatTimeoutMs + MINUTE, now);
    const [results, slot] = await Promise.all([Promise.all(checks.map(([, result]) => result)), leasing]);
    const refused = results.map((r, i) => ({ rule: checks[i][0], result: r })).filter((r) => !r.result.allowed);
    if (refused.length > 0) {
      if (slot.allowed) void this.limiter.release(slotKey, member).catch(() => undefined);
      const longest = refused.reduce((a, b) => (b.result.retryAfterMs > a.result.retryAfterMs ? b : a));
      throw this.refuse(longest.rule, longest.result.retryAfterMs, caller.channel, now);
    }
    // A running reply ends within seconds usually; the lease's expiry is only the crash case.
    if (!slot.allowed) throw this.refuse('concurrent', Math.min(slot.retryAfterMs, 2000), caller.channel, now);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        void this.limiter.release(slotKey, member);
      },
    };
  }

  /** A chat socket of `ip` opens: refused (rate_limited) when the IP holds socketsPerIp already. */
  async admitSocket(ip: string | undefined, socketId: string): Promise<void> {
    if (!ip) return;
    const limits = this.agents.globalSettings().chatLimits;
    const now = this.clock.now();
    const result = await this.limiter.lease(`chat:sockets:${ip}`, socketId, limits.socketsPerIp, SOCKET_LEASE_MS, now);
    if (!result.allowed) throw this.refuse('sockets', Math.min(result.retryAfterMs, 30_000), 'socket', now);
  }

  /** Keeps an open socket's lease alive (each server renews its own sockets). */
  async renewSocket(ip: string | undefined, socketId: string): Promise<void> {
    if (!ip) return;
    // A renewal never refuses a socket that is already open (the limit may have been lowered since).
    await this.limiter.lease(`chat:sockets:${ip}`, socketId, Number.MAX_SAFE_INTEGER, SOCKET_LEASE_MS, this.clock.now());
  }

  async releaseSocket(ip: string | undefined, socketId: string): Promise<void> {
    if (ip) await this.limiter.release(`chat:sockets:${ip}`, socketId);
  }

  /** A request refused by something else (a budget): counted for Analytics. */
  countRefusal(rule: LimitRule, channel: UsageChannel): void {
    this.counter.count(rule, channel, this.clock.now());
  }

  private refuse(rule: Exclude<LimitRule, 'budget' | 'visitor_tokens'>, retryAfterMs: number, channel: UsageChannel, now: number): AppError {
    this.counter.count(rule, channel, now);
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return new AppError('rate_limited', `${REFUSAL[rule]} ${retryAfterSeconds} s.`, { retryAfterSeconds, rule });
  }

  /** The no-op slot (for callers the limits do not apply to). */
  static readonly freeSlot = FREE_SLOT;
}
