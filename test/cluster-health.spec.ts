/**
 * `npm run cluster`'s active health check (deploy/cluster.ts) against real HTTP servers: an app
 * that refuses the connection or drains is out of nginx at the first poll; one that only answers
 * late (busy) stays in until HEALTH_MISSES_DOWN polls in a row went unanswered.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEALTH_MISSES_DOWN, nextHealth, probeHealth, type HealthOutcome } from '../deploy/cluster';

function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
      });
    }),
  );
}

describe('cluster health check', () => {
  it('tells an answering, a draining, a busy and a gone app apart', async () => {
    const ok = await serve((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    const draining = await serve((_, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"draining"}'));
    const databaseDown = await serve((_, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"status":"degraded"}'));
    // Busy: answers after the poll gave up.
    const busy = await serve((_, res) => void setTimeout(() => res.writeHead(200).end('{}'), 1500));
    const gone = await serve(() => undefined);
    await gone.close();
    try {
      expect(await probeHealth(ok.url, 500)).toBe('ok');
      expect(await probeHealth(draining.url, 500)).toBe('draining');
      // The same on every server: routing goes on (the app's own 503 beats nginx's 502).
      expect(await probeHealth(databaseDown.url, 500)).toBe('ok');
      expect(await probeHealth(busy.url, 300)).toBe('late');
      expect(await probeHealth(gone.url, 500)).toBe('refused');
    } finally {
      await Promise.all([ok, draining, databaseDown, busy].map((s) => s.close()));
    }
  });

  it(`a busy app stays in nginx until ${HEALTH_MISSES_DOWN} polls in a row went unanswered; a gone or draining one is out at once`, () => {
    const run = (outcomes: HealthOutcome[]) => {
      let state = { up: true, misses: 0 };
      return outcomes.map((o) => (state = nextHealth(state, o)).up);
    };
    const late = Array.from({ length: HEALTH_MISSES_DOWN }, () => 'late' as const);
    expect(run(late)).toEqual([...late.slice(1).map(() => true), false]);
    // An answer in between starts the count again.
    expect(run([...late.slice(1), 'ok', ...late.slice(1)]).every(Boolean)).toBe(true);
    expect(run(['refused'])).toEqual([false]);
    expect(run(['draining'])).toEqual([false]);
    // Out, it comes back with its first answer, not with late polls.
    expect(run(['refused', 'late', 'ok'])).toEqual([false, false, true]);
  });
});
