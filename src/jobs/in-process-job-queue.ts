/**
 * Embedded adapter of the job port: runs jobs in this process.
 *
 * - per-name concurrency (default 1);
 * - attempts with exponential backoff: the wait after failed attempt n is backoffMs * 2^(n-1);
 *   a job waiting for its retry does not hold a concurrency slot (as in BullMQ);
 * - delayMs;
 * - jobId de-duplication: a job whose id (per name) is already known and not finished (waiting,
 *   delayed, running or waiting for a retry) is not enqueued again, the same window in which
 *   BullMQ ignores a duplicate custom id in the distributed adapter;
 * - repeat via unref'd timers; a tick is skipped while the previous tick of that name has not
 *   finished, so repeats never pile up;
 * - close() stops the timers, lets running jobs finish and logs how many jobs were left unrun.
 *
 * Logs never include job data (it may contain secrets such as one-time codes): only the job name,
 * id, attempt and the error.
 */
import { Logger } from '@nestjs/common';
import { EnqueueOptions, JobHandler, JobQueue } from './job-queue';

interface Registration {
  handler: JobHandler<unknown>;
  concurrency: number;
  running: number;
  waiting: PendingJob[];
}

interface PendingJob {
  name: string;
  data: unknown;
  id: string;
  /** The de-duplication key when the caller gave a jobId (or for a repeat tick). */
  dedupeKey?: string;
  /** Number of the next attempt to run (1-based). */
  attempt: number;
  attempts: number;
  backoffMs: number;
}

interface RepeatSpec {
  everyMs: number;
  data: unknown;
  timer?: NodeJS.Timeout;
}

const DEFAULT_BACKOFF_MS = 1000;

export class InProcessJobQueue implements JobQueue {
  readonly kind = 'in-process' as const;

  private readonly logger = new Logger('Jobs');
  private readonly registrations = new Map<string, Registration>();
  /** Jobs waiting for their delay or for a retry, with their timer. */
  private readonly delayed = new Map<NodeJS.Timeout, PendingJob>();
  private readonly unfinishedIds = new Set<string>();
  private readonly repeats = new Map<string, RepeatSpec>();
  private readonly running = new Set<Promise<void>>();
  /** Retries that were due while closing: never run, counted in the close report. */
  private droppedRetries = 0;
  private sequence = 0;
  private started = false;
  private closing = false;
  private closed?: Promise<void>;

