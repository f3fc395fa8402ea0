import * as http from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { AppSocketIoAdapter } from './socket-io.adapter';
import { describeWith, NEEDS } from '../../test/support/requirements';

/**
 * The Redis adapter subscribes (and, on close, unsubscribes) without handling the commands'
 * promises: a server stopped while they are queued must neither hang nor leave an unhandled
 * "Connection is closed." rejection (logged as an error by main.ts; it failed a CI run).
 */
describe('AppSocketIoAdapter with Redis', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  const servers: http.Server[] = [];

  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });

  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  async function openAndClose(redisUrl: string, closeAfterMs: number | undefined): Promise<number> {
    const httpServer = http.createServer();
    servers.push(httpServer);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const config = { redisUrl, corsOrigins: [], redisPrefix: `spec${process.pid}` } as unknown as AppConfig;
    const adapter = new AppSocketIoAdapter(httpServer as unknown as INestApplicationContext, config);
    const io = adapter.createIOServer(0);
    io.of('/chat');
    if (closeAfterMs !== undefined) await new Promise((resolve) => setTimeout(resolve, closeAfterMs));
    const started = Date.now();
    await adapter.close(io);
    return Date.now() - started;
  }

  /** Rejections surface on a later turn of the event loop. */
  async function settled(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it('closes at once during a Redis outage, its subscriptions still queued, with no unhandled rejection', async () => {
    for (const wait of [undefined, 0, 1, 5, 50]) {
      expect(await openAndClose('redis://127.0.0.1:1', wait)).toBeLessThan(1000);
    }
    await settled();
    expect(unhandled).toEqual([]);
  });

  describeWith([NEEDS.redisUrl], 'with Redis', () => it('closes right after it starts (0-50 ms) with no unhandled rejection', async () => {
    for (let round = 0; round < 3; round++) {
      for (const wait of [undefined, 0, 1, 2, 3, 5, 10, 50]) {
        expect(await openAndClose(process.env.REDIS_URL!, wait)).toBeLessThan(1500);
      }
    }
    await settled();
    expect(unhandled).toEqual([]);
  }));
});
