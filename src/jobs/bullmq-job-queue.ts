/**
 * Distributed adapter of the job port (REDIS_URL): one BullMQ Queue + Worker per registered name.
 *
 * Connections (ioredis, shared by all queues / all workers of this instance):
 * - workers: `maxRetriesPerRequest: null` and the offline queue on, as BullMQ requires, so that
 *   workers ride out Redis outages and resume on reconnect (BullMQ duplicates this connection
 *   for each worker's blocking reads);
 * - producer (Queue.add, upsertJobScheduler, health ping): `enableOfflineQueue: false`. Commands
 *   are never buffered without bound in memory. Instead `enqueue`/`repeat` wait for the
 *   connection to be ready for at most `enqueueWaitMs` (default 2000 ms, which covers a short
 *   reconnect) and then throw a `JobQueueUnavailableError` naming the job. This also bounds the
 *   case BullMQ itself does not: before the first successful connection, BullMQ's Queue.add
 *   waits for "ready" forever. `maxRetriesPerRequest: 1` makes a command caught in flight by a
 *   disconnect fail after one reconnect attempt instead of twenty.
 *
 * Jobs: attempts -> attempts, backoffMs -> exponential backoff (BullMQ waits
 * backoffMs * 2^(failed attempts - 1), as the in-process adapter), delayMs -> delay. Finished jobs
 * are kept bounded (count and age). A caller's jobId becomes BullMQ's jobId (escaped, because
 * BullMQ refuses ':' and integer-looking custom ids) and such jobs are removed when they finish,
 * so the id can be used again afterwards: a duplicate is ignored while the job is waiting,
 * delayed, running or waiting for a retry (the same window as the in-process adapter).
 *
 * repeat: a BullMQ job scheduler per name (`upsertJobScheduler(name, { every })`). The scheduler
 * lives in Redis, so with several servers each tick is produced once and runs once in all. It
 * outlives close(): other servers keep running it, and a server that starts again upserts it.
 * Every schedule asked for is remembered and upserted again whenever the producer connection
 * becomes ready after a disconnect: a Redis restarted without persistence has lost them (an
 * upsert of a live scheduler changes nothing).
 *
 * Job data is stored in Redis as JSON (keep secrets there short-lived); logs never include it.
 */
import { Logger } from '@nestjs/common';
import { Job, JobsOptions, KeepJobs, Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { closeRedis } from '../common/redis-close';
import { RedisOutageLog } from '../common/redis-outage-log';
import { describeError } from './in-process-job-queue';
import { EnqueueOptions, JobHandler, JobQueue } from './job-queue';

export class JobQueueUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JobQueueUnavailableError';
  }
}

export interface BullMqJobQueueOptions {
  /** How long enqueue/repeat wait for a (re)connecting Redis before throwing (ms, default 2000). */
  enqueueWaitMs?: number;
  /** Timeout of the health ping (ms, default 1000). */
  healthTimeoutMs?: number;
}

const DEFAULT_BACKOFF_MS = 1000;
const KEEP_COMPLETED: KeepJobs = { count: 1000, age: 24 * 3600 };
const KEEP_FAILED: KeepJobs = { count: 5000, age: 7 * 24 * 3600 };
/** Marks an escaped caller-given jobId; BullMQ's own ids are numbers or "repeat:...". */
const CUSTOM_ID_PREFIX = 'c-';

interface Registration {
  handler: JobHandler<unknown>;
  concurrency: number;
  queue: Queue;
  worker?: Worker;
}

export class BullMqJobQueue implements JobQueue {
  readonly kind = 'bullmq' as const;

  private readonly logger = new Logger('Jobs');
  private readonly producer: Redis;
  private readonly workerConnection: Redis;
  private readonly registrations = new Map<string, Registration>();
  private readonly enqueueWaitMs: number;
  private readonly healthTimeoutMs: number;
  /** One line when Redis goes down, a reminder a minute, one when it is back (shared by every Redis client of the process). */
  private readonly outage: RedisOutageLog;
  /** The schedules asked for (repeat), upserted again on every reconnect. */
  private readonly schedules = new Map<string, { everyMs: number; data: unknown }>();
  private started = false;
  private closing = false;
  private closed?: Promise<void>;

