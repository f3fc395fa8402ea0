/**
 * The links of a page the crawl may follow: resolved against the page (or its <base>), without
 * the fragment, http(s) only, and not to files that are plainly not pages (images, archives...).
 */
import { parseDocument } from '../convert/markdown';

const NOT_PAGES = /\.(png|jpe?g|gif|webp|svg|ico|bmp|tiff?|mp[34]|m4a|mov|avi|webm|ogg|wav|zip|gz|tgz|bz2|xz|7z|rar|tar|exe|dmg|msi|deb|rpm|iso|woff2?|ttf|eot|css|js|mjs|map|json|xml|rss|atom)$/i;

/** A URL as the crawl keys it: no fragment. Undefined when not an http(s) URL. */
export function pageKey(href: string, base?: string): string | undefined {
  try {
    const url = new URL(href, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** The page's links to follow and its first <h1> text ('' when none). */
export function pageLinks(html: string, pageUrl: string): { links: string[]; heading: string } {
  const document = parseDocument(html);
  const heading = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = (baseHref && pageKey(baseHref, pageUrl)) || pageUrl;
  const found = new Set<string>();
  for (const anchor of [...document.querySelectorAll('a[href]')]) {
    const rel = (anchor.getAttribute('rel') ?? '').toLowerCase();
    if (rel.split(/\s+/).includes('nofollow')) continue;
    const key = pageKey(anchor.getAttribute('href') ?? '', base);
    if (key && !NOT_PAGES.test(new URL(key).pathname)) found.add(key);
  }
  return { links: [...found], heading };
}

/**
 * What the crawl stays within: the start page's host and the folder it is in (a start page
 * /help/start.html keeps the crawl under /help/), or the whole host for a sitemap.
 */
export function scopeOf(startUrl: string, mode: 'page' | 'sitemap'): string {
  const url = new URL(startUrl);
  if (mode === 'sitemap') return `${url.origin}/`;
  return `${url.origin}${url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1)}`;
}

export function inScope(url: string, scope: string): boolean {
  return url.startsWith(scope);
}
