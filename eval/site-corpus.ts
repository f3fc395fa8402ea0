/**
 * A corpus `npm run eval` builds through the website importer rather than from parsed text:
 * Python's HOWTOs and tutorial (python3-doc's HTML, /usr/share/doc/python3.N/html/{howto,tutorial})
 * served on 127.0.0.1 with a sitemap index (one sitemap per folder) and a robots.txt that
 * disallows the HTML sources folder, then imported by the real SiteImportService (the crawl,
 * safe fetching, main-content extraction, one item per page) on the corpus' own database,
 * with no crawl delay. Items are keyed by their page's path under html/ ("howto/sorting.html").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import type { AdminEventsService } from '../src/admin-events/admin-events.service';
import { loadConfig } from '../src/config/app-config';
import { InProcessJobQueue } from '../src/jobs/in-process-job-queue';
import { SiteImportRow } from '../src/ingestion/site/site-import.entity';
import { SiteImportService } from '../src/ingestion/site/site-import.service';
import type { KnowledgeService } from '../src/knowledge/knowledge.service';
import { KnowledgeItem } from '../src/knowledge/knowledge-item.entity';
import type { CheckedSiteImportRequest, SiteImport } from '../src/shared/contracts/knowledge-import';
import { startFakeSite } from '../test/support/fake-site';

/** What the site corpus serves: python3-doc's HTML folders. */
export const SITE_FOLDERS = ['howto', 'tutorial'];

/** The newest installed Python documentation's HTML root, or undefined. */
export function pythonHtmlRoot(): string | undefined {
  const docs = fs.existsSync('/usr/share/doc') ? fs.readdirSync('/usr/share/doc').filter((d) => /^python3\.\d+$/.test(d)) : [];
  docs.sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]));
  return docs.map((d) => `/usr/share/doc/${d}/html`).find((dir) => SITE_FOLDERS.every((f) => fs.existsSync(path.join(dir, f))));
}

/** The pages served, as paths under the HTML root ("howto/sorting.html"). */
export function sitePages(root: string): string[] {
  return SITE_FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(root, folder))
      .filter((f) => f.endsWith('.html'))
      .sort()
      .map((f) => `${folder}/${f}`),
  );
}

export interface SiteImportFigures {
  pages: number;
  seconds: number;
  pagesPerSecond: number;
  skipped: number;
  errors: number;
}

/**
 * Serves the pages, imports them through the SiteImportService into `service`'s database, and
 * returns the created items' keys by id with the import's figures.
 */
export async function importSiteCorpus(root: string, dataSource: DataSource, service: KnowledgeService, vertical: CheckedSiteImportRequest['vertical']): Promise<{ keyOf: Map<string, string>; figures: SiteImportFigures }> {
  const pages = sitePages(root);
  const site = await startFakeSite();
  const jobs = new InProcessJobQueue();
  try {
    for (const page of pages) site.pages.set(`/docs/${page}`, { body: fs.readFileSync(path.join(root, page)) });
    site.pages.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /docs/_sources/\n' });
    const urlset = (paths: string[]) => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${site.url}/docs/${p}</loc></url>`).join('')}</urlset>`;
    for (const folder of SITE_FOLDERS) site.pages.set(`/sitemap-${folder}.xml`, { type: 'application/xml', body: urlset(pages.filter((p) => p.startsWith(`${folder}/`))) });
    site.pages.set('/sitemap.xml', {
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${SITE_FOLDERS.map((f) => `<sitemap><loc>${site.url}/sitemap-${f}.xml</loc></sitemap>`).join('')}</sitemapindex>`,
    });

    const config = loadConfig({}, { dataDir: '/nonexistent', databaseUrl: undefined, fetchAllowPrivate: ['127.0.0.1'], siteImportDelayMs: 0 });
    // Items changed are announced to the console's sockets; there are none here.
    const noEvents = { emit: () => undefined } as unknown as AdminEventsService;
    const importer = new SiteImportService(dataSource.getRepository(SiteImportRow), dataSource, service, noEvents, jobs, config);
    importer.onModuleInit();
    await jobs.start();
    const started = await importer.start({ url: `${site.url}/sitemap.xml`, vertical, category: 'Python docs', maxPages: 2000, maxDepth: 0, resyncHours: 0 });
    let job: SiteImport = started;
    const deadline = Date.now() + 10 * 60_000;
    while (job.status === 'queued' || job.status === 'running') {
      if (Date.now() > deadline) throw new Error('eval: the website import did not finish in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await importer.get(started.id);
    }
    if (job.status !== 'completed') throw new Error(`eval: the website import ended ${job.status}: ${job.notes.join('; ')}`);
    const items = await dataSource.getRepository(KnowledgeItem).find();
    const prefix = `${site.url}/docs/`;
    const keyOf = new Map(items.map((i) => [i.id, (i.sourceUrl ?? '').startsWith(prefix) ? i.sourceUrl!.slice(prefix.length) : i.id]));
    const seconds = (Date.parse(job.finishedAt!) - Date.parse(job.startedAt!)) / 1000;
    return { keyOf, figures: { pages: job.items, seconds, pagesPerSecond: job.items / seconds, skipped: job.skipped, errors: job.errors.length } };
  } finally {
    await jobs.close();
    await site.close();
  }
}
