/**
 * Tells every server that the agent configuration or the global settings changed, so each drops
 * its cached copy before the next chat. With REDIS_URL: Redis pub/sub on `<REDIS_PREFIX>:config`
 * (the servers that work together share the prefix); without it there is only this server.
 *
 * A server also forgets its cache when its subscription (re)connects, since messages published
 * while it was cut off are lost; the registry's maximum cache age is the last safety net.
 */
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { closeRedis } from '../common/redis-close';
import { RedisOutageLog } from '../common/redis-outage-log';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ConfigChangedPayload } from '../shared/contracts/socket';

type Listener = (change: ConfigChangedPayload) => void;

/** How long the start waits for the subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 3000;

@Injectable()
export class ConfigChangeBus implements OnModuleDestroy {
  private readonly logger = new Logger('ConfigChangeBus');
  private readonly origin = randomUUID();
  private readonly listeners = new Set<Listener>();
  private readonly channel: string;
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.channel = `${config.redisPrefix}:config`;
  }

  /** Listens for changes made on other servers (and reconnects, after which anything may have changed). */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects to Redis when configured; resolves once subscribed (or at once without Redis). */
  async start(): Promise<void> {
    if (!this.config.redisUrl || this.subscriber) return;
    this.publisher = new Redis(this.config.redisUrl, { maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    this.subscriber = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    const outage = RedisOutageLog.for(this.config.redisUrl);
    outage.watch(this.publisher, 'config bus pub');
    outage.watch(this.subscriber, 'config bus sub');
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        const parsed = JSON.parse(message) as { origin?: string; change?: ConfigChangedPayload };
        if (parsed.origin !== this.origin) this.notify(parsed.change ?? {});
      } catch {
        this.notify({});
      }
    });
    let first = true;
    this.subscriber.on('ready', () => {
      if (first) {
        first = false;
        return;
      }
      this.notify({});
    });
    // Start without waiting for a Redis that is down: the subscription completes when it comes
    // back (and the reconnect itself drops the cache).
    const subscribed = this.subscriber.subscribe(this.channel).then(
      () => undefined,
      (error: Error) => this.logger.warn(`Could not subscribe to configuration changes: ${error.message}`),
    );
    await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  }

  /** Tells the other servers (this one has already reloaded). */
  async publish(change: ConfigChangedPayload): Promise<void> {
    if (!this.publisher) return;
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, change }));
    } catch (error) {
      // While Redis is known to be down this is counted, not logged (the outage log says it once).
      RedisOutageLog.for(this.config.redisUrl!).commandFailed('config bus publish', error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.subscriber, this.publisher].filter((c): c is Redis => !!c).map(closeRedis));
    this.subscriber = this.publisher = undefined;
  }

  private notify(change: ConfigChangedPayload): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn(`Configuration change listener failed: ${(error as Error).message}`);
      }
    }
  }
}
