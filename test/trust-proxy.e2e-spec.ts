/**
 * Forwarding headers count only from a proxy TRUST_PROXY names. By default
 * nobody's do: a client cannot pick its own IP (and so escape the per-IP limits) with
 * X-Forwarded-For, nor its host for the /admin handshake with X-Forwarded-Host; and the origin
 * check compares the scheme as well as the host.
 */
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import type { AppConfig } from '../src/config/app-config';
import { adminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

const PASSWORD = 'a long enough password';

async function withApp(overrides: Partial<AppConfig>, body: (t: TestApp) => Promise<void>): Promise<void> {
  const t = await startTestApp({ adminEmail: 'proxy@example.com', adminPassword: PASSWORD, seedSampleKnowledge: false, ...overrides });
  try {
    await body(t);
  } finally {
    await t.close();
  }
}

/** check-methods 4 times with the given X-Forwarded-For values; the statuses. */
async function signInRequests(t: TestApp, forwardedFor: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const value of forwardedFor) {
    statuses.push((await request(t.url).post('/api/auth/check-methods').set('X-Forwarded-For', value).send({ email: 'proxy@example.com' })).status);
  }
  return statuses;
}

function handshake(t: TestApp, headers: Record<string, string>): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket: Socket = io(`${t.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: headers });
    socket.once('connect', () => {
      socket.close();
      resolve('connected');
    });
    socket.once('connect_error', (error: Error & { data?: { code?: string } }) => {
      socket.close();
      resolve(error.data?.code ?? error.message);
    });
  });
}

describe('TRUST_PROXY unset (the default)', () => {
  it('counts every request of a client under its own address whatever X-Forwarded-For it sends', async () => {
    await withApp({ signInIpLimit: 3 }, async (t) => {
      expect(await signInRequests(t, ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'])).toEqual([200, 200, 200, 429]);
    });
  });

  it('refuses an /admin handshake whose Origin matches only a forged X-Forwarded-Host', async () => {
    await withApp({}, async (t) => {
      const admin = await adminAgent(t);
      const cookie = (await admin.post('/api/auth/refresh').expect(200)).headers['set-cookie'][0].split(';')[0];
      expect(await handshake(t, { Cookie: cookie, Origin: t.url })).toBe('connected');
      expect(await handshake(t, { Cookie: cookie, Origin: 'https://evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' })).toBe('forbidden');
    });
  });

  it('treats an Origin with this host but another scheme as another origin', async () => {
    await withApp({}, async (t) => {
      const host = new URL(t.url).host;
      const res = await request(t.url).post('/api/auth/check-methods').set('Origin', `https://${host}`).send({ email: 'proxy@example.com' });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'forbidden', message: 'Cross-origin requests to the admin API are not allowed' });
      await request(t.url).post('/api/auth/check-methods').set('Origin', `http://${host}`).send({ email: 'proxy@example.com' }).expect(200);
    });
  });
});

describe('TRUST_PROXY=loopback (behind a proxy on this machine)', () => {
  it('takes the client IP from X-Forwarded-For, but never a value that is not an IP', async () => {
    await withApp({ signInIpLimit: 3, trustProxy: ['loopback'] }, async (t) => {
      // Four different clients behind the proxy: none is limited by the others.
      expect(await signInRequests(t, ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'])).toEqual([200, 200, 200, 200]);
      // Junk in the header is not an address: these all count as the proxy's own.
      expect(await signInRequests(t, ['junk-1', 'junk-2', 'junk-3', 'junk-4'])).toEqual([200, 200, 200, 429]);
    });
  });

  it('accepts the /admin handshake and same-origin requests for the host and scheme the proxy forwards', async () => {
    await withApp({ trustProxy: ['loopback'] }, async (t) => {
      const admin = await adminAgent(t);
      const cookie = (await admin.post('/api/auth/refresh').expect(200)).headers['set-cookie'][0].split(';')[0];
      const forwarded = { 'X-Forwarded-Host': 'support.example.com', 'X-Forwarded-Proto': 'https' };
      expect(await handshake(t, { Cookie: cookie, Origin: 'https://support.example.com', ...forwarded })).toBe('connected');
      expect(await handshake(t, { Cookie: cookie, Origin: 'http://support.example.com', ...forwarded })).toBe('forbidden');
      await request(t.url).post('/api/auth/check-methods').set(forwarded).set('Origin', 'https://support.example.com').send({ email: 'proxy@example.com' }).expect(200);
    });
  });
});
