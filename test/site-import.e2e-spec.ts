/**
 * POST /api/knowledge/import/site against a small help center served on 127.0.0.1 (which the
 * test allows with FETCH_ALLOW_PRIVATE; 127.0.0.2 stays refused): a sitemap index, robots.txt
 * disallowing a folder, a redirect, a page over the 5 MB cap, navigation and footer boilerplate
 * that must not reach the items; cancel and resume (also across a restart); a re-sync with one
 * page changed and one removed; and the bad inputs, each a 400 with nothing stored.
 */
import request from 'supertest';
import { KnowledgeItem } from '../src/knowledge/knowledge-item.entity';
import type { SiteImport } from '../src/shared/contracts/knowledge-import';
import type { ReplyData } from '../src/shared/contracts/chat';
import { adminAgent, AdminAgent } from './support/admin-session';
import { type FakeSite, helpPage, paragraphs, startFakeSite } from './support/fake-site';
import { eventually, startTestApp, TestApp } from './support/test-app';

const SHIPPING = paragraphs('shipping', [
  'Standard shipping takes three to five business days and costs 4.99 dollars per parcel.',
  'Express shipping arrives the next business day for 14.99 dollars when ordered before noon.',
  'Orders over 50 dollars ship free of charge with the standard carrier.',
]);
const RETURNS = paragraphs('returns', [
  'You can return any unworn item within 30 days of delivery for a full refund.',
  'Print the prepaid return label from your account and drop the parcel at any post office.',
  'Refunds reach your card within five business days after the warehouse receives the parcel.',
]);
const WARRANTY = paragraphs('warranty', [
  'Every kettle carries a two year warranty against manufacturing defects.',
  'Send a photo of the defect and your order number to start a warranty claim.',
  'A replacement ships within a week once the claim is approved by our service team.',
]);
const HOME = paragraphs('home', [
  'Welcome to the Example help center where you find answers about orders, shipping and returns.',
  'Browse the topics below or contact our support team at any time of the day.',
  'Most questions are answered by the articles linked on this page within a minute.',
]);

function sitePages(base: string) {
  return {
    '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /help/private/\n' },
    '/sitemap.xml': {
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemap-help.xml</loc></sitemap></sitemapindex>`,
    },
    '/sitemap-help.xml': {
      type: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${['/help/', '/help/shipping.html', '/help/returns.html', '/help/private/internal.html', '/help/old-warranty.html', '/help/huge.html']
        .map((p) => `<url><loc>${base}${p}</loc></url>`)
        .join('')}</urlset>`,
    },
    '/help/': { body: helpPage('Help home', HOME, ['/help/shipping.html', '/help/returns.html', '/help/private/internal.html']) },
    '/help/shipping.html': { body: helpPage('Shipping times and costs', SHIPPING), headers: { etag: '"ship-1"' } },
    '/help/returns.html': { body: helpPage('Returns and refunds', RETURNS) },
    '/help/private/internal.html': { body: helpPage('Internal escalation notes', paragraphs('internal', ['Secret-Internal-Text that robots.txt keeps out of the crawl.'])) },
    '/help/old-warranty.html': { location: '/help/warranty.html' },
    '/help/warranty.html': { body: helpPage('Kettle warranty', WARRANTY) },
    '/help/huge.html': { body: helpPage('Huge page', `<p>${'x'.repeat(6 * 1024 * 1024)}</p>`) },
  };
}