  constructor(
    private readonly redisUrl: string,
    private readonly prefix = 'sa',
    options: BullMqJobQueueOptions = {},
  ) {
    this.enqueueWaitMs = options.enqueueWaitMs ?? 2000;
    this.healthTimeoutMs = options.healthTimeoutMs ?? 1000;
    // disconnectTimeout: a socket that never connected keeps the process alive this long after
    // close (ioredis default 2000 ms); BullMQ's blocking connections inherit it via duplicate().
    this.producer = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, disconnectTimeout: 500 });
    this.workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    // BullMQ also listens for errors, but only once a Queue/Worker exists; never crash on them.
    this.outage = RedisOutageLog.for(redisUrl);
    this.outage.watch(this.producer, 'jobs producer');
    this.outage.watch(this.workerConnection, 'jobs worker');
    // Every (re)connect: a Redis restarted without persistence has lost the schedulers.
    this.producer.on('ready', () => void this.reassertSchedules());
  }

  register<T>(name: string, handler: JobHandler<T>, options: { concurrency?: number } = {}): void {
    if (this.closing) throw new Error(`The job queue is closed; cannot register "${name}"`);
    if (this.registrations.has(name)) throw new Error(`A job handler for "${name}" is already registered`);
    if (name.includes(':')) throw new Error(`Job name "${name}" must not contain ":" (BullMQ queue names)`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`Job "${name}": concurrency must be a whole number of at least 1`);
    }
    const queue = new Queue(name, {
      connection: this.producer,
      prefix: this.prefix,
      defaultJobOptions: { removeOnComplete: KEEP_COMPLETED, removeOnFail: KEEP_FAILED },
    });
    queue.on('error', (error) => this.outage.echoed(`queue ${name}`, error));
    const registration: Registration = { handler: handler as JobHandler<unknown>, concurrency, queue };
    this.registrations.set(name, registration);
    if (this.started) this.startWorker(name, registration);
  }

  async enqueue<T>(name: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    const { queue } = this.registration(name);
    const attempts = options.attempts ?? 1;
    if (!Number.isInteger(attempts) || attempts < 1) {
      throw new Error(`Job "${name}": attempts must be a whole number of at least 1`);
    }
    const jobOptions: JobsOptions = {
      attempts,
      backoff: { type: 'exponential', delay: Math.max(0, options.backoffMs ?? DEFAULT_BACKOFF_MS) },
    };
    if (options.delayMs !== undefined && options.delayMs > 0) jobOptions.delay = options.delayMs;
    if (options.jobId !== undefined) {
      jobOptions.jobId = encodeJobId(options.jobId);
      // Free the id once the job is done, so that only unfinished jobs de-duplicate.
      jobOptions.removeOnComplete = true;
      jobOptions.removeOnFail = true;
    }
    await this.produce(name, 'enqueue', () => queue.add(name, data, jobOptions));
  }

  async repeat<T>(name: string, everyMs: number, data: T): Promise<void> {
    this.registration(name);
    if (!Number.isFinite(everyMs) || everyMs < 1) throw new Error(`Job "${name}": everyMs must be at least 1`);
    // Remembered even when Redis is away now: the next (re)connect upserts it.
    this.schedules.set(name, { everyMs, data });
    await this.upsertSchedule(name, everyMs, data);
  }

  private async upsertSchedule(name: string, everyMs: number, data: unknown): Promise<void> {
    const { queue } = this.registration(name);
    await this.produce(name, 'schedule', () =>
      queue.upsertJobScheduler(
        name,
        { every: everyMs },
        { name, data, opts: { removeOnComplete: KEEP_COMPLETED, removeOnFail: KEEP_FAILED } },
      ),
    );
  }

  /** After a reconnect: upsert every remembered schedule (Redis may have lost them). */
  private async reassertSchedules(): Promise<void> {
    if (this.closing) return;
    for (const [name, { everyMs, data }] of this.schedules) {
      try {
        await this.upsertSchedule(name, everyMs, data);
      } catch (error) {
        // The next reconnect tries again.
        this.outage.commandFailed(`schedule ${name}`, error);
      }
    }
  }

  async start(): Promise<void> {
    if (this.started || this.closing) return;
    this.started = true;
    for (const [name, registration] of this.registrations) this.startWorker(name, registration);
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  /** Ready and answering a PING, all within healthTimeoutMs (a connecting client gets that long). */
  async isHealthy(): Promise<boolean> {
    if (this.closing) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('health check timed out')), this.healthTimeoutMs);
    });
    try {
      const ping = async () => {
        if (this.producer.status !== 'ready') await this.whenProducerReady('health', 'check', this.healthTimeoutMs);
        return this.producer.ping();
      };
      return (await Promise.race([ping(), timeout])) === 'PONG';
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    const registrations = [...this.registrations.values()];
    // Let connections that are still initialising settle first (briefly): BullMQ drops its error
    // listeners on close, so an init that fails after close would surface as an unhandled error.
    await this.settle(
      [...registrations.map((r) => r.queue.waitUntilReady()), ...registrations.map((r) => r.worker?.waitUntilReady())].map((p) =>
        p ? Promise.race([p, new Promise((resolve) => setTimeout(resolve, 1000).unref())]) : undefined,
      ),
    );
    // Not forced: each worker stops fetching and waits for its running jobs.
    await this.settle(registrations.map((r) => r.worker?.close()));
    await this.settle(registrations.map((r) => r.queue.close()));
    // Both connections were passed in as instances, so BullMQ leaves closing them to us.
    await this.settle([closeRedis(this.producer), closeRedis(this.workerConnection)]);
  }

  private async settle(promises: Array<Promise<unknown> | undefined>): Promise<void> {
    for (const result of await Promise.allSettled(promises)) {
      if (result.status === 'rejected') this.logger.warn(`Job queue close: ${describeError(result.reason)}`);
    }
  }

  private registration(name: string): Registration {
    if (this.closing) throw new Error(`The job queue is closed; job "${name}" was not enqueued`);
    const registration = this.registrations.get(name);
    if (!registration) throw new Error(`No job handler is registered for "${name}"`);
    return registration;
  }

  /** Runs a producer command once Redis is ready (bounded wait); connection failures become JobQueueUnavailableError. */
  private async produce(name: string, action: string, command: () => Promise<unknown>): Promise<void> {
    await this.whenProducerReady(name, action);
    try {
      await command();
    } catch (error) {
      if (isConnectionError(error)) {
        throw new JobQueueUnavailableError(
          `Cannot ${action} job "${name}": Redis connection failed (${describeError(error)})`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  private whenProducerReady(name: string, action: string, waitMs = this.enqueueWaitMs): Promise<void> {
    if (this.producer.status === 'ready') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.producer.off('ready', onReady);
        reject(
          new JobQueueUnavailableError(
            `Cannot ${action} job "${name}": Redis is not reachable ` +
              `(connection ${this.producer.status} for ${waitMs} ms)`,
          ),
        );
      }, waitMs);
      this.producer.once('ready', onReady);
    });
  }

  private startWorker(name: string, registration: Registration): void {
    const worker = new Worker(
      name,
      async (job: Job) => {
        await registration.handler(job.data, { attempt: job.attemptsMade + 1, jobId: decodeJobId(job.id) });
      },
      { connection: this.workerConnection, prefix: this.prefix, concurrency: registration.concurrency },
    );
    worker.on('failed', (job, error) => this.logFailure(name, job, error));
    worker.on('stalled', (jobId) =>
      this.logger.warn(`Job ${name} (${decodeJobId(jobId)}) stalled (its worker stopped); it will run again`),
    );
    worker.on('error', (error) => this.outage.echoed(`worker ${name}`, error));
    registration.worker = worker;
  }

  private logFailure(name: string, job: Job | undefined, error: Error): void {
    const id = decodeJobId(job?.id);
    const reason = describeError(error);
    const attempts = job?.opts.attempts ?? 1;
    const made = job?.attemptsMade ?? attempts;
    if (made < attempts) {
      const backoff = job?.opts.backoff;
      const base = typeof backoff === 'object' ? (backoff.delay ?? 0) : (backoff ?? 0);
      this.logger.warn(
        `Job ${name} (${id}) failed on attempt ${made}/${attempts}; retry in ${base * 2 ** (made - 1)} ms: ${reason}`,
      );
    } else {
      this.logger.error(`Job ${name} (${id}) failed after ${made} attempt(s): ${reason}`, error?.stack);
    }
  }

}

function encodeJobId(jobId: string): string {
  return CUSTOM_ID_PREFIX + jobId.replace(/%/g, '%25').replace(/:/g, '%3A');
}

function decodeJobId(id: string | undefined): string {
  if (id === undefined) return 'unknown';
  if (!id.startsWith(CUSTOM_ID_PREFIX)) return id;
  return id.slice(CUSTOM_ID_PREFIX.length).replace(/%3A/g, ':').replace(/%25/g, '%');
}

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE/i.test(error.message)
  );
}

