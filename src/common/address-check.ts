/**
 * Which network addresses the server may fetch from on a user's behalf (website import, webhooks).
 * Only public unicast addresses pass: private, shared (CGNAT), loopback, link-local, multicast,
 * unspecified, documentation and other reserved ranges, and the cloud metadata endpoints are
 * refused, in IPv4 and in IPv6, including IPv6 forms that carry an IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4), so `::ffff:127.0.0.1` is judged as `127.0.0.1`.
 *
 * The decision is made on the addresses a name resolves to, never on the name: `checkUrl` resolves
 * the host and judges every address it gets; the caller then connects to the judged address and
 * does not look the name up again (a second lookup could answer differently).
 *
 * An allow-list (FETCH_ALLOW_PRIVATE) names what is accepted although not public: IP addresses and
 * CIDR ranges (an address inside passes, metadata addresses included when named), and host names
 * (whatever that exact name resolves to passes, except a metadata address).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why an address is refused; `public` when it is not. */
export type AddressKind =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'multicast'
  | 'unspecified'
  | 'metadata'
  | 'reserved';

export type SafeFetchErrorCode =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'address_refused'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'bad_redirect'
  | 'too_large'
  | 'timeout'
  | 'connection_failed'
  | 'aborted';

/** A refused or failed fetch; `code` says which rule or failure, `url` the address it concerned. */
export class SafeFetchError extends Error {
  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
    readonly url?: string,
    readonly address?: string,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Looks a host name up: every address it has. Tests pass a fake one so no real name is resolved. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

interface Range {
  /** 4 or 6; an IPv4 range is matched against IPv4 addresses only (embedded ones are unwrapped first). */
  family: 4 | 6;
  base: bigint;
  bits: number;
}

export interface AllowList {
  ranges: Range[];
  hosts: Set<string>;
}

/** The IPv4 ranges refused, most specific first so the reported kind is the precise one. */
const IPV4_RULES: Array<[string, AddressKind]> = [
  ['169.254.169.254/32', 'metadata'],
  ['169.254.170.2/32', 'metadata'],
  ['100.100.100.200/32', 'metadata'],
  ['192.0.0.192/32', 'metadata'],
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'private'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];

/** IPv6 ranges refused; anything outside 2000::/3 (global unicast) is refused as reserved too. */
const IPV6_RULES: Array<[string, AddressKind]> = [
  ['fd00:ec2::254/128', 'metadata'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'private'],
  ['100::/64', 'reserved'],
  ['2001::/32', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2001:10::/28', 'reserved'],
  ['3fff::/20', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
];

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  let rest = text.toLowerCase();
  const zone = rest.indexOf('%');
  if (zone >= 0) rest = rest.slice(0, zone);
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    // A trailing dotted IPv4 part stands for the last two groups.
    const v4 = parseIpv4(rest.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    rest = `${rest.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]);
  const back = halves.length === 2 ? groups(halves[1]) : [];
  const want = 8;
  const fill = halves.length === 2 ? want - head.length - back.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== want)) return undefined;
  const all = [...head, ...Array(fill).fill('0'), ...back];
  let value = 0n;
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

/** An address as (family, value); brackets and an IPv6 zone are removed. Undefined when not an IP. */
export function parseIp(text: string): { family: 4 | 6; value: bigint } | undefined {
  let plain = text.trim();
  if (plain.startsWith('[') && plain.endsWith(']')) plain = plain.slice(1, -1);
  const kind = isIP(plain.split('%')[0]);
  if (kind === 4) {
    const value = parseIpv4(plain);
    return value === undefined ? undefined : { family: 4, value };
  }
  if (kind === 6) {
    const value = parseIpv6(plain);
    return value === undefined ? undefined : { family: 6, value };
  }
  return undefined;
}

function parseRange(text: string): Range | undefined {
  const [ip, bitsText, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const parsed = parseIp(ip);
  if (!parsed) return undefined;
  const max = parsed.family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!Number.isInteger(bits) || bits < 0 || bits > max) return undefined;
  const shift = BigInt(max - bits);
  return { family: parsed.family, base: (parsed.value >> shift) << shift, bits };
}

function inRange(range: Range, family: 4 | 6, value: bigint): boolean {
  if (range.family !== family) return false;
  const shift = BigInt((family === 4 ? 32 : 128) - range.bits);
  return value >> shift === range.base >> shift;
}

const V4_RULES = IPV4_RULES.map(([cidr, kind]) => ({ range: parseRange(cidr)!, kind }));
const V6_RULES = IPV6_RULES.map(([cidr, kind]) => ({ range: parseRange(cidr)!, kind }));
const MAPPED = parseRange('::ffff:0:0/96')!;
const COMPAT = parseRange('::/96')!;
const NAT64 = parseRange('64:ff9b::/96')!;
const SIX_TO_FOUR = parseRange('2002::/16')!;
const GLOBAL_UNICAST = parseRange('2000::/3')!;

/**
 * The IPv4 address an IPv6 address carries, when it is one of the forms that reach an IPv4 host:
 * IPv4-mapped, IPv4-compatible, NAT64 (well-known prefix) and 6to4.
 */
function embeddedIpv4(value: bigint): bigint | undefined {
  if (inRange(MAPPED, 6, value) || inRange(NAT64, 6, value)) return value & 0xffffffffn;
  if (inRange(COMPAT, 6, value) && value > 1n) return value & 0xffffffffn;
  if (inRange(SIX_TO_FOUR, 6, value)) return (value >> 80n) & 0xffffffffn;
  return undefined;
}

/** The address as fetching sees it: an IPv6 form that carries an IPv4 address becomes that IPv4 address. */
function effective(text: string): { family: 4 | 6; value: bigint } | undefined {
  const parsed = parseIp(text);
  if (!parsed || parsed.family === 4) return parsed;
  const v4 = embeddedIpv4(parsed.value);
  return v4 === undefined ? parsed : { family: 4, value: v4 };
}

/** What kind of address this is; `public` only for public unicast. A text that is no IP is `reserved`. */
export function classifyAddress(address: string): AddressKind {
  const parsed = effective(address);
  if (!parsed) return 'reserved';
  if (parsed.family === 4) {
    for (const rule of V4_RULES) if (inRange(rule.range, 4, parsed.value)) return rule.kind;
    return 'public';
  }
  for (const rule of V6_RULES) if (inRange(rule.range, 6, parsed.value)) return rule.kind;
  return inRange(GLOBAL_UNICAST, 6, parsed.value) ? 'public' : 'reserved';
}

/**
 * Reads allow-list entries: IP addresses, CIDR ranges and host names. Throws with the entry named
 * when one is none of these.
 */
export function parseAllowList(entries: readonly string[] | undefined): AllowList {
  const list: AllowList = { ranges: [], hosts: new Set() };
  for (const raw of entries ?? []) {
    const entry = raw.trim();
    if (!entry) continue;
    const range = parseRange(entry);
    if (range) {
      list.ranges.push(range);
      continue;
    }
    if (!entry.includes('/') && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)) {
      list.hosts.add(entry.toLowerCase().replace(/\.$/, ''));
      continue;
    }
    throw new Error(`"${entry}" is not an IP address, a CIDR range or a host name`);
  }
  return list;
}

export const EMPTY_ALLOW_LIST: AllowList = { ranges: [], hosts: new Set() };

function toAllowList(allow: AllowList | readonly string[] | undefined): AllowList {
  if (!allow) return EMPTY_ALLOW_LIST;
  return Array.isArray(allow) ? parseAllowList(allow as readonly string[]) : (allow as AllowList);
}

const KIND_WORDS: Record<AddressKind, string> = {
  public: 'public',
  private: 'a private',
  loopback: 'a loopback',
  link_local: 'a link-local',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  metadata: 'a cloud metadata',
  reserved: 'a reserved',
};

/**
 * Throws `address_refused` unless the address may be fetched from: public, or named by the
 * allow-list (its IP or a range holding it, or `hostname` when given and listed).
 */
export function assertPublicAddress(address: string, options: { allow?: AllowList | readonly string[]; hostname?: string } = {}): void {
  const kind = classifyAddress(address);
  if (kind === 'public') return;
  const allow = toAllowList(options.allow);
  const parsed = effective(address);
  if (parsed && allow.ranges.some((range) => inRange(range, parsed.family, parsed.value))) return;
  const raw = parseIp(address);
  if (raw && allow.ranges.some((range) => inRange(range, raw.family, raw.value))) return;
  const host = options.hostname?.toLowerCase().replace(/\.$/, '');
  if (host && kind !== 'metadata' && allow.hosts.has(host)) return;
  const what = options.hostname && options.hostname !== address ? `${options.hostname} resolves to ${address}, ` : `${address} is `;
  throw new SafeFetchError('address_refused', `${what}${KIND_WORDS[kind]} address; only public addresses may be fetched (FETCH_ALLOW_PRIVATE lists exceptions)`, undefined, address);
}

export interface CheckedUrl {
  url: URL;
  /** The host name without brackets (an IPv6 literal plain). */
  hostname: string;
  port: number;
  /** Every address the host has, all of them checked; connect to one of these, not to the name. */
  addresses: ResolvedAddress[];
}

export interface CheckUrlOptions {
  allow?: AllowList | readonly string[];
  resolver?: Resolver;
}

/**
 * Parses and checks a URL for fetching: http or https only, the host resolved (an IP literal as
 * is) and every address it resolves to checked with `assertPublicAddress`. A name with any refused
 * address is refused, so a name cannot mix a public and a private answer.
 */
export async function checkUrl(input: string | URL, options: CheckUrlOptions = {}): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : new URL(input.href);
  } catch {
    throw new SafeFetchError('invalid_url', `"${String(input).slice(0, 200)}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SafeFetchError('scheme_not_allowed', `Only http and https URLs can be fetched (got ${url.protocol.replace(/:$/, '')})`, url.href);
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!hostname) throw new SafeFetchError('invalid_url', `"${url.href}" has no host`, url.href);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const allow = toAllowList(options.allow);
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (options.resolver ?? systemResolver)(hostname);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new SafeFetchError('dns_failed', `${hostname} could not be resolved${code ? ` (${code})` : ''}`, url.href);
    }
    if (addresses.length === 0) throw new SafeFetchError('dns_failed', `${hostname} has no address`, url.href);
  }
  for (const entry of addresses) {
    try {
      assertPublicAddress(entry.address, { allow, hostname });
    } catch (error) {
      if (error instanceof SafeFetchError) throw new SafeFetchError(error.code, error.message, url.href, error.address);
      throw error;
    }
  }
  return { url, hostname, port, addresses };
}
