/**
 * Notifications about sessions, so the /admin socket namespace can act on them without the auth
 * feature depending on it: a revoked session (logout) drops its sockets; a removed or disabled
 * member loses all of theirs; a rotated session (refresh) hands its sockets over to the new one;
 * a member whose role changed has their sockets moved to the new role's room (they then receive
 * only the events that role may see).
 *
 * Every process that works on the same data hears them: this one at once, the other servers (and
 * from the admin command line) through Redis pub/sub on `<REDIS_PREFIX>:sessions` when REDIS_URL
 * is set. Each server acts on its own sockets. A message lost to a Redis outage is caught by each
 * server's periodic re-check of its sockets (ADMIN_SOCKET_CHECK_MS).
 */
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ClusterChannel } from '../common/cluster-channel';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import type { Role } from '../shared/contracts/roles';

export type SessionEvent =
  | { type: 'revoked'; sessionId: string }
  | { type: 'user-removed'; userId: string }
  /** Every session of the admin was ended (their second factor was reset). */
  | { type: 'user-sessions-ended'; userId: string }
  | { type: 'role-changed'; userId: string; role: Role }
  | { type: 'rotated'; fromSessionId: string; toSessionId: string };

const EVENT_TYPES = new Set<SessionEvent['type']>(['revoked', 'user-removed', 'user-sessions-ended', 'role-changed', 'rotated']);

@Injectable()
export class SessionEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SessionEvents');
  private readonly listeners = new Set<(event: SessionEvent) => void | Promise<void>>();
  private readonly channel: ClusterChannel<SessionEvent>;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'redisUrl' | 'redisPrefix'>) {
    this.channel = new ClusterChannel<SessionEvent>({
      redisUrl: config.redisUrl,
      redisPrefix: config.redisPrefix,
      name: 'sessions',
      onMessage: (event) => {
        if (event && EVENT_TYPES.has(event.type)) this.notify(event);
      },
    });
  }

  /** Subscribes to the other processes' events (servers); the command line only publishes. */
  async onModuleInit(): Promise<void> {
    await this.channel.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.channel.close();
  }

  subscribe(listener: (event: SessionEvent) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Acts on it here and tells the other processes. */
  publish(event: SessionEvent): Promise<void> {
    this.notify(event);
    return this.channel.publish(event);
  }

  /** For a process that only publishes (the command line): connects without subscribing. */
  startPublisher(): Promise<void> {
    return this.channel.start(false);
  }

  close(): Promise<void> {
    return this.channel.close();
  }

  private notify(event: SessionEvent): void {
    for (const listener of this.listeners) {
      Promise.resolve()
        .then(() => listener(event))
        .catch((error) => this.logger.warn(`Session event ${event.type} listener failed: ${(error as Error).message}`));
    }
  }
}
