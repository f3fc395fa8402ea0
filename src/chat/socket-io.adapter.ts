import { INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import type { AppConfig } from '../config/app-config';

/**
 * Socket.IO server setup: CORS from CORS_ORIGINS, and with REDIS_URL the Redis adapter, so an
 * event emitted on one server reaches clients connected to any other.
 */
export class AppSocketIoAdapter extends IoAdapter {
  private readonly logger = new Logger('SocketIO');
  private clients: Redis[] = [];

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
      maxHttpBufferSize: 1e6,
      pingInterval: 20000,
      pingTimeout: 20000,
    });
    if (this.config.redisUrl) {
      const pub = new Redis(this.config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null, disconnectTimeout: 500 });
      const sub = pub.duplicate();
      for (const client of [pub, sub]) client.on('error', (e) => this.logger.warn(`Redis adapter: ${e.message}`));
      this.clients.push(pub, sub);
      server.adapter(createAdapter(pub, sub, { key: `${this.config.redisPrefix}-socket.io` }));
    }
    return server;
  }

  override async close(server: Server): Promise<void> {
    await super.close(server);
    await Promise.all(this.clients.map((c) => c.quit().catch(() => c.disconnect())));
    this.clients = [];
  }
}
