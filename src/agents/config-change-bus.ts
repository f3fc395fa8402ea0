/**
 * Tells every server that the agent configuration or the global settings changed, so each drops
 * its cached copy before the next chat. With REDIS_URL: Redis pub/sub on `<REDIS_PREFIX>:config`
 * (the servers that work together share the prefix); without it there is only this server.
 *
 * A server also forgets its cache when its subscription (re)connects, since messages published
 * while it was cut off are lost; the registry's maximum cache age is the last safety net.
 */
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ClusterChannel } from '../common/cluster-channel';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ConfigChangedPayload } from '../shared/contracts/socket';

type Listener = (change: ConfigChangedPayload) => void;

@Injectable()
export class ConfigChangeBus implements OnModuleDestroy {
  private readonly logger = new Logger('ConfigChangeBus');
  private readonly listeners = new Set<Listener>();
  private readonly channel: ClusterChannel<ConfigChangedPayload>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.channel = new ClusterChannel<ConfigChangedPayload>({
      redisUrl: config.redisUrl,
      redisPrefix: config.redisPrefix,
      name: 'config',
      onMessage: (change) => this.notify(change ?? {}),
      onReconnect: () => this.notify({}),
    });
  }

  /** Listens for changes made on other servers (and reconnects, after which anything may have changed). */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects to Redis when configured; resolves once subscribed (or at once without Redis). */
  start(): Promise<void> {
    return this.channel.start();
  }

  /** Tells the other servers (this one has already reloaded). */
  publish(change: ConfigChangedPayload): Promise<void> {
    return this.channel.publish(change);
  }

  async onModuleDestroy(): Promise<void> {
    await this.channel.close();
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
