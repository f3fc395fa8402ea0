import { randomUUID } from 'node:crypto';
import { Global, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { APP_CONFIG } from '../config/app-config';
import { BullMqJobQueue, JobQueueUnavailableError } from './bullmq-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JOB_QUEUE, JobQueue } from './job-queue';
import { describeJobQueueContract, sleep, waitFor } from './job-queue.contract';
import { JobsModule } from './jobs.module';
import { RedisInstance } from '../../test/support/service-instances';
import { describeWith, NEEDS } from '../../test/support/requirements';

/** Boots JobsModule in a Nest context with a stand-in for the global ConfigModule. */
async function bootJobsModule(redisUrl?: string) {
  @Global()
  @Module({ providers: [{ provide: APP_CONFIG, useValue: { redisUrl } }], exports: [APP_CONFIG] })
  class FakeConfigModule {}
  @Module({ imports: [FakeConfigModule, JobsModule] })
  class RootModule {}
  return NestFactory.createApplicationContext(RootModule, { logger: false });
}

describeJobQueueContract('in-process', async () => new InProcessJobQueue());

describe('InProcessJobQueue', () => {
  it('logs the number of jobs left unrun at close', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const queue = new InProcessJobQueue();
      queue.register('later', async () => undefined);
      await queue.start();
      await queue.enqueue('later', { secret: 'do-not-log' }, { delayMs: 10_000 });
      await queue.enqueue('later', {}, { delayMs: 10_000 });
      await queue.close();
      const lines = warn.mock.calls.map((call) => String(call[0]));
      expect(lines.some((line) => /closed with 2 job\(s\) not run \(later: 2\)/.test(line))).toBe(true);
      expect(lines.join('\n')).not.toContain('do-not-log');
    } finally {
      warn.mockRestore();
    }
  });
});

describe('JobsModule', () => {
  it('provides the in-process queue without redisUrl, starts it on bootstrap and closes it on shutdown', async () => {
    const app = await bootJobsModule(undefined);
    const jobs = app.get<JobQueue>(JOB_QUEUE);
    expect(jobs.kind).toBe('in-process');
    const runs: unknown[] = [];
    jobs.register('module-job', async (data) => {
      runs.push(data);
    });
    await app.init(); // onApplicationBootstrap -> start()
    await jobs.enqueue('module-job', 1);
    await waitFor(() => runs.length === 1);
    await app.close(); // shutdown hooks -> close()
    expect(await jobs.isHealthy()).toBe(false);
  });
});

// The distributed adapter needs a real Redis. .ci/run always sets REDIS_URL, so in CI these
// suites always run; they are skipped only on a machine without Redis configured.
const redisUrl = process.env.REDIS_URL;
const describeRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

