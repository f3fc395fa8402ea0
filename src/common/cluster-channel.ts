/**
 * A message to every other server: Redis pub/sub on `<REDIS_PREFIX>:<name>` (the servers that work
 * together share the prefix); without REDIS_URL there is only this server and publishing does
 * nothing. A server's own messages are not handed back to it.
 *
 * Messages published while a server was cut off from Redis are lost to it, so `onResubscribed`
 * tells it when its subscription comes back: whatever it caches may be stale by then.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { closeRedis } from './redis-close';
import { RedisOutageLog } from './redis-outage-log';

/** How long a start waits for the subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 3000;

export interface ClusterChannelHandlers<T> {
  onMessage(message: T): void;
  onResubscribed(): void;
}

export class ClusterChannel<T> {
  private readonly logger: Logger;
  private readonly origin = randomUUID();
  private readonly channel: string;
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;

  constructor(
    private readonly redisUrl: string | undefined,
    redisPrefix: string,
    private readonly name: string,
    private readonly handlers: ClusterChannelHandlers<T>,
  ) {
    this.channel = `${redisPrefix}:${name}`;
    this.logger = new Logger(`ClusterChannel ${name}`);
  }

  /** Subscribes (with REDIS_URL); resolves once subscribed, or after a few seconds while Redis is down. */
  async start(): Promise<void> {
    if (!this.redisUrl || this.subscriber) return;
    this.publisher = new Redis(this.redisUrl, { maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    this.subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    const outage = RedisOutageLog.for(this.redisUrl);
    outage.watch(this.publisher, `${this.name} pub`);
    outage.watch(this.subscriber, `${this.name} sub`);
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      let parsed: { origin?: string; message?: T };
      try {
        parsed = JSON.parse(raw) as { origin?: string; message?: T };
      } catch {
        this.handlers.onResubscribed();
        return;
      }
      if (parsed.origin !== this.origin && parsed.message !== undefined) this.handlers.onMessage(parsed.message);
    });
    let first = true;
    this.subscriber.on('ready', () => {
      if (first) first = false;
      else this.handlers.onResubscribed();
    });
    const subscribed = this.subscriber.subscribe(this.channel).then(
      () => undefined,
      (error: Error) => this.logger.warn(`Could not subscribe: ${error.message}`),
    );
    await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  }

  async publish(message: T): Promise<void> {
    if (!this.publisher) return;
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, message }));
    } catch (error) {
      RedisOutageLog.for(this.redisUrl!).commandFailed(`${this.name} publish`, error);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.subscriber, this.publisher].filter((c): c is Redis => !!c).map(closeRedis));
    this.subscriber = this.publisher = undefined;
  }
}
