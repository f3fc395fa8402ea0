import request from 'supertest';
import { chatOverSocket, connectClient, startTestApp, TestApp } from './support/test-app';

describe('health', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close().catch(() => undefined);
  });

  it('GET /health reports ok with database and queue status', async () => {
    const res = await request(t.url).get('/health').expect(200);
    expect(res.body).toMatchObject({ success: true, ok: true, status: 'healthy' });
    expect(res.body.data.database).toEqual({ ok: true, driver: t.config.databaseUrl ? 'postgres' : 'sqlite' });
    expect(res.body.data.queue).toEqual({ ok: true, kind: t.config.redisUrl ? 'bullmq' : 'in-process' });
  });

  it('GET /agents/health reports each agent from its real recent calls', async () => {
    const before = await request(t.url).get('/agents/health').expect(200);
    expect(before.body.success).toBe(true);
    const ids = before.body.data.agents.map((a: { id: string }) => a.id);
    expect(ids).toEqual(['universal-agent', 'customer-service-agent', 'hr-agent', 'legal-agent', 'sales-agent']);
    const sales = () => before.body.data.agents.find((a: { id: string }) => a.id === 'sales-agent');
    expect(sales()).toMatchObject({ healthy: true, lastActive: null, recentRequests: 0 });

    const socket = await connectClient(t.url);
    await chatOverSocket(socket, { vertical: 'sales', query: 'How do I handle a price objection?' });
    socket.close();
    const after = await (async () => {
      for (let i = 0; i < 100; i += 1) {
        const res = await request(t.url).get('/agents/health');
        const agent = res.body.data.agents.find((a: { id: string }) => a.id === 'sales-agent');
        if (agent.recentRequests > 0) return agent;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('usage never reached agent health');
    })();
    expect(after.recentRequests).toBe(1);
    expect(Date.now() - Date.parse(after.lastActive)).toBeLessThan(10000);
    expect(after.healthy).toBe(true);
  });

  it('GET /health answers 503 when the database is unreachable', async () => {
    await t.dataSource.destroy();
    const res = await request(t.url).get('/health').expect(503);
    expect(res.body).toMatchObject({ success: false, ok: false, status: 'unhealthy' });
    expect(res.body.data.database.ok).toBe(false);
  });
});
