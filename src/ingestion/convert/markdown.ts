/**
 * HTML to Markdown, the form every imported document is stored in: headings as `#`, lists as
 * `-` / `1.`, tables as GFM pipe tables, code as fenced blocks, so that the chunker can keep them
 * whole and the chat can render them. Scripts, styles and other non-content elements are dropped
 * before conversion and never reach the knowledge base.
 */
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { nativeRequire } from './native-require';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { gfm } = require('@joplin/turndown-plugin-gfm') as { gfm: TurndownService.Plugin };
// linkedom's CommonJS build requires ES-module-only packages (see native-require.ts).
const { parseHTML } = nativeRequire('linkedom') as typeof import('linkedom');

/** Elements whose content is never knowledge. */
const DROPPED = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'svg', 'canvas', 'form', 'button', 'select', 'input', 'textarea', 'link', 'meta'];

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
  service.use(gfm);
  service.remove(DROPPED as TurndownService.Filter);
  // Images carry no searchable text: their alt text stays, the (often data:) address does not.
  service.addRule('image-alt', { filter: 'img', replacement: (_content, node) => ((node as unknown as { getAttribute(name: string): string | null }).getAttribute('alt') ?? '').trim() });
  // A link around nothing (a badge image without alt text) says nothing.
  service.addRule('empty-link', { filter: (node) => node.nodeName === 'A' && (node.textContent ?? '').trim() === '' && !node.querySelector('img[alt]:not([alt=""])'), replacement: () => '' });
  return service;
}

let shared: TurndownService | undefined;

/** Tidies what turndown leaves: no trailing spaces, at most one blank line in a row. */
export function tidyMarkdown(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An HTML fragment or document as Markdown (all of it: see mainContent for a web page). */
export function htmlToMarkdown(html: string): string {
  shared ??= turndown();
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const tag of DROPPED) for (const el of [...document.querySelectorAll(tag)]) el.remove();
  // Turndown parses the cleaned HTML with its own DOM (domino), which implements what the GFM
  // table rule needs (HTMLTableElement.rows); linkedom does not.
  return tidyMarkdown(shared.turndown(document.body.innerHTML ?? ''));
}

/**
 * An HTML document parsed by linkedom, always with an <html> element: text that has none (plain
 * text or binary bytes named .html) is parsed as the body of one, where linkedom would otherwise
 * give a document whose body and head throw when read.
 */
export function parseDocument(html: string): LinkedomDocument {
  const parsed = parseHTML(html).document;
  if (parsed.documentElement) return parsed;
  return parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document;
}

type LinkedomDocument = ReturnType<typeof parseHTML>['document'];

export interface PageContent {
  /** The page's title (Readability's, else <title>, else the first heading); '' when none. */
  title: string;
  /** The main content as Markdown: navigation, headers, footers, sidebars and scripts left out. */
  markdown: string;
}

/**
 * The main content of a web page as Markdown. Readability picks the article; a page it cannot
 * read (too short, no article) falls back to the <main> element or the body without its
 * navigation, header, footer and asides.
 */
export function mainContent(html: string, url?: string): PageContent {
  const document = parseDocument(html);
  for (const tag of DROPPED) for (const el of [...document.querySelectorAll(tag)]) el.remove();
  const pageTitle = (document.querySelector('title')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const firstHeading = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    // Readability changes the document it reads: give it its own copy.
    const copy = parseDocument(document.toString());
    if (url) setBase(copy, url);
    article = new Readability(copy as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200, keepClasses: false }).parse();
  } catch {
    article = null;
  }
  let markdown = article?.content ? htmlToMarkdown(article.content) : '';
  const letters = (text: string) => text.replace(/[#>*_`|\-\s]/g, '').length;
  const named = document.querySelector('main, [role=main], #content, article');
  // Readability keeps one block: on a page of several sibling sections (a manual, a FAQ) that is
  // one section of many. The page's named content element wins when it holds far more text.
  if (letters(markdown) < 40 || named) {
    const root = named ?? document.body;
    if (root) {
      for (const el of [...root.querySelectorAll('nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], #toc, .toc')]) el.remove();
      const fallback = htmlToMarkdown(root.innerHTML ?? '');
      const enough = letters(markdown) < 40 ? fallback.length > markdown.length : letters(fallback) > 2 * letters(markdown);
      if (enough) markdown = fallback;
    }
  }
  const title = (article?.title ?? '').replace(/\s+/g, ' ').trim() || pageTitle || firstHeading;
  return { title, markdown: stripLeadingTitle(markdown, title) };
}

/** Readability resolves relative links against the document's base. */
function setBase(document: { querySelector(s: string): unknown; head?: unknown; createElement(tag: string): unknown }, url: string): void {
  try {
    const head = document.querySelector('head') as { prepend(n: unknown): void } | null;
    const base = document.createElement('base') as { setAttribute(n: string, v: string): void };
    base.setAttribute('href', url);
    head?.prepend(base);
  } catch {
    // A page without <head> keeps its relative links.
  }
}

/** The page's own first heading repeats its title: the item's title already says it. */
function stripLeadingTitle(markdown: string, title: string): string {
  const match = /^#{1,2} (.+)\n+/.exec(markdown);
  if (match && title && match[1].replace(/\s+/g, ' ').trim().toLowerCase() === title.toLowerCase()) return markdown.slice(match[0].length);
  return markdown;
}
