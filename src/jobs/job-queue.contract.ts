/**
 * The one contract both job queue adapters pass (run from job-queue.spec.ts). Timings are short
 * (backoff 20 ms, delays of a few hundred ms) so the suite runs in seconds; time assertions
 * allow a margin for timer and Redis latency.
 */
import { Logger } from '@nestjs/common';
import { JobQueue } from './job-queue';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

interface Run<T = unknown> {
  data: T;
  attempt: number;
  jobId: string;
  at: number;
}

export function describeJobQueueContract(name: string, makeQueue: () => Promise<JobQueue>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let queue: JobQueue;
    let logs: string[];

    beforeEach(async () => {
      logs = [];
      // Capture (and silence) the adapters' log lines: failures must be logged, without job data.
      for (const level of ['log', 'warn', 'error'] as const) {
        jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
          logs.push(args.map(String).join(' '));
        });
      }
      queue = await makeQueue();
    });

    afterEach(async () => {
      await queue.close();
      jest.restoreAllMocks();
    });

    function recorder<T>(fail: (run: Run<T>) => boolean = () => false) {
      const runs: Array<Run<T>> = [];
      const handler = async (data: T, meta: { attempt: number; jobId: string }) => {
        const run = { data, ...meta, at: Date.now() };
        runs.push(run);
        if (fail(run)) throw new Error(`planned failure on attempt ${meta.attempt}`);
      };
      return { runs, handler };
    }

    it('runs a job with its data', async () => {
      const { runs, handler } = recorder<{ to: string; n: number }>();
      queue.register('contract-echo', handler);
      await queue.start();
      expect(await queue.isHealthy()).toBe(true);
      await queue.enqueue('contract-echo', { to: 'a@example.com', n: 1 });
      await waitFor(() => runs.length === 1, 5000, 'the job');
      expect(runs[0].data).toEqual({ to: 'a@example.com', n: 1 });
      expect(runs[0].attempt).toBe(1);
      expect(typeof runs[0].jobId).toBe('string');
      expect(runs[0].jobId.length).toBeGreaterThan(0);
    });

    it('rejects a job whose name has no handler', async () => {
      await queue.start();
      await expect(queue.enqueue('contract-nobody', {})).rejects.toThrow(/contract-nobody/);
    });

    it('retries a failing job until it succeeds, with attempts 1..n and exponential backoff', async () => {
      const { runs, handler } = recorder<{ id: number }>((run) => run.attempt < 3);
      queue.register('contract-flaky', handler);
      await queue.start();
      await queue.enqueue('contract-flaky', { id: 7 }, { attempts: 5, backoffMs: 40 });
      await waitFor(() => runs.length === 3, 5000, 'three attempts');
      await sleep(150);
      expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
      expect(runs.every((r) => r.data.id === 7)).toBe(true);
      expect(new Set(runs.map((r) => r.jobId)).size).toBe(1);
      // backoff 40 ms then 80 ms (timers may fire a little early).
      expect(runs[1].at - runs[0].at).toBeGreaterThanOrEqual(30);
      expect(runs[2].at - runs[1].at).toBeGreaterThanOrEqual(70);
    });

    it('stops after `attempts` when every attempt fails, and logs the failure without the job data', async () => {
      const { runs, handler } = recorder<{ code: string }>(() => true);
      queue.register('contract-doomed', handler);
      await queue.start();
      await queue.enqueue('contract-doomed', { code: 'SECRET-123456' }, { attempts: 3, backoffMs: 20 });
      await waitFor(() => runs.length === 3, 5000, 'three attempts');
      await waitFor(() => logs.some((l) => /failed after 3 attempt/.test(l)), 2000, 'the final failure log');
      await sleep(150);
      expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
      expect(logs.some((l) => l.includes('contract-doomed'))).toBe(true);
      expect(logs.join('\n')).not.toContain('SECRET-123456');
    });

    it('honours delayMs', async () => {
      const { runs, handler } = recorder<string>();
      queue.register('contract-later', handler);
      await queue.start();
      const enqueuedAt = Date.now();
      await queue.enqueue('contract-later', 'x', { delayMs: 300 });
      await sleep(150);
      expect(runs).toHaveLength(0);
      await waitFor(() => runs.length === 1, 5000, 'the delayed job');
      expect(runs[0].at - enqueuedAt).toBeGreaterThanOrEqual(260);
    });

    it('does not enqueue a job twice while one with the same jobId is waiting', async () => {
      const { runs, handler } = recorder<number>();
      queue.register('contract-dedupe', handler);
      await queue.start();
      await queue.enqueue('contract-dedupe', 1, { jobId: 'otp:a@example.com', delayMs: 200 });
      await queue.enqueue('contract-dedupe', 2, { jobId: 'otp:a@example.com', delayMs: 200 });
      await queue.enqueue('contract-dedupe', 3, { jobId: 'otp:b@example.com', delayMs: 200 });
      await waitFor(() => runs.length === 2, 5000, 'two jobs');
      await sleep(100);
      expect(runs.map((r) => r.data).sort()).toEqual([1, 3]);
      expect(runs.map((r) => r.jobId).sort()).toEqual(['otp:a@example.com', 'otp:b@example.com']);
      // Once the job has finished, the id can be used again.
      await queue.enqueue('contract-dedupe', 4, { jobId: 'otp:a@example.com' });
      await waitFor(() => runs.length === 3, 5000, 'the job with a reused id');
      expect(runs[2].data).toBe(4);
    });

    it('repeats a job several times and stops after close', async () => {
      const { runs, handler } = recorder<{ kind: string }>();
      queue.register('contract-tick', handler);
      await queue.repeat('contract-tick', 100, { kind: 'rollup' });
      await queue.start();
      await waitFor(() => runs.length >= 3, 5000, 'three ticks');
      expect(runs.every((r) => r.data.kind === 'rollup')).toBe(true);
      await queue.close();
      const afterClose = runs.length;
      await sleep(300);
      expect(runs.length).toBe(afterClose);
    });

    it('runs jobs of a name one at a time with concurrency 1', async () => {
      let active = 0;
      let maxActive = 0;
      let done = 0;
      queue.register('contract-serial', async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(50);
        active--;
        done++;
      });
      await queue.start();
      for (let i = 0; i < 4; i++) await queue.enqueue('contract-serial', i);
      await waitFor(() => done === 4, 5000, 'four jobs');
      expect(maxActive).toBe(1);
    });

    it('runs up to `concurrency` jobs of a name at once', async () => {
      let active = 0;
      let maxActive = 0;
      let done = 0;
      queue.register(
        'contract-parallel',
        async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(100);
          active--;
          done++;
        },
        { concurrency: 2 },
      );
      await queue.start();
      for (let i = 0; i < 4; i++) await queue.enqueue('contract-parallel', i);
      await waitFor(() => done === 4, 5000, 'four jobs');
      expect(maxActive).toBe(2);
    });

    it('close waits for a running job to finish', async () => {
      let started = false;
      let finished = false;
      queue.register('contract-slow', async () => {
        started = true;
        await sleep(200);
        finished = true;
      });
      await queue.start();
      await queue.enqueue('contract-slow', {});
      await waitFor(() => started, 5000, 'the job to start');
      await queue.close();
      expect(finished).toBe(true);
      expect(await queue.isHealthy()).toBe(false);
      await expect(queue.enqueue('contract-slow', {})).rejects.toThrow(/closed/);
    });
  });
}
