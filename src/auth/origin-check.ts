/**
 * Cross-origin detection for state-changing admin requests and the /admin socket handshake.
 * A request is foreign when its Origin is neither this server's host nor one of CORS_ORIGINS, or
 * when the browser marks it `Sec-Fetch-Site: cross-site` / `same-site`. Requests with neither
 * header (curl, server-to-server) are not browser forgeries and pass.
 */
export interface OriginHeaders {
  origin?: string | string[];
  'sec-fetch-site'?: string | string[];
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function isCrossOrigin(headers: OriginHeaders, host: string | undefined, trustedOrigins: readonly string[]): boolean {
  const origin = first(headers.origin)?.trim();
  const site = first(headers['sec-fetch-site'])?.trim().toLowerCase();
  if (origin && origin !== 'null' && trustedOrigins.some((o) => o !== '*' && o.replace(/\/$/, '') === origin.replace(/\/$/, ''))) return false;
  if (site === 'cross-site' || site === 'same-site') return true;
  if (origin === 'null') return true;
  if (origin) {
    try {
      return !host || new URL(origin).host.toLowerCase() !== host.toLowerCase();
    } catch {
      return true;
    }
  }
  return false;
}
