/**
 * The API reference at /api/docs in Chromium: it renders the document's operations, and every
 * request the page makes goes to the app itself (assets come from node_modules through the app;
 * no CDN, no validator badge, no fonts from elsewhere).
 */
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/test-app';
import { describeBrowser, launchBrowser, screenshot } from './support/browser';

describeBrowser('the API reference in Chromium', () => {
  let browser: Browser;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders every operation from the app alone', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    await page.goto(`${t.url}/api/docs`);
    await page.getByRole('heading', { name: /Support Assistant API/ }).waitFor({ timeout: 15000 });
    await page.locator('.opblock').first().waitFor({ timeout: 15000 });
    const operations = await page.locator('.opblock-summary-path').allTextContents();
    expect(operations.map((p) => p.replace(/\u200b/g, ''))).toEqual(expect.arrayContaining(['/interact', '/api/knowledge', '/api/knowledge/{id}', '/api/config/global', '/api/analytics/export']));
    expect(await page.locator('.opblock').count()).toBeGreaterThanOrEqual(30);
    // The description's Socket.IO section is rendered too.
    await page.getByRole('heading', { name: 'Socket.IO' }).waitFor();

    // Open /interact: its request schema and both response media types are shown.
    await page.locator('.opblock-post', { hasText: '/interact' }).first().locator('.opblock-summary').click();
    await page.getByText('text/event-stream').first().waitFor({ timeout: 10000 });
    await screenshot(page, 'api-docs', { fullPage: false });

    const origin = new URL(t.url).origin;
    const elsewhere = requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(requests.length).toBeGreaterThan(3);
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
