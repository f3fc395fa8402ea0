/**
 * The address check is tested on addresses alone, and with a fake resolver for names, so no test
 * resolves a real name or opens a connection off 127.0.0.0/8. The fetches go to a local server on
 * 127.0.0.1, which the tests allow explicitly.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { assertPublicAddress, checkUrl, classifyAddress, parseAllowList, type Resolver, SafeFetchError } from './address-check';
import { safeFetch } from './safe-fetch';
import { loadConfig } from '../config/app-config';

async function refusal(promise: Promise<unknown>): Promise<SafeFetchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SafeFetchError) return error;
    throw error;
  }
  throw new Error('expected a SafeFetchError');
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['1.1.1.1', 'public'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['169.254.0.1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['fd00:ec2::254', 'metadata'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:0808:0808::1', 'public'],
    ['[::1]', 'loopback'],
    ['not an ip', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('assertPublicAddress', () => {
  it('refuses a private address with a message naming the kind', () => {
    expect(() => assertPublicAddress('10.0.0.5')).toThrow(/10\.0\.0\.5 is a private address/);
    expect(() => assertPublicAddress('169.254.169.254')).toThrow(/cloud metadata/);
  });

  it('accepts what the allow-list names, and nothing next to it', () => {
    const allow = parseAllowList(['127.0.0.1', '10.1.0.0/16', 'intranet.example']);
    expect(() => assertPublicAddress('127.0.0.1', { allow })).not.toThrow();
    expect(() => assertPublicAddress('::ffff:127.0.0.1', { allow })).not.toThrow();
    expect(() => assertPublicAddress('127.0.0.2', { allow })).toThrow(SafeFetchError);
    expect(() => assertPublicAddress('10.1.200.3', { allow })).not.toThrow();
    expect(() => assertPublicAddress('10.2.0.1', { allow })).toThrow(SafeFetchError);
    expect(() => assertPublicAddress('192.168.0.9', { allow, hostname: 'intranet.example' })).not.toThrow();
    expect(() => assertPublicAddress('192.168.0.9', { allow, hostname: 'other.example' })).toThrow(SafeFetchError);
    // A host name on the list does not open the metadata endpoint; only its address named would.
    expect(() => assertPublicAddress('169.254.169.254', { allow, hostname: 'intranet.example' })).toThrow(/metadata/);
  });

  it('refuses an allow-list entry that is no address, range or name', () => {
    expect(() => parseAllowList(['10.0.0.0/40'])).toThrow(/10\.0\.0\.0\/40/);
    expect(() => parseAllowList(['http://x'])).toThrow(/not an IP address/);
    expect(() => loadConfig({ FETCH_ALLOW_PRIVATE: '127.0.0.1, bad/range' })).toThrow(/FETCH_ALLOW_PRIVATE has an entry .* "bad\/range"/);
    expect(loadConfig({ FETCH_ALLOW_PRIVATE: '127.0.0.1, ::1/128' }).fetchAllowPrivate).toEqual(['127.0.0.1', '::1/128']);
  });
});

describe('checkUrl', () => {
  const names: Record<string, string[]> = {
    'public.test': ['93.184.216.34'],
    'inside.test': ['10.0.0.7'],
    'mixed.test': ['93.184.216.34', '192.168.0.1'],
    'v6.test': ['fd00::1'],
    'meta.test': ['169.254.169.254'],
  };
  const resolver: Resolver = async (host) => {
    const found = names[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  it('accepts a name that resolves to public addresses only', async () => {
    const checked = await checkUrl('https://public.test/help', { resolver });
    expect(checked.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    expect(checked.port).toBe(443);
  });

  it.each([
    ['http://inside.test/', /inside\.test resolves to 10\.0\.0\.7, a private address/],
    ['http://mixed.test/', /192\.168\.0\.1/],
    ['http://v6.test/', /fd00::1, a private address/],
    ['http://meta.test/latest/meta-data', /cloud metadata/],
    ['http://127.0.0.1:8080/', /loopback/],
    ['http://[::1]/', /loopback/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://0x7f.0.0.1/', /loopback/],
    ['http://0/', /unspecified/],
    ['http://169.254.169.254/', /metadata/],
  ])('refuses %s', async (url, message) => {
    const error = await refusal(checkUrl(url, { resolver }));
    expect(error.code).toBe('address_refused');
    expect(error.message).toMatch(message);
  });

  it.each([
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['ftp://public.test/x', 'scheme_not_allowed'],
    ['gopher://public.test/', 'scheme_not_allowed'],
    ['javascript:alert(1)', 'scheme_not_allowed'],
    ['not a url', 'invalid_url'],
    ['http://nowhere.test/', 'dns_failed'],
  ])('refuses %s with %s', async (url, code) => {
    expect((await refusal(checkUrl(url, { resolver }))).code).toBe(code);
  });
});

describe('safeFetch', () => {
  let server: http.Server;
  let port: number;
  let hits: string[];
  const allow = ['127.0.0.1'];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.headers.host} ${req.url}`);
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/ok') {
        res.setHeader('content-type', 'text/plain');
        res.end('hello');
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/ok' });
        res.end();
      } else if (url.pathname === '/loop') {
        res.writeHead(301, { location: '/loop' });
        res.end();
      } else if (url.pathname === '/big') {
        res.setHeader('content-length', String(6 * 1024 * 1024));
        res.end(Buffer.alloc(6 * 1024 * 1024, 97));
      } else if (url.pathname === '/big-chunked') {
        const piece = Buffer.alloc(64 * 1024, 98);
        let sent = 0;
        const push = () => {
          while (sent < 100 && res.write(piece)) sent++;
          if (sent < 100) res.once('drain', push);
          else res.end();
        };
        res.on('close', () => (sent = 100));
        push();
      } else if (url.pathname === '/bomb') {
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024)));
      } else if (url.pathname === '/gzip') {
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync(Buffer.from('compressed hello')));
      } else if (url.pathname === '/slow') {
        // Never answers: the fetch's deadline has to end it.
      } else if (url.pathname === '/echo') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => res.end(`${req.method}:${body}:${req.headers['x-secret'] ?? ''}`));
      } else {
        res.statusCode = 404;
        res.end('missing');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => (hits = []));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const base = () => `http://127.0.0.1:${port}`;

  it('fetches from an allowed address and reports status, headers and body', async () => {
    const response = await safeFetch(`${base()}/ok`, { allow });
    expect(response.status).toBe(200);
    expect(response.text()).toBe('hello');
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.address).toBe('127.0.0.1');
  });

  it('refuses the loopback address when the allow-list does not name it, before connecting', async () => {
    const error = await refusal(safeFetch(`${base()}/ok`));
    expect(error.code).toBe('address_refused');
    expect(hits).toEqual([]);
  });

  it('returns a 404 as a response, not an error', async () => {
    const response = await safeFetch(`${base()}/nothing`, { allow });
    expect(response.status).toBe(404);
  });

  it('follows a redirect and checks its target', async () => {
    const response = await safeFetch(`${base()}/redirect?to=/ok`, { allow });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base()}/ok`);
    expect(response.redirects).toEqual([`${base()}/ok`]);
  });

  it('refuses a redirect from an allowed host to an address that is not allowed, without connecting to it', async () => {
    const error = await refusal(safeFetch(`${base()}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/ok`)}`, { allow }));
    expect(error.code).toBe('address_refused');
    expect(error.message).toMatch(/127\.0\.0\.2 is a loopback address/);
    expect(hits).toHaveLength(1);
  });

  it('refuses a redirect to a name that resolves privately, and to another scheme', async () => {
    const resolver: Resolver = async () => [{ address: '10.0.0.9', family: 4 }];
    const named = await refusal(safeFetch(`${base()}/redirect?to=${encodeURIComponent('http://internal.test/admin')}`, { allow, resolver }));
    expect(named.code).toBe('address_refused');
    expect(named.message).toMatch(/internal\.test resolves to 10\.0\.0\.9/);
    const scheme = await refusal(safeFetch(`${base()}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, { allow }));
    expect(scheme.code).toBe('scheme_not_allowed');
  });

  it('stops after the redirect cap', async () => {
    const error = await refusal(safeFetch(`${base()}/loop`, { allow, maxRedirects: 3 }));
    expect(error.code).toBe('too_many_redirects');
    expect(hits).toHaveLength(4);
  });

  it('resolves a name once and connects to the address it checked', async () => {
    let lookups = 0;
    // A rebinding resolver: public-looking first, then loopback. Only the first answer may be used.
    const resolver: Resolver = async () => {
      lookups++;
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
    };
    const response = await safeFetch(`http://help.test:${port}/ok`, { allow, resolver });
    expect(response.text()).toBe('hello');
    expect(lookups).toBe(1);
    expect(hits).toEqual([`GET help.test:${port} /ok`]);
  });

  it('refuses a body over the size cap, announced or streamed', async () => {
    expect((await refusal(safeFetch(`${base()}/big`, { allow }))).code).toBe('too_large');
    const streamed = await refusal(safeFetch(`${base()}/big-chunked`, { allow, maxBytes: 1024 * 1024 }));
    expect(streamed.code).toBe('too_large');
    expect(streamed.message).toMatch(/larger than 1 MB/);
  });

  it('caps the decompressed size, so a small gzip cannot expand past it', async () => {
    expect((await refusal(safeFetch(`${base()}/bomb`, { allow }))).code).toBe('too_large');
    expect((await safeFetch(`${base()}/gzip`, { allow })).text()).toBe('compressed hello');
  });

  it('gives up at the deadline', async () => {
    const started = Date.now();
    const error = await refusal(safeFetch(`${base()}/slow`, { allow, timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('can be stopped by the caller', async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${base()}/slow`, { allow, signal: controller.signal });
    setImmediate(() => controller.abort());
    expect((await refusal(pending)).code).toBe('aborted');
  });

  it('posts a body, turns it into a GET on a 303 and drops credentials on another origin', async () => {
    const posted = await safeFetch(`${base()}/echo`, { allow, method: 'POST', body: 'payload', headers: { 'X-Secret': 's' } });
    expect(posted.text()).toBe('POST:payload:s');
    const allowBoth = ['127.0.0.1', 'localhost'];
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const moved = await safeFetch(`${base()}/redirect?to=${encodeURIComponent(`http://localhost:${port}/echo`)}`, {
      allow: allowBoth,
      resolver,
      method: 'POST',
      body: 'payload',
      headers: { Authorization: 'Bearer t' },
    });
    expect(moved.text()).toBe('GET::');
  });

  it('refuses a connection that fails with connection_failed', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect((await refusal(safeFetch(`http://127.0.0.1:${freePort}/`, { allow }))).code).toBe('connection_failed');
  });
});
