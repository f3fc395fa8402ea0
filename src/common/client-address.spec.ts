import { loadConfig } from '../config/app-config';
import { ClientAddressResolver, plainIp } from './client-address';

const resolver = (trustProxy: string[]) => new ClientAddressResolver({ ...loadConfig({}), trustProxy });

describe('ClientAddressResolver', () => {
  it('ignores every forwarding header by default (TRUST_PROXY unset), even from loopback', () => {
    const address = resolver([]).fromParts('::ffff:127.0.0.1', {
      host: 'app.local:3000',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(address).toEqual({ ip: '127.0.0.1', host: 'app.local:3000', proto: 'http' });
  });

  it('takes the client from X-Forwarded-For, host and scheme from X-Forwarded-Host / -Proto, when the peer is trusted', () => {
    const address = resolver(['loopback']).fromParts('127.0.0.1', {
      host: 'internal:3000',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': 'support.example.com',
      'x-forwarded-proto': 'https',
    });
    expect(address).toEqual({ ip: '203.0.113.9', host: 'support.example.com', proto: 'https' });
  });

  it('walks the chain back through trusted hops only, and stops at the first untrusted one', () => {
    const r = resolver(['10.0.0.0/8']);
    // client 198.51.100.7 -> spoofed entry 1.1.1.1 added by the client itself -> proxy 10.0.0.2 -> proxy 10.0.0.1 (peer)
    expect(r.fromParts('10.0.0.1', { 'x-forwarded-for': '1.1.1.1, 198.51.100.7, 10.0.0.2' }).ip).toBe('198.51.100.7');
    expect(r.fromParts('192.0.2.1', { 'x-forwarded-for': '198.51.100.7' }).ip).toBe('192.0.2.1');
  });

  it('never takes a value that is not an IP address as the client', () => {
    const r = resolver(['loopback']);
    expect(r.fromParts('127.0.0.1', { 'x-forwarded-for': 'not-an-ip' }).ip).toBe('127.0.0.1');
    expect(r.fromParts('127.0.0.1', { 'x-forwarded-for': '203.0.113.9, <script>' }).ip).toBe('127.0.0.1');
    expect(r.fromParts('127.0.0.1', { 'x-forwarded-for': '[2001:db8::1]' }).ip).toBe('2001:db8::1');
    expect(r.fromParts('127.0.0.1', { 'x-forwarded-proto': 'gopher' }).proto).toBe('http');
  });

  it('plainIp: IPv4-mapped IPv6 as IPv4, brackets dropped, anything else undefined', () => {
    expect(plainIp('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(plainIp('[::1]')).toBe('::1');
    expect(plainIp('example.com')).toBeUndefined();
    expect(plainIp(undefined)).toBeUndefined();
  });
});

describe('TRUST_PROXY', () => {
  it('accepts IPs, CIDRs and the names loopback, linklocal, uniquelocal; "none" or unset means nobody', () => {
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, 192.0.2.1, uniquelocal' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', '192.0.2.1', 'uniquelocal']);
    expect(loadConfig({ TRUST_PROXY: 'none' }).trustProxy).toEqual([]);
    expect(loadConfig({}).trustProxy).toEqual([]);
  });

  it('stops the start naming an entry that is neither', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'loopback,proxy.internal' })).toThrow(/TRUST_PROXY has an entry .*"proxy.internal"/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });
});
