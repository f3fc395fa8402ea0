import { isCrossOrigin } from './origin-check';

describe('isCrossOrigin', () => {
  const host = { proto: 'http' as const, host: 'admin.example.com:3000' };

  it.each([
    [{ origin: 'http://admin.example.com:3000' }, false],
    [{ origin: 'https://admin.example.com:3000' }, true], // the scheme counts too (X-Forwarded-Proto from a trusted proxy says https)
    [{ origin: 'https://evil.example' }, true],
    [{ origin: 'http://admin.example.com:3001' }, true],
    [{ origin: 'null' }, true],
    [{ origin: 'not a url' }, true],
    [{ 'sec-fetch-site': 'cross-site' }, true],
    [{ 'sec-fetch-site': 'same-site' }, true],
    [{ 'sec-fetch-site': 'same-origin' }, false],
    [{ 'sec-fetch-site': 'none' }, false],
    [{ origin: 'http://admin.example.com:3000', 'sec-fetch-site': 'cross-site' }, true],
    [{}, false], // curl and server-to-server calls carry neither header
  ])('%j -> %s', (headers, expected) => {
    expect(isCrossOrigin(headers, host, [])).toBe(expected);
  });

  it('compares the scheme as well as the host, default ports included', () => {
    expect(isCrossOrigin({ origin: 'https://admin.example.com' }, { proto: 'https', host: 'admin.example.com:443' }, [])).toBe(false);
    expect(isCrossOrigin({ origin: 'http://admin.example.com' }, { proto: 'https', host: 'admin.example.com' }, [])).toBe(true);
    expect(isCrossOrigin({ origin: 'https://admin.example.com' }, { proto: 'http', host: 'admin.example.com' }, [])).toBe(true);
    expect(isCrossOrigin({ origin: 'https://admin.example.com' }, { proto: 'https', host: undefined }, [])).toBe(true);
  });

  it('trusts the origins of CORS_ORIGINS (never "*")', () => {
    expect(isCrossOrigin({ origin: 'https://console.example', 'sec-fetch-site': 'cross-site' }, host, ['https://console.example'])).toBe(false);
    expect(isCrossOrigin({ origin: 'https://evil.example' }, host, ['*'])).toBe(true);
  });
});