describe('importing knowledge from a website', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let site: FakeSite;

  beforeAll(async () => {
    site = await startFakeSite();
    for (const [path, page] of Object.entries(sitePages(site.url))) site.pages.set(path, page);
    t = await startTestApp({ seedSampleKnowledge: false, fetchAllowPrivate: ['127.0.0.1'], siteImportDelayMs: 0 });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
    await site?.close();
  });

  const items = () => t.dataSource.getRepository(KnowledgeItem).find();
  const importCount = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM site_imports'))[0].n);

  async function finished(id: string, timeoutMs = 20_000): Promise<SiteImport> {
    return eventually(async () => {
      const res = await admin.get(`/api/knowledge/import/site/${id}`).expect(200);
      const data = res.body.data as SiteImport;
      return data.status !== 'queued' && data.status !== 'running' ? data : undefined;
    }, timeoutMs, `import ${id} to finish`);
  }

  let sitemapImport: SiteImport;

  it('imports the pages a sitemap index lists, obeying robots.txt, following the redirect, refusing the page over 5 MB, without navigation or footer', async () => {
    const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/sitemap.xml`, vertical: 'customer-service' }).expect(202);
    expect(res.body.data).toMatchObject({ mode: 'sitemap', status: 'queued', maxPages: 200, category: 'Website' });
    sitemapImport = await finished(res.body.data.id);
    expect(sitemapImport).toMatchObject({ status: 'completed', run: 'import', added: 4, items: 4, skipped: 1 });
    expect(sitemapImport.pagesDone).toBe(sitemapImport.pagesTotal);
    expect(sitemapImport.errors).toEqual(
      expect.arrayContaining([
        { url: `${site.url}/help/private/internal.html`, message: 'robots.txt disallows it' },
        { url: `${site.url}/help/huge.html`, message: expect.stringMatching(/larger than 5 MB/) },
      ]),
    );
    expect(site.requests).not.toContain('/help/private/internal.html');

    const stored = await items();
    expect(stored.map((i) => i.title).sort()).toEqual(['Help home', 'Kettle warranty', 'Returns and refunds', 'Shipping times and costs']);
    const byTitle = Object.fromEntries(stored.map((i) => [i.title, i]));
    expect(byTitle['Kettle warranty'].sourceUrl).toBe(`${site.url}/help/warranty.html`);
    expect(byTitle['Shipping times and costs'].sourceUrl).toBe(`${site.url}/help/shipping.html`);
    expect(byTitle['Shipping times and costs'].content).toContain('Express shipping arrives the next business day for 14.99 dollars');
    expect(byTitle['Shipping times and costs'].tags).toEqual(['website', '127.0.0.1']);
    for (const item of stored) {
      expect(item.content).not.toMatch(/Menu-Boilerplate-Links|Footer-Boilerplate-Text|Popular-Sidebar-Boilerplate|TRACKER-SCRIPT|color:red|Secret-Internal-Text/);
      expect(item.vertical).toBe('customer-service');
    }
    const api = await admin.get(`/api/knowledge/${byTitle['Kettle warranty'].id}`).expect(200);
    expect(api.body.data.url).toBe(`${site.url}/help/warranty.html`);
  });

  it('answers a question from an imported page with its URL in the sources', async () => {
    const res = await request(t.url).post('/interact').send({ vertical: 'customer-service', query: 'How much does express shipping cost?', preferredLanguage: 'English', userId: 'site-user' }).expect(200);
    const data = res.body.data as ReplyData;
    expect(data.sources[0]).toMatchObject({ title: 'Shipping times and costs', url: `${site.url}/help/shipping.html` });
    expect(data.response).toContain('14.99');
  });

  it('re-sync: a changed page updates its item, a removed page removes it, the others stay unchanged', async () => {
    const before = await items();
    const shippingBefore = before.find((i) => i.title === 'Shipping times and costs')!;
    const warrantyBefore = before.find((i) => i.title === 'Kettle warranty')!;
    site.pages.set('/help/shipping.html', { body: helpPage('Shipping times and costs', SHIPPING.replace('14.99 dollars', '19.99 dollars')), headers: { etag: '"ship-2"' } });
    site.pages.delete('/help/returns.html');
    site.requests.length = 0;
    const res = await admin.post(`/api/knowledge/import/site/${sitemapImport.id}/resync`).expect(202);
    expect(res.body.data).toMatchObject({ run: 'resync' });
    expect(['queued', 'running']).toContain(res.body.data.status);
    const done = await finished(sitemapImport.id);
    expect(done).toMatchObject({ status: 'completed', run: 'resync', added: 0, updated: 1, removed: 1, unchanged: 2, items: 3 });
    const after = await items();
    expect(after.map((i) => i.title).sort()).toEqual(['Help home', 'Kettle warranty', 'Shipping times and costs']);
    const shipping = after.find((i) => i.title === 'Shipping times and costs')!;
    expect(shipping.id).toBe(shippingBefore.id);
    expect(shipping.content).toContain('19.99 dollars');
    expect(shipping.content).not.toContain('14.99 dollars');
    const warranty = after.find((i) => i.title === 'Kettle warranty')!;
    expect(warranty.updatedAt).toBe(warrantyBefore.updatedAt);
    expect(site.requests).toContain('/sitemap.xml');
    // Asked again on a re-sync while it runs: refused, not doubled.
    await admin.post(`/api/knowledge/import/site/${sitemapImport.id}/resync`).expect(202);
    await admin.post(`/api/knowledge/import/site/${sitemapImport.id}/resync`).expect((r) => expect([202, 409]).toContain(r.status));
    await finished(sitemapImport.id);
  });

  it('a start page is crawled within its folder and depth, and stops at the page cap, saying so', async () => {
    const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/help/`, vertical: 'hr', category: 'Help', maxPages: 2, maxDepth: 1, resyncHours: 0 }).expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', mode: 'page', added: 2, items: 2, nextResyncAt: null });
    expect(done.notes.join(' ')).toMatch(/Stopped at the page cap \(2 pages\)/);
    const hr = (await items()).filter((i) => i.vertical === 'hr');
    expect(hr.map((i) => i.title).sort()).toEqual(['Help home', 'Shipping times and costs']);
    expect(hr.every((i) => i.category === 'Help')).toBe(true);
  });

  it('cancel stops the crawl where it is; resume goes on from there without importing a page twice', async () => {
    const slow = Array.from({ length: 6 }, (_, i) => `/slow/p${i}.html`);
    site.pages.set('/slow/index.html', { body: helpPage('Slow index', HOME, slow) });
    slow.forEach((path, i) => site.pages.set(path, { body: helpPage(`Slow page ${i}`, paragraphs(`slow ${i}`, [`Slow page number ${i} explains topic Slowtopic${i}.`])), delayMs: 150 }));
    const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/slow/index.html`, vertical: 'sales', resyncHours: 0 }).expect(202);
    const id = res.body.data.id;
    await eventually(async () => ((await admin.get(`/api/knowledge/import/site/${id}`)).body.data.added >= 2 ? true : undefined), 10_000, 'two pages');
    const cancelled = await admin.post(`/api/knowledge/import/site/${id}/cancel`).expect(200);
    expect(cancelled.body.data.status).toBe('cancelled');
    const stopped = await eventually(async () => {
      const data = (await admin.get(`/api/knowledge/import/site/${id}`)).body.data as SiteImport;
      const again = (await admin.get(`/api/knowledge/import/site/${id}`)).body.data as SiteImport;
      return data.pagesDone === again.pagesDone && data.pagesDone < 7 ? data : undefined;
    }, 5000, 'the crawl to stop');
    expect(stopped.status).toBe('cancelled');
    expect(stopped.added).toBeLessThan(7);
    await admin.post(`/api/knowledge/import/site/${id}/cancel`).expect(409);
    const resumed = await admin.post(`/api/knowledge/import/site/${id}/resume`).expect(200);
    expect(['queued', 'running', 'completed']).toContain(resumed.body.data.status);
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'completed', added: 7, items: 7 });
    const sales = (await items()).filter((i) => i.vertical === 'sales');
    expect(sales).toHaveLength(7);
    expect(new Set(sales.map((i) => i.sourceUrl)).size).toBe(7);
    expect(site.requests.filter((r) => r === '/slow/p5.html')).toHaveLength(1);
    await admin.post(`/api/knowledge/import/site/${id}/resume`).expect(409);
  });

  it.each([
    ['a loopback address the allow-list does not name', () => ({ url: `http://127.0.0.2:${site.port}/help/` }), /127\.0\.0\.2 is a loopback address/],
    ['a redirect from the allowed host to 127.0.0.2', () => ({ url: `${site.url}/to-other` }), /127\.0\.0\.2 is a loopback address/],
    ['a private address', () => ({ url: 'http://10.0.0.1/' }), /10\.0\.0\.1 is a private address/],
    ['a link-local metadata address', () => ({ url: 'http://169.254.169.254/latest/meta-data/' }), /cloud metadata/],
    ['a non-http scheme', () => ({ url: 'ftp://127.0.0.1/help/' }), /URL must be an http or https address/],
    ['a malformed sitemap', () => ({ url: `${site.url}/broken-sitemap.xml` }), /The sitemap .* is not valid XML/],
    ['a start page that answers 404', () => ({ url: `${site.url}/help/nowhere.html` }), /answered 404/],
    ['a page cap over 2,000', () => ({ url: `${site.url}/help/`, maxPages: 5000 }), /Page cap must be a whole number from 1 to 2,000/],
    ['no vertical', () => ({ url: `${site.url}/help/`, vertical: undefined }), /Vertical is required/],
  ])('refuses %s with a 400 and stores nothing', async (_name, body, message) => {
    site.pages.set('/to-other', { location: `http://127.0.0.2:${site.port}/help/` });
    site.pages.set('/broken-sitemap.xml', { type: 'application/xml', body: '<?xml version="1.0"?><urlset><url><loc>http://x/</loc></url>' });
    const itemsBefore = (await items()).length;
    const importsBefore = await importCount();
    const res = await admin.post('/api/knowledge/import/site').send({ vertical: 'customer-service', ...body() }).expect(400);
    expect(res.body.error.message).toMatch(message);
    expect((await items()).length).toBe(itemsBefore);
    expect(await importCount()).toBe(importsBefore);
  });

  it('a sitemap with 100,000 URLs is capped, and says so', async () => {
    const locs = Array.from({ length: 100_000 }, (_, i) => `<url><loc>${site.url}/m/${i}</loc></url>`).join('');
    site.pages.set('/big-sitemap.xml', { type: 'application/xml', body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs}</urlset>` });
    for (let i = 0; i < 3; i++) site.pages.set(`/m/${i}`, { body: helpPage(`Mass page ${i}`, paragraphs('mass', [`Mass page ${i} text about Masstopic${i}.`])) });
    const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/big-sitemap.xml`, vertical: 'legal', maxPages: 3, resyncHours: 0 }).expect(202);
    expect(res.body.data.notes).toContain('The sitemap lists 100,000 pages; the first 3 are imported (the page cap)');
    expect(res.body.data.pagesTotal).toBe(3);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', added: 3 });
  });

  describe('pages robots.txt disallows take no place of the page cap', () => {
    const disallowed = Array.from({ length: 10 }, (_, i) => `/help/private/early-${i}.html`);
    const allowed = Array.from({ length: 5 }, (_, i) => `/help/cap/page-${i}.html`);
    beforeAll(() => {
      for (const p of disallowed) site.pages.set(p, { body: helpPage(`Disallowed ${p}`, paragraphs('internal', ['Secret-Internal-Text kept out by robots.txt.'])) });
      allowed.forEach((p, i) => site.pages.set(p, { body: helpPage(`Capped page ${i}`, paragraphs(`capped ${i}`, [`Capped page ${i} explains Captopic${i} to customers.`])) }));
      const urlset = [...disallowed, ...allowed].map((p) => `<url><loc>${site.url}${p}</loc></url>`).join('');
      site.pages.set('/capped-sitemap.xml', { type: 'application/xml', body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urlset}</urlset>` });
      // A bare start page (no navigation) whose first ten links are disallowed.
      site.pages.set('/help/cap-start.html', {
        body: `<!doctype html><html><head><title>Capped start</title></head><body><main><h1>Capped start</h1><p>The start page of the capped crawl lists the articles below for customers.</p>${[...disallowed, ...allowed].map((p) => `<p><a href="${p}">${p}</a></p>`).join('')}</main></body></html>`,
      });
    });
    const cappedItems = async (category: string) => (await items()).filter((i) => i.category === category);

    it('a sitemap whose first ten pages are disallowed still imports the cap of allowed pages', async () => {
      site.requests.length = 0;
      const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/capped-sitemap.xml`, vertical: 'legal', category: 'Capped sitemap', maxPages: 3, maxDepth: 0, resyncHours: 0 }).expect(202);
      expect(res.body.data.notes).toContain('The sitemap lists 15 pages, 10 of them disallowed by robots.txt; the first 3 of the others are imported (the page cap)');
      expect(res.body.data.pagesTotal).toBe(13);
      const done = await finished(res.body.data.id);
      expect(done).toMatchObject({ status: 'completed', added: 3, items: 3, skipped: 10, pagesDone: 13, pagesTotal: 13 });
      expect(done.errors.filter((e) => e.message === 'robots.txt disallows it').map((e) => new URL(e.url).pathname)).toEqual(disallowed);
      expect(site.requests.filter((r) => r.startsWith('/help/private/'))).toEqual([]);
      expect((await cappedItems('Capped sitemap')).map((i) => i.title).sort()).toEqual(['Capped page 0', 'Capped page 1', 'Capped page 2']);
    });

    it('a start page whose first ten links are disallowed still imports the cap of allowed pages', async () => {
      site.requests.length = 0;
      const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/help/cap-start.html`, vertical: 'legal', category: 'Capped crawl', maxPages: 3, maxDepth: 1, resyncHours: 0 }).expect(202);
      const done = await finished(res.body.data.id);
      expect(done).toMatchObject({ status: 'completed', added: 3, items: 3, skipped: 10, pagesDone: 13, pagesTotal: 13 });
      expect(done.notes.join(' ')).toMatch(/Stopped at the page cap \(3 pages\); 3 more found were not imported/);
      expect(site.requests.filter((r) => r.startsWith('/help/private/'))).toEqual([]);
      expect((await cappedItems('Capped crawl')).map((i) => i.title).sort()).toEqual(['Capped page 0', 'Capped page 1', 'Capped start']);
    });
  });

  it('a page of plain text served as HTML (no <html> element) is imported, not a failed import', async () => {
    site.pages.set('/plain/hours.html', { body: 'Plain-Hours: the help desk answers from nine to five on weekdays and from ten to two on Saturdays, all year round.' });
    const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/plain/hours.html`, vertical: 'legal', category: 'Plain', resyncHours: 0 }).expect(202);
    const done = await finished(res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', added: 1, items: 1 });
    const [item] = (await items()).filter((i) => i.category === 'Plain');
    expect(item.content).toContain('Plain-Hours: the help desk answers from nine to five');
  });

  it('unknown import ids are a 404', async () => {
    await admin.get('/api/knowledge/import/site/00000000-0000-0000-0000-000000000000').expect(404);
    await admin.post('/api/knowledge/import/site/not-an-id/cancel').expect(404);
    const list = await admin.get('/api/knowledge/import/site').expect(200);
    expect(list.body.data.length).toBeGreaterThanOrEqual(3);
  });
});

