/**
 * Sitemaps (sitemaps.org): a `<urlset>` lists pages, a `<sitemapindex>` lists other sitemaps.
 * Parsed with fast-xml-parser after a validation pass, so a malformed file is refused with the
 * parser's line and reason rather than read as an empty list.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface Sitemap {
  kind: 'urlset' | 'index';
  /** Page URLs (urlset) or sitemap URLs (index), as written. */
  urls: string[];
}

export class SitemapError extends Error {}

/** True when the text looks like XML rather than an HTML page (a sitemap URL was given). */
export function looksLikeSitemap(contentType: string | undefined, text: string): boolean {
  if (/\bxml\b/i.test(contentType ?? '') && !/html/i.test(contentType ?? '')) return true;
  const head = text.slice(0, 1000).replace(/^\ufeff/, '').trimStart();
  return /^<\?xml/i.test(head) ? !/<html[\s>]/i.test(head) : /^<(urlset|sitemapindex)[\s>]/i.test(head);
}

const parser = new XMLParser({ ignoreAttributes: true, removeNSPrefix: true, isArray: (name) => name === 'url' || name === 'sitemap', processEntities: true, parseTagValue: false });

export function parseSitemap(xml: string): Sitemap {
  const text = xml.replace(/^\ufeff/, '');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new SitemapError(`is not valid XML (line ${valid.err.line}: ${valid.err.msg})`);
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new SitemapError(`could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const locs = (entries: unknown): string[] =>
    (Array.isArray(entries) ? entries : [])
      .map((entry) => (entry && typeof entry === 'object' ? (entry as { loc?: unknown }).loc : undefined))
      .filter((loc): loc is string => typeof loc === 'string' && loc.trim() !== '')
      .map((loc) => loc.trim());
  const urlset = doc.urlset as { url?: unknown } | '' | undefined;
  if (urlset !== undefined) return { kind: 'urlset', urls: locs(urlset === '' ? [] : urlset.url) };
  const index = doc.sitemapindex as { sitemap?: unknown } | '' | undefined;
  if (index !== undefined) return { kind: 'index', urls: locs(index === '' ? [] : index.sitemap) };
  throw new SitemapError('is neither a <urlset> nor a <sitemapindex>');
}
