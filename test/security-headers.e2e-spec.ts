/**
 * Every response carries the browser security headers (Content-Security-Policy with
 * frame-ancestors, nosniff, the referrer policy): the chat page, the console page, a static file,
 * an API route, an API error, /health. allowFraming changes frame-ancestors for one response only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { allowFraming, DEFAULT_CSP, formatCsp } from '../src/common/security-headers';
import { startTestApp, type TestApp } from './support/test-app';

function directives(header: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (header ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out[name] = sources;
  }
  return out;
}

function expectSecure(res: request.Response): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
  const csp = directives(res.headers['content-security-policy']);
  expect(csp['default-src']).toEqual(["'self'"]);
  // No inline script, no eval, no script or image from another site.
  expect(csp['script-src']).toEqual(["'self'"]);
  expect(csp['img-src']).toEqual(["'self'", 'data:']);
  expect(csp['connect-src']).toEqual(["'self'"]);
  expect(csp['object-src']).toEqual(["'none'"]);
  expect(csp['frame-ancestors']).toEqual(["'self'"]);
}

describe('security headers on every response', () => {
  let t: TestApp;
  let clientDir: string;

  beforeAll(async () => {
    clientDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-client-'));
    fs.mkdirSync(path.join(clientDir, 'assets'));
    fs.writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>x</title><div id="root"></div>');
    fs.writeFileSync(path.join(clientDir, 'assets', 'index-abc.js'), 'console.log(1);');
    t = await startTestApp({ clientDir });
  });

  afterAll(async () => {
    await t?.close();
    fs.rmSync(clientDir, { recursive: true, force: true });
  });

  it.each([
    ['the chat page', '/', 200],
    ['the console page', '/admin', 200],
    ['a static asset', '/assets/index-abc.js', 200],
    ['a public API route', '/api/public/settings', 200],
    ['an admin API route without a session', '/api/knowledge', 401],
    ['an unknown API route', '/api/no-such-route', 404],
    ['the health check', '/health', 200],
    ['the API reference', '/api/docs', 200],
  ])('%s (%s) has them', async (_name, url, status) => {
    const res = await request(t.url).get(url).set('Accept', url === '/' || url === '/admin' ? 'text/html' : '*/*');
    expect(res.status).toBe(status);
    expectSecure(res);
  });

  it('a bad request body (400) has them too', async () => {
    const res = await request(t.url).post('/interact').set('Content-Type', 'application/json').send('{');
    expect(res.status).toBe(400);
    expectSecure(res);
  });

  describe('allowFraming', () => {
    function fakeResponse() {
      const headers: Record<string, string> = {};
      return { locals: {}, setHeader: (name: string, value: string) => (headers[name] = value), headers } as never as { headers: Record<string, string> } & Parameters<typeof allowFraming>[0];
    }

    it('replaces frame-ancestors only, keeping every other directive', () => {
      const res = fakeResponse();
      allowFraming(res, ['https://shop.example', 'https://*.partner.example:8443']);
      const csp = directives(res.headers['Content-Security-Policy']);
      expect(csp['frame-ancestors']).toEqual(["'self'", 'https://shop.example', 'https://*.partner.example:8443']);
      expect({ ...csp, 'frame-ancestors': DEFAULT_CSP['frame-ancestors'] }).toEqual(directives(formatCsp({ ...DEFAULT_CSP })));
    });

    it.each(["https://shop.example; script-src *", 'https://shop.example/path', '*', "'unsafe-inline'", 'javascript:x'])('refuses %j', (origin) => {
      expect(() => allowFraming(fakeResponse(), [origin])).toThrow(/Not an origin/);
    });
  });
});
