/**
 * Idle keep-alive connections: the app keeps them longer than the load balancer in front of it
 * (deploy/nginx's upstream keepalive_timeout), so nginx is the side that closes one. Were the app
 * first (Node's default: 5 s idle), a request nginx sends on a connection the app is closing
 * fails and is retried on another app, where a long-polling request's session does not exist.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { KEEP_ALIVE_TIMEOUT_MS } from '../src/app.factory';
import { startTestApp, TestApp } from './support/test-app';

describe('keep-alive behind a load balancer', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
  });

  afterAll(async () => {
    await t?.close();
  });

  it("nginx's upstream keepalive_timeout is shorter than the app's", () => {
    const template = fs.readFileSync(path.join(__dirname, '../deploy/nginx/support-assistant.conf.template'), 'utf8');
    const seconds = Number(/^\s*keepalive_timeout\s+(\d+)s;/m.exec(template)?.[1]);
    expect(seconds * 1000).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS);
  });

  it('a connection idle for longer than Node\'s default 5 s still carries the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = http.get(`${t.url}/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('error', reject);
      });
    try {
      const first = await get();
      await new Promise((r) => setTimeout(r, 6000));
      const second = await get();
      expect([first.status, second.status]).toEqual([200, 200]);
      // The same connection: the server did not close it while idle.
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  }, 15_000);
});