  register<T>(name: string, handler: JobHandler<T>, options: { concurrency?: number } = {}): void {
    if (this.registrations.has(name)) throw new Error(`A job handler for "${name}" is already registered`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`Job "${name}": concurrency must be a whole number of at least 1`);
    }
    this.registrations.set(name, {
      handler: handler as JobHandler<unknown>,
      concurrency,
      running: 0,
      waiting: [],
    });
  }

  async enqueue<T>(name: string, data: T, options: EnqueueOptions = {}): Promise<void> {
    this.assertOpen(name);
    this.registration(name);
    const attempts = options.attempts ?? 1;
    if (!Number.isInteger(attempts) || attempts < 1) {
      throw new Error(`Job "${name}": attempts must be a whole number of at least 1`);
    }
    const dedupeKey = options.jobId === undefined ? undefined : `${name}\u0000${options.jobId}`;
    if (dedupeKey !== undefined && this.unfinishedIds.has(dedupeKey)) return;
    this.add(
      {
        name,
        data,
        id: options.jobId ?? `${name}-${++this.sequence}`,
        dedupeKey,
        attempt: 1,
        attempts,
        backoffMs: Math.max(0, options.backoffMs ?? DEFAULT_BACKOFF_MS),
      },
      Math.max(0, options.delayMs ?? 0),
    );
  }

  async repeat<T>(name: string, everyMs: number, data: T): Promise<void> {
    this.assertOpen(name);
    this.registration(name);
    if (!Number.isFinite(everyMs) || everyMs < 1) throw new Error(`Job "${name}": everyMs must be at least 1`);
    const existing = this.repeats.get(name);
    if (existing?.timer) clearInterval(existing.timer);
    const spec: RepeatSpec = { everyMs, data };
    this.repeats.set(name, spec);
    if (this.started) this.startRepeat(name, spec);
  }

  async start(): Promise<void> {
    if (this.started || this.closing) return;
    this.started = true;
    for (const [name, spec] of this.repeats) this.startRepeat(name, spec);
    for (const name of this.registrations.keys()) this.dispatch(name);
  }

  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  async isHealthy(): Promise<boolean> {
    return !this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    for (const spec of this.repeats.values()) if (spec.timer) clearInterval(spec.timer);
    // Running jobs may not start new ones (dispatch checks `closing`), so this loop ends.
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    const pending = new Map<string, number>();
    const count = (name: string, n = 1) => pending.set(name, (pending.get(name) ?? 0) + n);
    for (const [timer, job] of this.delayed) {
      clearTimeout(timer);
      count(job.name);
    }
    this.delayed.clear();
    for (const [name, registration] of this.registrations) {
      if (registration.waiting.length > 0) count(name, registration.waiting.length);
      registration.waiting = [];
    }
    const total = [...pending.values()].reduce((sum, n) => sum + n, 0) + this.droppedRetries;
    if (total > 0) {
      const detail = [...pending].map(([name, n]) => `${name}: ${n}`).join(', ');
      const retries = this.droppedRetries > 0 ? `; retries due during close: ${this.droppedRetries}` : '';
      this.logger.warn(`Job queue closed with ${total} job(s) not run (${detail || 'none waiting'}${retries})`);
    }
  }

  private assertOpen(name: string): void {
    if (this.closing) throw new Error(`The job queue is closed; job "${name}" was not enqueued`);
  }

  private registration(name: string): Registration {
    const registration = this.registrations.get(name);
    if (!registration) throw new Error(`No job handler is registered for "${name}"`);
    return registration;
  }

  private startRepeat(name: string, spec: RepeatSpec): void {
    const tick = () => {
      const dedupeKey = `${name}\u0000repeat`;
      if (this.closing || this.unfinishedIds.has(dedupeKey)) return;
      this.add(
        {
          name,
          data: spec.data,
          id: `repeat-${name}-${Date.now()}`,
          dedupeKey,
          attempt: 1,
          attempts: 1,
          backoffMs: 0,
        },
        0,
      );
    };
    spec.timer = setInterval(tick, spec.everyMs);
    spec.timer.unref();
    // Like a BullMQ job scheduler with `every`, the first run is due at once.
    tick();
  }

  /** Puts a job in the waiting list of its name, after `delayMs` when positive. */
  private add(job: PendingJob, delayMs: number): void {
    if (job.dedupeKey !== undefined) this.unfinishedIds.add(job.dedupeKey);
    if (delayMs <= 0) {
      this.registration(job.name).waiting.push(job);
      this.dispatch(job.name);
      return;
    }
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      this.registration(job.name).waiting.push(job);
      this.dispatch(job.name);
    }, delayMs);
    timer.unref();
    this.delayed.set(timer, job);
  }

  private dispatch(name: string): void {
    if (!this.started || this.closing) return;
    const registration = this.registration(name);
    while (registration.running < registration.concurrency && registration.waiting.length > 0) {
      const job = registration.waiting.shift()!;
      registration.running++;
      const run = this.run(registration, job).finally(() => {
        registration.running--;
        this.running.delete(run);
        this.dispatch(name);
      });
      this.running.add(run);
    }
  }

  private async run(registration: Registration, job: PendingJob): Promise<void> {
    try {
      // Promise.resolve().then: a handler that throws synchronously is a failed attempt too.
      await Promise.resolve().then(() => registration.handler(job.data, { attempt: job.attempt, jobId: job.id }));
      this.finish(job);
    } catch (error) {
      const reason = describeError(error);
      if (job.attempt < job.attempts) {
        const waitMs = job.backoffMs * 2 ** (job.attempt - 1);
        if (this.closing) {
          this.droppedRetries++;
          this.logger.warn(
            `Job ${job.name} (${job.id}) failed on attempt ${job.attempt}/${job.attempts}; ` +
              `not retried because the queue is closing: ${reason}`,
          );
          this.finish(job);
          return;
        }
        this.logger.warn(
          `Job ${job.name} (${job.id}) failed on attempt ${job.attempt}/${job.attempts}; retry in ${waitMs} ms: ${reason}`,
        );
        job.attempt++;
        this.add(job, waitMs);
      } else {
        this.logger.error(
          `Job ${job.name} (${job.id}) failed after ${job.attempt} attempt(s): ${reason}`,
          error instanceof Error ? error.stack : undefined,
        );
        this.finish(job);
      }
    }
  }

  private finish(job: PendingJob): void {
    if (job.dedupeKey !== undefined) this.unfinishedIds.delete(job.dedupeKey);
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
