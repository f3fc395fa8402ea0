/**
 * The job port. Features register named handlers and enqueue work; the embedded mode runs jobs
 * in process, the distributed mode (REDIS_URL) runs them on BullMQ. Both adapters pass the same
 * contract suite (job-queue.contract.ts).
 */
export interface EnqueueOptions {
  /** Total tries including the first (default 1). */
  attempts?: number;
  /** Base delay of the exponential backoff between tries, in ms (default 1000). */
  backoffMs?: number;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /** A job with the same id that is still waiting is not enqueued twice. */
  jobId?: string;
}

export type JobHandler<T = unknown> = (data: T, meta: { attempt: number; jobId: string }) => Promise<void>;

export interface JobQueue {
  /** Register the handler for a job name. Must be called before jobs of that name are enqueued. */
  register<T>(name: string, handler: JobHandler<T>, options?: { concurrency?: number }): void;
  enqueue<T>(name: string, data: T, options?: EnqueueOptions): Promise<void>;
  /** Run `name` every `everyMs`; with several servers, each tick runs once in all. */
  repeat<T>(name: string, everyMs: number, data: T): Promise<void>;
  /** Start processing (after all handlers are registered). */
  start(): Promise<void>;
  /** Stop taking jobs, let running ones finish, release connections. */
  close(): Promise<void>;
  readonly kind: 'in-process' | 'bullmq';
  /** true when the backend can take jobs now (health). */
  isHealthy(): Promise<boolean>;
}

export const JOB_QUEUE = Symbol('JOB_QUEUE');
