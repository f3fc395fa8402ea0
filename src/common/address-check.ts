/**
 * Whether a URL the server is asked to call (a webhook, a site to import) points into the
 * server's own network: loopback, private (RFC 1918, unique local), link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, multicast, unspecified and other reserved ranges, also when
 * written as an IPv4-mapped IPv6 address. The host name is resolved and every address it resolves
 * to is checked (a public name that resolves to 127.0.0.1 is refused as well).
 *
 *   const problem = await checkPublicUrl(url);          // undefined, or why it is refused
 *   const problem = await checkPublicUrl(url, { allowPrivate: true });
 *
 * Checking before the call narrows, but does not close, a DNS-rebinding window; callers that
 * fetch call `checkPublicUrl` right before each request.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6) is loopback, private, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(bare, 'ipv6');
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Why `url` may not be called, or undefined when it may: not http(s), credentials in it, a host
 * that does not resolve, or (unless `allowPrivate`) any of its addresses in a private range.
 */
export async function checkPublicUrl(url: string, options: { allowPrivate?: boolean; resolve?: Resolver } = {}): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'The URL is not valid.';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'The URL must start with http:// or https://.';
  if (parsed.username || parsed.password) return 'The URL must not contain a user name or password.';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (options.allowPrivate) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'The URL points to this server (localhost).';
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? systemResolver)(host);
    } catch {
      return `The host ${host} could not be found.`;
    }
  }
  if (addresses.length === 0) return `The host ${host} could not be found.`;
  const inside = addresses.find(isPrivateAddress);
  if (inside) return `The URL points to a private or loopback address (${inside}); allow private addresses to use it.`;
  return undefined;
}
