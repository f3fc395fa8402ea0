import { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { MessageMappingProperties } from '@nestjs/websockets';
import type { Observable } from 'rxjs';
import type { Server, ServerOptions, Socket } from 'socket.io';
import { closeRedis } from '../common/redis-close';
import { RedisOutageLog } from '../common/redis-outage-log';
import type { AppConfig } from '../config/app-config';
import { bodyLimitFor } from '../shared/contracts/http';

/**
 * Socket.IO server setup: CORS from CORS_ORIGINS, and with REDIS_URL the Redis adapter, so an
 * event emitted on one server reaches clients connected to any other.
 */
export class AppSocketIoAdapter extends IoAdapter {
  private clients: Redis[] = [];
  private closing = false;

  constructor(
    app: INestApplicationContext,
    private readonly config: AppConfig,
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server: Server = super.createIOServer(port, {
      ...options,
      cors: this.config.corsOrigins.length > 0 ? { origin: this.config.corsOrigins, credentials: true } : undefined,
      maxHttpBufferSize: bodyLimitFor('/socket.io'),
      pingInterval: 20000,
      pingTimeout: 20000,
    });
    if (this.config.redisUrl) {
      const pub = new Redis(this.config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null, disconnectTimeout: 500 });
      const sub = pub.duplicate();
      const outage = RedisOutageLog.for(this.config.redisUrl);
      outage.watch(pub, 'socket.io adapter pub');
      outage.watch(sub, 'socket.io adapter sub');
      const failed = (error: Error) => {
        // A command cut off by the close is expected; others count towards the outage log.
        if (!this.closing) outage.commandFailed('socket.io adapter', error);
      };
      handleRejections(pub, ['publish'], failed);
      handleRejections(sub, ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'], failed);
      this.clients.push(pub, sub);
      server.adapter(createAdapter(pub, sub, { key: `${this.config.redisPrefix}-socket.io` }));
    }
    return server;
  }

  /**
   * One plain listener per handler. Nest's own binding builds an rxjs pipeline per handler and a
   * shared disconnect stream for every socket (fromEvent, mergeMap, takeUntil), kept for the
   * socket's whole life, about twice the heap of an idle socket (docs/architecture.md). Same behaviour: the payload and ack are mapped as Nest maps them, and a
   * handler's non-empty result is emitted (`{event, data}`) or acknowledged.
   */
  override bindMessageHandlers(socket: Socket, handlers: MessageMappingProperties[], transform: (data: unknown) => Observable<unknown>): void {
    for (const { message, callback, isAckHandledManually } of handlers) {
      socket.on(String(message), (...args: unknown[]) => {
        const { data, ack } = this.mapPayload(args.length > 1 ? args : args[0]);
        transform(callback(data, ack)).subscribe((response) => {
          if (response === null || response === undefined) return;
          const reply = response as { event?: string; data?: unknown };
          if (reply.event) socket.emit(reply.event, reply.data);
          else if (!isAckHandledManually && typeof ack === 'function') ack(response);
        });
      });
    }
  }

  override async close(server: Server): Promise<void> {
    this.closing = true;
    await super.close(server);
    await Promise.all(this.clients.map(closeRedis));
    this.clients = [];
  }

}

/**
 * The Redis adapter calls these commands without handling their promises. A close while one is
 * still queued (a server stopped right after it started, or during an outage) rejects it with
 * "Connection is closed.": an unhandled rejection, which main.ts only logs as an error but which
 * fails a test and, in a process without that handler, ends it.
 */
function handleRejections(client: Redis, commands: readonly string[], onError: (error: Error) => void): void {
  const target = client as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of commands) {
    const command = target[name].bind(client);
    target[name] = (...args: unknown[]) => {
      const result = command(...args);
      if (typeof (result as Promise<unknown> | undefined)?.catch === 'function') (result as Promise<unknown>).catch(onError);
      return result;
    };
  }
}
