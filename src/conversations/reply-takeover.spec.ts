/**
 * Takeover of replies whose server stopped, against a real Redis (REDIS_URL): the claim is won by
 * exactly one server, the stream goes on after a restart frame with the next seq, and a reply
 * taken over MAX_TAKEOVERS times ends with reply_interrupted. (test/faults/takeover.e2e-spec.ts
 * runs the whole thing with kill -9.)
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MAX_TAKEOVERS, RedisReplyStreams } from './redis-reply-streams';
import type { ReplyFrame, TakeoverJob } from './reply-streams';
import { describeWith, NEEDS } from '../../test/support/requirements';

const redisUrl = process.env.REDIS_URL;
// Needs a Redis server: run with REDIS_URL (CI and `npm run test:distributed` set it).
const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

describeWithRedis('reply takeover (Redis)', () => {
  const prefix = `tk${randomBytes(4).toString('hex')}`;
  let raw: Redis;
  const servers: RedisReplyStreams[] = [];

  /** A server whose handler records its jobs; `opened` (when given) says when each taken reply is open again. */
  function server(jobs: TakeoverJob[], slots?: { count: number; opened: (job: TakeoverJob) => Promise<void> }): RedisReplyStreams {
    const s = new RedisReplyStreams(redisUrl!, prefix, {
      runningTtlMs: 60_000,
      endedTtlMs: 10_000,
      maxReplyMs: 30_000,
      quietMs: 0,
      onControl: () => undefined,
      takeover: { accepting: () => true, take: (job) => (jobs.push(job), slots ? slots.opened(job) : true) },
      ...(slots ? { takeoverSlots: slots.count } : {}),
    });
    servers.push(s);
    return s;
  }

  /** A reply written by a server that stopped (no heartbeat): start entry, `deltas` frames, and restarts by earlier takers. */
  async function orphan(replyId: string, deltas: number, restarts = 0): Promise<void> {
    const key = `${prefix}:reply:${replyId}`;
    const spec = JSON.stringify({ query: 'q', vertical: 'hr', startedAt: Date.now() });
    await raw.xadd(key, '0-1', 'k', 'start', 'o', 'visitor', 's', 'gone-server', 't', String(Date.now()), 'q', spec);
    let seq = 0;
    for (let i = 0; i < deltas; i++) await raw.xadd(key, `0-${++seq + 1}`, 'k', 'd', 't', `w${i} `);
    for (let n = 1; n <= restarts; n++) {
      await raw.xadd(key, `0-${++seq + 1}`, 'k', 'restart', 's', `gone-taker-${n}`, 'n', String(n));
      await raw.xadd(key, `0-${++seq + 1}`, 'k', 'd', 't', 'again ');
    }
    await raw.sadd(`${prefix}:replies:running:gone-server`, replyId);
  }

  beforeAll(async () => {
    raw = new Redis(redisUrl!);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    const keys = await raw.keys(`${prefix}:*`);
    if (keys.length) await raw.del(...keys);
    raw.disconnect();
  });

  it('exactly one of two servers wins the claim; its job continues after the last frame', async () => {
    await orphan('r1', 3);
    const jobsB: TakeoverJob[] = [];
    const jobsC: TakeoverJob[] = [];
    const [b, c] = [server(jobsB), server(jobsC)];
    await Promise.all([b.start(), c.start()]);
    const outcomes = await Promise.all([b.takeOver('r1'), c.takeOver('r1')]);
    expect(outcomes.sort()).toEqual(['claimed', 'taken']);
    const jobs = [...jobsB, ...jobsC];
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ replyId: 'r1', visitorKey: 'visitor', restartSeq: 4, attempt: 1 });
    expect(JSON.parse(jobs[0].spec)).toMatchObject({ query: 'q', vertical: 'hr' });
  });

  it('a follower sees the restart frame and the frames written after it', async () => {
    await orphan('r2', 2);
    const jobs: TakeoverJob[] = [];
    const b = server(jobs);
    await b.start();
    const seen: ReplyFrame[] = [];
    const follow = await b.follow('r2', 'visitor', (f) => seen.push(f));
    expect(follow.ok).toBe(true);
    expect(await b.takeOver('r2')).toBe('taken');
    // The claim wrote the restart frame (seq 3); the taker writes the rest.
    b.append('r2', { seq: 4, kind: 'delta', text: 'whole reply' });
    b.append('r2', { seq: 5, kind: 'done', data: { response: 'whole reply' } as never });
    const deadline = Date.now() + 5000;
    while (seen.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(seen.map((f) => `${f.seq}:${f.kind}`)).toEqual(['1:delta', '2:delta', '3:restart', '4:delta', '5:done']);
    // Ended: nothing more to take over, and off the running list of the server that took it.
    expect(await b.takeOver('r2')).toBe('ended');
  });

  it(`a reply already taken over ${MAX_TAKEOVERS} times ends with reply_interrupted (written once)`, async () => {
    await orphan('r3', 2, MAX_TAKEOVERS);
    const jobsB: TakeoverJob[] = [];
    const jobsC: TakeoverJob[] = [];
    const [b, c] = [server(jobsB), server(jobsC)];
    await Promise.all([b.start(), c.start()]);
    const outcomes = await Promise.all([b.takeOver('r3'), c.takeOver('r3')]);
    expect(outcomes.sort()).toEqual(['claimed', 'interrupted']);
    expect([...jobsB, ...jobsC]).toEqual([]);
    const entries = (await raw.xrange(`${prefix}:reply:r3`, '-', '+')) as [string, string[]][];
    const last = entries[entries.length - 1];
    expect(last[0]).toBe(`0-${2 + 2 * MAX_TAKEOVERS + 2}`);
    expect(last[1]).toEqual(expect.arrayContaining(['k', 'error', 'c', 'reply_interrupted']));
  });

  it('a reply whose server is alive, or that started longer ago than any reply runs, is not taken over', async () => {
    await orphan('r4', 1);
    const jobs: TakeoverJob[] = [];
    const b = server(jobs);
    await b.start();
    await raw.set(`${prefix}:replies:server:gone-server`, '1', 'PX', 5000);
    expect(await b.takeOver('r4')).toBe('alive');
    await raw.del(`${prefix}:replies:server:gone-server`);
    const key = `${prefix}:reply:r5`;
    await raw.xadd(key, '0-1', 'k', 'start', 'o', 'visitor', 's', 'gone-server', 't', String(Date.now() - 60_000), 'q', '{}');
    expect(await b.takeOver('r5')).toBe('gone');
    expect(jobs).toEqual([]);
  });

  it('a server opens at most its slots of takeovers at once: the next waits until one is open, or another server claims it; each reply is taken once', async () => {
    const ids = ['s1', 's2', 's3', 's4', 's5', 's6'];
    for (const id of ids) await orphan(id, 2);
    const jobsB: TakeoverJob[] = [];
    const open = new Map<string, () => void>();
    const b = server(jobsB, { count: 2, opened: (job) => new Promise<void>((resolve) => open.set(job.replyId, resolve)) });
    await b.start();
    const outcomes = ids.map((id) => b.takeOver(id));
    const waitFor = async (check: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    await waitFor(() => jobsB.length >= 2);
    // Two taken, neither open yet: the others wait (nothing more claimed by this server).
    await new Promise((r) => setTimeout(r, 300));
    expect(jobsB).toHaveLength(2);
    // Another server with room claims two of the waiting ones meanwhile.
    const jobsC: TakeoverJob[] = [];
    const c = server(jobsC);
    await c.start();
    const waiting = ids.filter((id) => !jobsB.some((j) => j.replyId === id));
    expect(await c.takeOver(waiting[0])).toBe('taken');
    expect(await c.takeOver(waiting[1])).toBe('taken');
    // One of B's replies opens: its slot goes to the next; then the other.
    open.get(jobsB[0].replyId)!();
    await waitFor(() => jobsB.length >= 3);
    expect(jobsB).toHaveLength(3);
    open.get(jobsB[1].replyId)!();
    await waitFor(() => jobsB.length >= 4);
    for (const job of jobsB) open.get(job.replyId)?.();
    const results = await Promise.all(outcomes);
    // Each reply taken exactly once, by one server or the other; B found C's two already claimed.
    const taken = [...jobsB, ...jobsC].map((j) => j.replyId).sort();
    expect(taken).toEqual([...ids].sort());
    expect(results.filter((o) => o === 'taken')).toHaveLength(4);
    expect(results.filter((o) => o !== 'taken').sort()).toEqual(['alive', 'alive']);
  });
});
