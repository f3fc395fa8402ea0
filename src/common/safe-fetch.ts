/**
 * Fetching a URL a user gave (a website to import, a webhook to call) without letting it reach
 * the server's own network. Each hop is checked by `checkUrl` (address-check.ts) after its name is
 * resolved, and the connection goes to the address that was checked: the socket's lookup answers
 * with it, so the name is not resolved a second time between the check and the connect. Redirects
 * are followed by hand, each one checked the same way, at most `maxRedirects` of them. The body is
 * read up to `maxBytes` after decompression (a small gzip cannot expand past the cap), and the whole
 * fetch, redirects included, has one deadline.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { type AllowList, checkUrl, type Resolver, SafeFetchError } from './address-check';

export { assertPublicAddress, checkUrl, classifyAddress, parseAllowList, SafeFetchError, systemResolver } from './address-check';
export type { AddressKind, AllowList, CheckedUrl, Resolver, SafeFetchErrorCode } from './address-check';

export const SAFE_FETCH_MAX_BYTES = 5 * 1024 * 1024;
export const SAFE_FETCH_TIMEOUT_MS = 15_000;
export const SAFE_FETCH_MAX_REDIRECTS = 5;

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Addresses, CIDR ranges and host names accepted although not public (FETCH_ALLOW_PRIVATE). */
  allow?: AllowList | readonly string[];
  /** Name resolution; tests pass a fake one. */
  resolver?: Resolver;
  /** Body cap after decompression (default 5 MB): `too_large` past it. */
  maxBytes?: number;
  /** Deadline of the whole fetch, redirects included (default 15 s): `timeout` past it. */
  timeoutMs?: number;
  /** Redirects followed at most (default 5; 0 returns the 3xx response as is). */
  maxRedirects?: number;
  /** Stops the fetch (`aborted`). */
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The URL of the response, after redirects. */
  url: string;
  /** Each URL redirected to, in order. */
  redirects: string[];
  /** The address the response came from. */
  address: string;
  body: Buffer;
  text(): string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A lookup that answers with the already checked address whatever name it is asked about. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options && options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

function decoder(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

interface Hop {
  response: http.IncomingMessage;
  request: http.ClientRequest;
}

/** Fetches `input`; throws SafeFetchError for a refused address or scheme and for every failure. */
export async function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const maxBytes = options.maxBytes ?? SAFE_FETCH_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? SAFE_FETCH_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? SAFE_FETCH_MAX_REDIRECTS;
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, timeoutMs);
  const onOuterAbort = () => deadline.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  if (options.signal?.aborted) deadline.abort();
  const stopped = (url: string) =>
    timedOut
      ? new SafeFetchError('timeout', `${url} did not answer within ${Math.round(timeoutMs / 100) / 10} s`, url)
      : new SafeFetchError('aborted', `Fetching ${url} was stopped`, url);

  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...lowerKeys(options.headers ?? {}) };
  let current = typeof input === 'string' ? input : input.href;
  const redirects: string[] = [];
  try {
    for (;;) {
      if (deadline.signal.aborted) throw stopped(current);
      const checked = await checkUrl(current, { allow: options.allow, resolver: options.resolver });
      if (deadline.signal.aborted) throw stopped(current);
      const target = checked.addresses[0];
      const hop = await send(checked.url, target.address, target.family, method, headers, body, deadline.signal).catch((error: unknown) => {
        if (deadline.signal.aborted) throw stopped(checked.url.href);
        const code = (error as { code?: string }).code;
        throw new SafeFetchError('connection_failed', `${checked.url.href} could not be fetched${code ? ` (${code})` : ''}`, checked.url.href, target.address);
      });
      const status = hop.response.statusCode ?? 0;
      const location = hop.response.headers.location;
      if (REDIRECTS.has(status) && location && maxRedirects > 0) {
        hop.response.resume();
        hop.request.destroy();
        if (redirects.length >= maxRedirects) {
          throw new SafeFetchError('too_many_redirects', `${input.toString()} redirects more than ${maxRedirects} times`, checked.url.href);
        }
        let next: URL;
        try {
          next = new URL(location, checked.url);
        } catch {
          throw new SafeFetchError('bad_redirect', `${checked.url.href} redirects to an invalid URL`, checked.url.href);
        }
        next.hash = '';
        if (next.origin !== checked.url.origin) {
          // Credentials meant for one site are not handed to the site it redirects to.
          delete headers.authorization;
          delete headers.cookie;
        }
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = method === 'HEAD' ? 'HEAD' : 'GET';
          body = undefined;
          delete headers['content-type'];
          delete headers['content-length'];
        }
        redirects.push(next.href);
        current = next.href;
        continue;
      }
      const declared = Number(hop.response.headers['content-length']);
      const encoding = hop.response.headers['content-encoding'];
      if (Number.isFinite(declared) && declared > maxBytes && !decoder(encoding)) {
        hop.request.destroy();
        throw tooLarge(checked.url.href, maxBytes);
      }
      const data = await readCapped(hop, encoding, maxBytes, checked.url.href, deadline.signal).catch((error: unknown) => {
        if (error instanceof SafeFetchError) throw error;
        if (deadline.signal.aborted) throw stopped(checked.url.href);
        const code = (error as { code?: string }).code;
        throw new SafeFetchError('connection_failed', `${checked.url.href} broke off while sending${code ? ` (${code})` : ''}`, checked.url.href, target.address);
      });
      return {
        status,
        headers: hop.response.headers,
        url: checked.url.href,
        redirects,
        address: target.address,
        body: data,
        text: () => data.toString('utf8'),
      };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) out[key.toLowerCase()] = value;
  return out;
}

function tooLarge(url: string, maxBytes: number): SafeFetchError {
  return new SafeFetchError('too_large', `${url} is larger than ${formatBytes(maxBytes)}`, url);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

function send(url: URL, address: string, family: 4 | 6, method: string, headers: Record<string, string>, body: string | Buffer | undefined, signal: AbortSignal): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const request = client.request({
      protocol: url.protocol,
      host: hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method,
      headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(address, family),
      // A pooled socket could have been opened for another address of the same name.
      agent: false,
      signal,
      // The certificate is checked against the name asked for, not the address connected to.
      ...(url.protocol === 'https:' ? { servername: hostname } : {}),
    });
    request.once('response', (response) => resolve({ response, request }));
    request.once('error', reject);
    request.end(body);
  });
}

function readCapped(hop: Hop, encoding: string | undefined, maxBytes: number, url: string, signal: AbortSignal): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const unzip = decoder(encoding);
    const stream: Readable = unzip ? hop.response.pipe(unzip) : hop.response;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      if (error) {
        hop.request.destroy();
        unzip?.destroy();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onAbort = () => finish(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge(url, maxBytes));
      else chunks.push(chunk);
    });
    stream.once('end', () => finish());
    stream.once('error', (error) => finish(unzip && (error as { code?: string }).code?.startsWith('Z_') ? new SafeFetchError('connection_failed', `${url} sent a body that does not decompress`, url) : error));
    hop.response.once('error', (error) => finish(error));
    hop.response.once('aborted', () => finish(new Error('aborted')));
  });
}
