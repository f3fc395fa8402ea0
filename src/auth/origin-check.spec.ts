import { isCrossOrigin } from './origin-check';

describe('isCrossOrigin', () => {
  const host = 'admin.example.com:3000';

  it.each([
    [{ origin: 'http://admin.example.com:3000' }, false],
    [{ origin: 'https://admin.example.com:3000' }, false], // TLS ended at a proxy: the host decides
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

  it('trusts the origins of CORS_ORIGINS (never "*")', () => {
    expect(isCrossOrigin({ origin: 'https://console.example', 'sec-fetch-site': 'cross-site' }, host, ['https://console.example'])).toBe(false);
    expect(isCrossOrigin({ origin: 'https://evil.example' }, host, ['*'])).toBe(true);
  });
});
