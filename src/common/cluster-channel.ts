/**
 * A message channel between the servers that work together (and the admin command line): Redis
 * pub/sub on `<REDIS_PREFIX>:<name>` when REDIS_URL is set; without it there is only this process
 * and nothing is sent. A process does not hear its own messages (it acts on them before
 * publishing). Messages published while a subscriber was cut off are lost: `onReconnect` runs
 * when its subscription comes back, so the owner can catch up.
 */
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { closeRedis } from './redis-close';
import { RedisOutageLog } from './redis-outage-log';

/** How long a start waits for the subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 3000;

export interface ClusterChannelOptions<T> {
  redisUrl: string | undefined;
  redisPrefix: string;
  /** The channel's name after the prefix, e.g. `config`. */
  name: string;
  /** A message from another process (a malformed one is passed as undefined). */
  onMessage?: (message: T | undefined) => void;
  /** The subscription reconnected: anything may have been missed. */
  onReconnect?: () => void;
}

export class ClusterChannel<T> {
  private readonly logger: Logger;
  private readonly origin = randomUUID();
  private readonly channel: string;
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;

  constructor(private readonly options: ClusterChannelOptions<T>) {
    this.channel = `${options.redisPrefix}:${options.name}`;
    this.logger = new Logger(`Channel ${options.name}`);
  }

  get enabled(): boolean {
    return this.options.redisUrl !== undefined;
  }

  /**
   * Connects (when REDIS_URL is set). With `subscribe` (the default) it also listens, resolving once
   * subscribed or after a few seconds without Redis (the subscription completes when it comes back).
   */
  async start(subscribe = true): Promise<void> {
    const url = this.options.redisUrl;
    if (!url || this.publisher) return;
    const outage = RedisOutageLog.for(url);
    this.publisher = new Redis(url, { maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    outage.watch(this.publisher, `${this.options.name} pub`);
    if (!subscribe) return;
    this.subscriber = new Redis(url, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    outage.watch(this.subscriber, `${this.options.name} sub`);
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      let parsed: { origin?: string; message?: T } | undefined;
      try {
        parsed = JSON.parse(text) as { origin?: string; message?: T };
      } catch {
        parsed = undefined;
      }
      if (parsed?.origin === this.origin) return;
      try {
        this.options.onMessage?.(parsed?.message);
      } catch (error) {
        this.logger.warn(`Listener failed: ${(error as Error).message}`);
      }
    });
    let first = true;
    this.subscriber.on('ready', () => {
      if (first) {
        first = false;
        return;
      }
      this.options.onReconnect?.();
    });
    const subscribed = this.subscriber.subscribe(this.channel).then(
      () => undefined,
      (error: Error) => this.logger.warn(`Could not subscribe: ${error.message}`),
    );
    await Promise.race([subscribed, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref())]);
  }

  /** Sends to the other processes; never throws (while Redis is down a failure is counted by the outage log). */
  async publish(message: T): Promise<void> {
    if (!this.publisher) return;
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, message }));
    } catch (error) {
      RedisOutageLog.for(this.options.redisUrl!).commandFailed(`${this.options.name} publish`, error);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.subscriber, this.publisher].filter((c): c is Redis => !!c).map(closeRedis));
    this.subscriber = this.publisher = undefined;
  }
}
