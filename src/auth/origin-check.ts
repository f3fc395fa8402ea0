/**
 * Cross-origin detection for state-changing admin requests and the /admin socket handshake.
 * A request is foreign when its Origin is neither this server's own origin (scheme and host, as
 * the client address resolver sees them: X-Forwarded-Proto / -Host only from a trusted proxy)
 * nor one of CORS_ORIGINS, or when the browser marks it `Sec-Fetch-Site: cross-site` /
 * `same-site`. Requests with neither header (curl, server-to-server) are not browser forgeries
 * and pass.
 */
export interface OriginHeaders {
  origin?: string | string[];
  'sec-fetch-site'?: string | string[];
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** This server as the client reached it. */
export interface SelfOrigin {
  proto: 'http' | 'https';
  host: string | undefined;
}

export function isCrossOrigin(headers: OriginHeaders, self: SelfOrigin, trustedOrigins: readonly string[]): boolean {
  const origin = first(headers.origin)?.trim();
  const site = first(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (origin && origin !== 'null' && trustedOrigins.some((o) => o !== '*' && o.replace(/\/$/, '') === origin.replace(/\/$/, ''))) return false;
  if (site === 'cross-site' || site === 'same-site') return true;
  if (origin === 'null') return true;
  if (origin) {
    try {
      if (!self.host) return true;
      // Both through URL, so default ports (:80, :443) compare equal whichever side spells them.
      return new URL(origin).origin.toLowerCase() !== new URL(`${self.proto}://${self.host}`).origin.toLowerCase();
    } catch {
      return true;
    }
  }
  return false;
}
