/**
 * Every chat socket gets a `health` push when it connects. A burst of connections (the visitors
 * of a server that died, reconnecting to this one) shares one computation of it: the database
 * checks and the per-agent usage query run once for the burst, not once per socket, while every
 * socket still gets its push; the periodic push is always computed afresh.
 */
import type { HealthPush } from '../src/shared/contracts/socket';
import { connectClient, startTestApp, type ClientSocket, type TestApp } from './support/test-app';

const AGENT_USAGE_QUERY = /FROM usage_events\s+WHERE created_at >= \S+\s+GROUP BY agent_id/;

describe('the health push of new chat sockets', () => {
  let t: TestApp;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    t = await startTestApp({ healthIntervalMs: 1500 });
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t?.close();
  });

  it('is computed once for a burst of 40 connections, and every socket gets it', async () => {
    const query = jest.spyOn(t.dataSource, 'query');
    try {
      const pushes = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const socket = await connectClient(t.url);
          sockets.push(socket);
          return new Promise<HealthPush>((resolve) => socket.once('health', resolve));
        }),
      );
      expect(pushes.every((p) => p.status === 'healthy')).toBe(true);
      const usageQueries = query.mock.calls.filter(([sql]) => AGENT_USAGE_QUERY.test(String(sql))).length;
      // One computation (a second when the burst straddles the reuse window), not 40.
      expect(usageQueries).toBeGreaterThanOrEqual(1);
      expect(usageQueries).toBeLessThanOrEqual(2);

      // The periodic push (every 1.5 s here) recomputes: a new usage query, a new timestamp.
      const before = query.mock.calls.filter(([sql]) => AGENT_USAGE_QUERY.test(String(sql))).length;
      const periodic = await new Promise<HealthPush>((resolve) => sockets[0].once('health', resolve));
      expect(Date.parse(periodic.timestamp)).toBeGreaterThan(Date.parse(pushes[0].timestamp));
      expect(query.mock.calls.filter(([sql]) => AGENT_USAGE_QUERY.test(String(sql))).length).toBeGreaterThan(before);
    } finally {
      query.mockRestore();
    }
  });
});
