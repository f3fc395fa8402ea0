/**
 * The one place that decides who a request or a socket comes from: the client IP, the host it
 * asked for and its scheme. Forwarding headers (`X-Forwarded-For`, `-Host`, `-Proto`) count only
 * when the peer that sent them is trusted by TRUST_PROXY (default: nobody); the chain of
 * X-Forwarded-For is walked from the peer back while each hop is trusted, and an entry that is not
 * an IP address ends the walk (it is never taken as the client). HTTP (the auth limits, feedback,
 * the origin check, the session cookie's Secure flag) and both Socket.IO namespaces use it.
 */
import { Global, Inject, Injectable, Module } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export interface ClientAddress {
  /** The client's IP (IPv4-mapped IPv6 written as IPv4), or undefined when the socket has none. */
  ip: string | undefined;
  /** The host (and port) the client asked for. */
  host: string | undefined;
  proto: 'http' | 'https';
}

/** An address in its plain form: `::ffff:10.0.0.1` -> `10.0.0.1`, `[::1]` -> `::1`; undefined when not an IP. */
export function plainIp(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let text = value.trim();
  if (text.startsWith('[') && text.includes(']')) text = text.slice(1, text.indexOf(']'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped) text = mapped[1];
  return isIP(text) ? text : undefined;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const first = text?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** TRUST_PROXY as a predicate (proxy-addr's compile: IPs, CIDRs, `loopback`, `linklocal`, `uniquelocal`). */
export function compileTrust(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => false;
  const trust = proxyaddr.compile([...entries]);
  return (address) => trust(address, 0);
}

@Injectable()
export class ClientAddressResolver {
  private readonly trusts: (address: string) => boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.trusts = compileTrust(config.trustProxy);
  }

  /** For an HTTP request, or a Socket.IO handshake (`socket.request`). */
  resolve(req: Pick<IncomingMessage, 'headers' | 'socket'>): ClientAddress {
    return this.fromParts(req.socket?.remoteAddress, req.headers, Boolean((req.socket as TLSSocket | undefined)?.encrypted));
  }

  fromParts(peerAddress: string | undefined, headers: IncomingHttpHeaders, encrypted = false): ClientAddress {
    const peer = plainIp(peerAddress);
    const trusted = peer !== undefined && this.trusts(peer);
    let ip = peer;
    if (trusted) {
      const hops = String(headers['x-forwarded-for'] ?? '')
        .split(',')
        .map((hop) => hop.trim())
        .filter(Boolean)
        .reverse();
      for (const hop of hops) {
        const address = plainIp(hop);
        if (!address) break;
        ip = address;
        if (!this.trusts(address)) break;
      }
    }
    const forwardedProto = trusted ? firstValue(headers['x-forwarded-proto'])?.toLowerCase() : undefined;
    const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : encrypted ? 'https' : 'http';
    const host = (trusted ? firstValue(headers['x-forwarded-host']) : undefined) ?? firstValue(headers.host);
    return { ip, host, proto };
  }

  /** Resolves each HTTP request once, before anything reads it (clientAddressOf). */
  readonly middleware = (req: Request, _res: Response, next: NextFunction): void => {
    (req as AddressedRequest)[ADDRESS] = this.resolve(req);
    next();
  };

  /** Express's own `trust proxy` setting, so that anything reading req.ip / req.protocol agrees. */
  get expressTrust(): (address: string | undefined) => boolean {
    return (address) => {
      const ip = plainIp(address);
      return ip !== undefined && this.trusts(ip);
    };
  }
}

const ADDRESS = Symbol('clientAddress');
type AddressedRequest = Request & { [ADDRESS]?: ClientAddress };

/** Who an HTTP request comes from (set by the resolver's middleware; without it, the peer with no proxy trusted). */
export function clientAddressOf(req: Request): ClientAddress {
  return (req as AddressedRequest)[ADDRESS] ?? UNTRUSTING.resolve(req);
}

const UNTRUSTING = new ClientAddressResolver({ trustProxy: [] } as unknown as AppConfig);

@Global()
@Module({ providers: [ClientAddressResolver], exports: [ClientAddressResolver] })
export class ClientAddressModule {}