describe('a website import cut off by a restart', () => {
  it('resumes when the server starts again, and finishes without doubles', async () => {
    const site = await startFakeSite();
    const paths = Array.from({ length: 8 }, (_, i) => `/docs/p${i}.html`);
    site.pages.set('/docs/index.html', { body: helpPage('Docs index', HOME, paths) });
    paths.forEach((path, i) => site.pages.set(path, { body: helpPage(`Doc page ${i}`, paragraphs(`doc ${i}`, [`Doc page ${i} covers Doctopic${i}.`])), delayMs: 120 }));
    const config = { seedSampleKnowledge: false, fetchAllowPrivate: ['127.0.0.1'], siteImportDelayMs: 0 };
    let t = await startTestApp(config);
    try {
      let admin = await adminAgent(t);
      const res = await admin.post('/api/knowledge/import/site').send({ url: `${site.url}/docs/index.html`, vertical: 'customer-service', resyncHours: 0 }).expect(202);
      const id = res.body.data.id;
      await eventually(async () => ((await admin.get(`/api/knowledge/import/site/${id}`)).body.data.added >= 2 ? true : undefined), 10_000, 'two pages');
      await t.close({ keepData: true });
      t = await startTestApp({ ...config, dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema, redisPrefix: t.config.redisPrefix });
      admin = await adminAgent(t);
      const done = await eventually(async () => {
        const data = (await admin.get(`/api/knowledge/import/site/${id}`)).body.data as SiteImport;
        return data.status === 'completed' ? data : undefined;
      }, 20_000, 'the resumed import');
      expect(done.items).toBe(9);
      const stored = await t.dataSource.getRepository(KnowledgeItem).find();
      expect(stored).toHaveLength(9);
      expect(new Set(stored.map((i) => i.sourceUrl)).size).toBe(9);
    } finally {
      await t.close();
      await site.close();
    }
  });
});