describeRedis('BullMqJobQueue (REDIS_URL)', () => {
  const prefixes: string[] = [];
  const newPrefix = () => {
    const prefix = `test-jobs-${randomUUID().slice(0, 8)}`;
    prefixes.push(prefix);
    return prefix;
  };

  afterAll(async () => {
    // Each queue used its own prefix: remove every key it left behind.
    const redis = new Redis(redisUrl!);
    try {
      for (const prefix of prefixes) {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
      }
    } finally {
      await redis.quit();
    }
  });

  describeJobQueueContract('bullmq', async () => new BullMqJobQueue(redisUrl!, newPrefix()));

  it('JobsModule provides BullMQ when the config has redisUrl', async () => {
    const app = await bootJobsModule(redisUrl);
    await app.init();
    const jobs = app.get<JobQueue>(JOB_QUEUE);
    expect(jobs.kind).toBe('bullmq');
    expect(await jobs.isHealthy()).toBe(true);
    await app.close();
    expect(await jobs.isHealthy()).toBe(false);
  });

  it('runs each repeat tick once across two servers sharing Redis', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const prefix = newPrefix();
    const servers = [new BullMqJobQueue(redisUrl!, prefix), new BullMqJobQueue(redisUrl!, prefix)];
    const runs: Array<{ server: number; jobId: string }> = [];
    try {
      servers.forEach((server, index) =>
        server.register('rollup', async (_data, meta) => {
          runs.push({ server: index, jobId: meta.jobId });
        }),
      );
      // Both servers declare the same schedule at boot, as every instance of the app does.
      await Promise.all(servers.map((server) => server.repeat('rollup', 200, { hourly: true })));
      await Promise.all(servers.map((server) => server.start()));
      await sleep(1200);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      jest.restoreAllMocks();
    }
    // ~6 ticks in 1.2 s (7 with the immediate first one); doubled would be ~12-14.
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.length).toBeLessThanOrEqual(8);
    expect(new Set(runs.map((run) => run.jobId)).size).toBe(runs.length);
  });

  it('throws a clear error instead of hanging when Redis is unreachable', async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    // Nothing listens on port 1: the connection never becomes ready.
    const queue = new BullMqJobQueue('redis://127.0.0.1:1', newPrefix(), { enqueueWaitMs: 300, healthTimeoutMs: 200 });
    try {
      queue.register('mail', async () => undefined);
      await queue.start();
      const startedAt = Date.now();
      const attempt = queue.enqueue('mail', { to: 'a@example.com' });
      await expect(attempt).rejects.toBeInstanceOf(JobQueueUnavailableError);
      await expect(attempt).rejects.toThrow(/Cannot enqueue job "mail": Redis is not reachable/);
      expect(Date.now() - startedAt).toBeLessThan(2000);
      expect(await queue.isHealthy()).toBe(false);
    } finally {
      await queue.close();
      jest.restoreAllMocks();
    }
  });

  it('waits for the reconnect when Redis drops the connection briefly', async () => {
    const queue = new BullMqJobQueue(redisUrl!, newPrefix(), { enqueueWaitMs: 3000 });
    const runs: number[] = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const admin = new Redis(redisUrl!);
    try {
      queue.register('blip', async (data: number) => {
        runs.push(data);
      });
      await queue.start();
      await queue.enqueue('blip', 1);
      await waitFor(() => runs.length === 1);
      // The server drops this queue's producer connection (and only it): a short outage.
      const producer = (queue as unknown as { producer: Redis }).producer;
      const producerId = await producer.client('ID');
      await admin.client('KILL', 'ID', String(producerId));
      await waitFor(() => producer.status !== 'ready', 2000, 'the producer to notice the drop');
      await queue.enqueue('blip', 2);
      await waitFor(() => runs.length === 2);
      expect(runs).toEqual([1, 2]);
    } finally {
      await admin.quit();
      await queue.close();
      jest.restoreAllMocks();
    }
  });
});

// A Redis of its own (test/support/service-instances), restarted without persistence.
describeWith([NEEDS.redisServer], 'BullMqJobQueue across a Redis restart that lost every key', () => {
  it('upserts its repeat schedule again when the connection comes back, and the job runs again', async () => {
    const redis = await RedisInstance.start();
    const queue = new BullMqJobQueue(redis.url, 'restart', { enqueueWaitMs: 500 });
    const runs: number[] = [];
    try {
      queue.register('tick', async () => {
        runs.push(Date.now());
      });
      await queue.start();
      await queue.repeat('tick', 200, {});
      await waitFor(() => runs.length >= 1, 10_000);
      expect(await redis.command('zcard', 'restart:tick:repeat')).toBe('1');

      await redis.stop();
      await sleep(300);
      const after = runs.length;
      await redis.start(); // empty: no persistence (the queue may re-upsert before any check here)
      // Without the re-upsert no tick is produced any more (0 repeat keys until the app restarts).
      await waitFor(() => runs.length > after, 15_000, 'a tick after the restart');
      expect(await redis.command('zcard', 'restart:tick:repeat')).toBe('1');
    } finally {
      await queue.close();
      await redis.stop();
    }
  }, 40_000);
});
