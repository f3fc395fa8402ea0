/**
 * The website importer on a real site written by others: git-doc's HTML manual (Debian package
 * git-doc, GPL-2) served on 127.0.0.1 under /git/, with a sitemap index of two sitemaps and a
 * robots.txt that disallows /git/technical/. The import respects both, shows progress and stops
 * at the cap; a question is answered from an imported page with its URL in the sources; after a
 * page changes and another disappears, a re-sync updates one and removes the other. The import
 * speed (pages per second, no crawl delay) is printed for the note.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import request from 'supertest';
import { KnowledgeItem } from '../src/knowledge/knowledge-item.entity';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { SiteImport } from '../src/shared/contracts/knowledge-import';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { type FakeSite, startFakeSite } from './support/fake-site';
import { describeWith, NEEDS } from './support/requirements';
import { eventually, startTestApp, type TestApp } from './support/test-app';

const DOCS = '/usr/share/doc/git-doc';
const CAP = 60;

describeWith([NEEDS.gitDoc], 'importing git-doc\'s HTML manual as a website', () => {
  let site: FakeSite;
  let t: TestApp;
  let admin: AdminAgent;
  let job: SiteImport;
  const technical = () => fs.readdirSync(path.join(DOCS, 'technical')).filter((f) => f.endsWith('.html')).map((f) => `/git/technical/${f}`);
  const howto = () => fs.readdirSync(path.join(DOCS, 'howto')).filter((f) => f.endsWith('.html')).map((f) => `/git/howto/${f}`);
  const top = () => ['gitfaq.html', ...fs.readdirSync(DOCS).filter((f) => f.endsWith('.html') && f !== 'gitfaq.html').sort()].map((f) => `/git/${f}`);

  beforeAll(async () => {
    site = await startFakeSite();
    for (const p of [...technical(), ...howto(), ...top()]) site.pages.set(p, { body: fs.readFileSync(path.join(DOCS, p.slice('/git/'.length))) });
    site.pages.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /git/technical/\n' });
    const urlset = (paths: string[]) => `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${site.url}${p}</loc></url>`).join('')}</urlset>`;
    site.pages.set('/sitemap-technical.xml', { type: 'application/xml', body: urlset(technical()) });
    site.pages.set('/sitemap-manual.xml', { type: 'application/xml', body: urlset([...top(), ...howto()]) });
    site.pages.set('/sitemap.xml', {
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${site.url}/sitemap-technical.xml</loc></sitemap><sitemap><loc>${site.url}/sitemap-manual.xml</loc></sitemap></sitemapindex>`,
    });
    t = await startTestApp({ seedSampleKnowledge: false, fetchAllowPrivate: ['127.0.0.1'], siteImportDelayMs: 0 });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const items = () => t.dataSource.getRepository(KnowledgeItem).find();
  const finished = (id: string) =>
    eventually(async () => {
      const data = (await admin.get(`/api/knowledge/import/site/${id}`).expect(200)).body.data as SiteImport;
      return data.status === 'completed' || data.status === 'failed' || data.status === 'cancelled' ? data : undefined;
    }, 120_000, 'the import');

  it('respects robots.txt and the sitemap index, shows progress and stops at the cap', async () => {
    const started = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/sitemap.xml`, vertical: 'customer-service', category: 'Git manual', maxPages: CAP }).expect(202);
    // The pages robots.txt disallows (the first sitemap's) take none of the cap's places.
    expect(started.body.data.notes.join(' ')).toMatch(new RegExp(`The sitemap lists \\d+ pages, ${technical().length} of them disallowed by robots.txt; the first ${CAP} of the others are imported`));
    const progress: number[] = [];
    job = await eventually(async () => {
      const data = (await admin.get(`/api/knowledge/import/site/${started.body.data.id}`).expect(200)).body.data as SiteImport;
      progress.push(data.pagesDone);
      return data.status === 'completed' ? data : undefined;
    }, 120_000, 'the import');
    // The cap counts pages fetched; pages robots.txt disallows are listed, not fetched.
    const disallowed = technical().length;
    expect(job.pagesDone).toBe(job.pagesTotal);
    expect(job.pagesDone).toBe(CAP + disallowed);
    expect(new Set(progress).size).toBeGreaterThan(2);
    expect(job.notes.join(' ')).toMatch(new RegExp(`Stopped at the page cap \\(${CAP} pages\\)`));
    expect(job.skipped).toBe(disallowed);
    expect(job.errors.filter((e) => e.message === 'robots.txt disallows it')).toHaveLength(disallowed);
    expect(site.requests.some((r) => r.startsWith('/git/technical/'))).toBe(false);
    const stored = await items();
    expect(stored.length).toBe(job.items);
    expect(stored.length).toBeGreaterThanOrEqual(CAP - 2);
    expect(stored.length).toBeLessThanOrEqual(CAP);
    expect(stored.every((i) => i.sourceUrl?.startsWith(`${site.url}/git/`) && !i.sourceUrl.includes('/technical/'))).toBe(true);
    const faq = stored.find((i) => i.sourceUrl === `${site.url}/git/gitfaq.html`)!;
    expect(faq.title).toMatch(/gitfaq/i);
    // The whole manual page, every section (not only the longest one).
    expect(faq.content).toMatch(/^## Configuration$/m);
    expect(faq.content).toContain('How do I ignore changes to a tracked file?');
    expect(faq.content).not.toMatch(/<script|<div/);
    const seconds = (Date.parse(job.finishedAt!) - Date.parse(job.startedAt!)) / 1000;
    console.log(`[site import] git-doc: ${job.items} pages imported (${job.skipped} disallowed) in ${seconds.toFixed(2)} s: ${(job.items / seconds).toFixed(1)} pages/s`);
  }, 180_000);

  it('answers a question from an imported page, with its URL in the sources', async () => {
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query: 'How do I ignore changes to a tracked file?', preferredLanguage: 'English', userId: 'git-user' }).expect(200);
    const data = res.body.data as ReplyData;
    expect(data.answered).toBe(true);
    const cited = (await items()).find((i) => i.id === data.sources[0].id)!;
    expect(data.sources[0].url).toBe(cited.sourceUrl);
    expect(data.sources[0].url).toMatch(new RegExp(`^${site.url}/git/[a-z-]+\\.html$`));
  });

  it('a re-sync updates the page that changed and removes the one that disappeared', async () => {
    const stored = await items();
    const changed = stored.find((i) => i.sourceUrl === `${site.url}/git/gitfaq.html`)!;
    const gone = stored.find((i) => i.sourceUrl !== changed.sourceUrl)!;
    const goneUrl = gone.sourceUrl!;
    const html = fs.readFileSync(path.join(DOCS, 'gitfaq.html'), 'utf8').replace('How do I ignore changes to a tracked file?', 'How do I ignore changes to a tracked file (updated answer)?');
    site.pages.set('/git/gitfaq.html', { body: html });
    site.pages.delete(new URL(goneUrl).pathname);
    await admin.post(`/api/knowledge/import/site/${job.id}/resync`).expect(202);
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'completed', run: 'resync', updated: 1, removed: 1, added: 0 });
    const after = await items();
    expect(after.find((i) => i.id === changed.id)!.content).toContain('(updated answer)');
    expect(after.some((i) => i.id === gone.id)).toBe(false);
    expect(after).toHaveLength(stored.length - 1);
  }, 180_000);
});
