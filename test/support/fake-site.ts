/**
 * A small website on 127.0.0.1 for the website importer's tests: pages set (and changed or
 * removed) by the test, each request logged, optional per-path delays. A page can be a redirect.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePage {
  status?: number;
  type?: string;
  body?: string | Buffer;
  /** A redirect: the Location header (status 301 unless given). */
  location?: string;
  /** Milliseconds before answering. */
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface FakeSite {
  url: string;
  port: number;
  pages: Map<string, FakePage>;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeSite(pages: Record<string, FakePage> = {}): Promise<FakeSite> {
  const site = { pages: new Map(Object.entries(pages)), requests: [] as string[] };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    site.requests.push(path);
    const page = site.pages.get(path);
    const answer = () => {
      if (!page) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Not found</h1></body></html>');
        return;
      }
      if (page.location) {
        res.writeHead(page.status ?? 301, { location: page.location });
        res.end();
        return;
      }
      res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...(page.headers ?? {}) });
      res.end(page.body ?? '');
    };
    if (page?.delayMs) setTimeout(answer, page.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    ...site,
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A help-center page: site navigation and footer around the article, as real help centers have. */
export function helpPage(title: string, article: string, links: string[] = []): string {
  return `<!doctype html><html><head><title>${title} | Example Help Center</title><script>window.tracking = "TRACKER-SCRIPT";</script><style>.x{color:red}</style></head>
<body>
<header><nav class="site-nav"><a href="/help/">Help home</a> <a href="/help/shipping.html">Shipping</a> <a href="/help/returns.html">Returns</a> <a href="/help/contact.html">Contact us</a> Menu-Boilerplate-Links</nav></header>
<main><article><h1>${title}</h1>
${article}
${links.map((href) => `<p><a href="${href}">Read more: ${href}</a></p>`).join('\n')}
</article></main>
<aside>Popular-Sidebar-Boilerplate articles</aside>
<footer>Copyright 2026 Example Inc. Footer-Boilerplate-Text. All rights reserved.</footer>
</body></html>`;
}

/** Article text long enough for Readability to take it as the page's article. */
export function paragraphs(topic: string, sentences: string[]): string {
  return sentences.map((s) => `<p>${s} This paragraph is part of the ${topic} article of the help center and explains it in plain words for customers.</p>`).join('\n');
}
