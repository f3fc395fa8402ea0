/**
 * The live feed of the Analytics tab: after usage events are written (or a reply is rated), the
 * `/admin` namespace gets `analytics:update`, so open dashboards reload without Refresh.
 *
 * At most one push per second across all servers while traffic flows, none while it does not:
 * the throttle is the shared rate limiter (Redis with REDIS_URL, so every server counts against
 * the same one-per-second budget). A server whose push is refused retries when the budget frees,
 * so the last events of a burst are always announced. The push goes out through the admin
 * namespace, which reaches admins connected to any server (Socket.IO Redis adapter).
 */
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { RATE_LIMITER, RateLimiter, RateLimitResult } from '../common/rate-limit/rate-limiter';
import type { AnalyticsUpdate } from '../shared/contracts/analytics';
import { UsageRecorderService } from './usage-recorder.service';
import { UsageRollupService } from './usage-rollup.service';

export const LIVE_PUSH_INTERVAL_MS = 1000;
const PUSH_KEY = 'analytics-update';

@Injectable()
export class AnalyticsLiveService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('AnalyticsLive');
  private pendingEvents = 0;
  private pendingVotes = 0;
  private timer: NodeJS.Timeout | undefined;
  private pushing = false;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly recorder: UsageRecorderService,
    private readonly adminEvents: AdminEventsService,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly rollup: UsageRollupService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.recorder.onWritten((events) => {
      this.pendingEvents += events.length;
      void this.rollup.noteWritten(events);
      this.schedule(0);
    });
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
  }

  /** A reply's vote changed (its agent's Helpful rate with it). */
  noteVote(): void {
    this.pendingVotes += 1;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.pushing || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.push();
    }, delayMs);
    this.timer.unref();
  }

  private async push(): Promise<void> {
    if (this.pendingEvents === 0 && this.pendingVotes === 0) return;
    this.pushing = true;
    let slot: RateLimitResult;
    try {
      slot = await this.limiter.hit(PUSH_KEY, { limit: 1, windowMs: LIVE_PUSH_INTERVAL_MS }, Date.now());
    } catch (error) {
      this.logger.warn(`Live analytics throttle unavailable: ${(error as Error).message}`);
      slot = { allowed: true, remaining: 0, retryAfterMs: 0 };
    } finally {
      this.pushing = false;
    }
    if (this.stopped) return;
    if (!slot.allowed) {
      this.schedule(Math.max(1, slot.retryAfterMs));
      return;
    }
    const update: AnalyticsUpdate = { at: new Date().toISOString(), events: this.pendingEvents, votes: this.pendingVotes };
    this.pendingEvents = 0;
    this.pendingVotes = 0;
    this.adminEvents.emit('analytics:update', update);
  }
}
