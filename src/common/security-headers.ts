/**
 * The browser-facing security headers of every response (pages, static files, API, errors), built
 * here and nowhere else:
 *
 * - `Content-Security-Policy`: everything from our own origin only. No inline or injected script
 *   (the client is Vite's module bundle plus `document-language.js`, all files), no `eval`.
 *   Images only from our origin and `data:` (the favicon, the authenticator QR code): a reply
 *   that smuggles `![](https://elsewhere/x.png?d=...)` cannot make the browser send anything
 *   anywhere, even if the page rendered it. Connections (fetch, Socket.IO's WebSocket) to our
 *   origin only. Workers (the PDF.js worker) from our origin. Not framed by other sites
 *   (`frame-ancestors 'self'`) unless a route allows named origins with {@link allowFraming}.
 * - `X-Content-Type-Options: nosniff`: a file is only ever used as the type it is served as.
 * - `Referrer-Policy: same-origin`: links in replies do not tell other sites which page, which
 *   conversation, the visitor came from.
 *
 * Styles: the app's own CSS comes from files; inline `style` attributes are allowed
 * (`'unsafe-inline'` for styles only) because Swagger UI at /api/docs ships its styles inline, and
 * a style cannot run code or, with `img-src` as above, load anything from elsewhere.
 */
import type { NextFunction, Request, Response } from 'express';

export type CspDirectives = Record<string, string[]>;

const SELF = "'self'";

/** The policy every response starts with. */
export const DEFAULT_CSP: Readonly<CspDirectives> = Object.freeze({
  'default-src': [SELF],
  'script-src': [SELF],
  'style-src': [SELF, "'unsafe-inline'"],
  'img-src': [SELF, 'data:'],
  'font-src': [SELF, 'data:'],
  'connect-src': [SELF],
  'worker-src': [SELF],
  'media-src': [SELF],
  'object-src': ["'none'"],
  'base-uri': [SELF],
  'form-action': [SELF],
  'frame-ancestors': [SELF],
});

/** The header's text: directives in a fixed order, each with its sources. */
export function formatCsp(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** `Content-Security-Policy` for the response, kept on `res.locals` so a route can change one directive. */
const CSP_KEY = 'contentSecurityPolicy';

function cspOf(res: Response): CspDirectives {
  return (res.locals[CSP_KEY] as CspDirectives | undefined) ?? { ...DEFAULT_CSP };
}

function setCsp(res: Response, directives: CspDirectives): void {
  res.locals[CSP_KEY] = directives;
  res.setHeader('Content-Security-Policy', formatCsp(directives));
}

/** Express middleware: the headers above on every response. Registered first, before any route. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  setCsp(res, { ...DEFAULT_CSP });
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  next();
}

/** A source for frame-ancestors: an https or http origin (`https://shop.example`, `https://*.example.com`), or 'self'. */
const FRAME_SOURCE = /^(?:'self'|https?:\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::\d{1,5})?)$/i;

/**
 * Lets the sites in `origins` (and our own) show this one response in a frame: it replaces the
 * response's `frame-ancestors` and leaves every other directive as it was. For a page made to be
 * embedded, e.g. a chat widget that a customer's site frames:
 *
 * ```ts
 * allowFraming(res, widget.allowedOrigins); // ['https://shop.example']
 * ```
 *
 * Call it before the response is sent. An origin that is not a plain http(s) origin (a path, a
 * quote, a `;` that would start another directive) throws: origins come from settings an admin
 * saved, and a bad one must not loosen or break the policy.
 */
export function allowFraming(res: Response, origins: readonly string[]): void {
  for (const origin of origins) {
    if (!FRAME_SOURCE.test(origin)) throw new Error(`Not an origin for frame-ancestors: ${JSON.stringify(origin)}`);
  }
  const ancestors = [SELF, ...new Set(origins.filter((o) => o !== SELF))];
  setCsp(res, { ...cspOf(res), 'frame-ancestors': ancestors });
}
