/**
 * The Analytics tab in Chromium against the built client and the real server: an open tab shows
 * Total Requests rising while chats are sent, without a click on Refresh (the /admin socket's
 * analytics:update); with two servers on one Redis, chats through server B reach the tab of an
 * admin on server A; a thumbs-down under a reply in the chat page shows in the agent's Helpful
 * rate. Screenshots go to test-artifacts/ for a human to look at.
 */
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { distributed, startTestApp, uniqueSchema, type TestApp } from '../support/test-app';
import { signedInContext } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { describeWith, NEEDS } from '../support/requirements';

const ADMIN = { email: 'analytics-browser@example.com', password: 'analytics browser password' };
/** Opens /admin signed in (the session cookie set in the browser) and switches to the Analytics tab. */
async function openAnalytics(browser: Browser, t: TestApp): Promise<Page> {
  const context = await signedInContext(browser, t, ADMIN, { width: 1280, height: 1000 });
  const page = await context.newPage();
  await page.goto(`${t.url}/admin`);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: 15000 });
  await page.getByRole('tab', { name: 'Analytics' }).click();
  await page.getByRole('heading', { name: 'LLM Usage Analytics' }).waitFor();
  await page.getByRole('group', { name: 'Total Requests' }).waitFor({ timeout: 15000 });
  // The live feed is up (the tab shows "Live" once the /admin socket is connected).
  await page.locator('.analytics-live').waitFor({ timeout: 10000 });
  return page;
}

async function totalRequests(page: Page): Promise<number> {
  const text = await page.getByRole('group', { name: 'Total Requests' }).locator('.analytics-card-value').textContent();
  return Number((text ?? '').replace(/,/g, ''));
}

/** Counts the requests the page's network log shows going to the analytics API (to prove no manual refresh happened). */
function countAnalyticsLoads(page: Page): { readonly count: number } {
  const state = { count: 0 };
  page.on('request', (r) => {
    if (r.url().includes('/api/analytics/system')) state.count += 1;
  });
  return state;
}

async function chat(t: TestApp, n: number): Promise<void> {
  await request(t.url).post('/interact').send({ vertical: ['hr', 'sales', 'customer-service'][n % 3], query: `Browser question ${n}? [mock:tokens=5]` }).expect(200);
}

describeBrowser('the Analytics tab in Chromium', () => {
  let browser: Browser;
  let mock: MockLlmServer;
  let t: TestApp;

  beforeAll(async () => {
    assertClientBuilt();
    mock = await startMockLlmServer({ tokens: 5 });
    t = await startTestApp({
      openaiApiKey: 'sk-x',
      openaiBaseUrl: mock.openaiBaseUrl,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
      signInIpLimit: 1000,
    });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  it('shows Total Requests rising while chats are sent, without a click on Refresh', async () => {
    const page = await openAnalytics(browser, t);
    try {
      const loads = countAnalyticsLoads(page);
      const before = await totalRequests(page);
      await screenshot(page, 'analytics-1-before');
      const seen: number[] = [before];
      for (let n = 0; n < 6; n += 1) {
        await chat(t, n);
        await page.waitForTimeout(400);
        seen.push(await totalRequests(page));
      }
      await page.waitForFunction(
        ([expected]) => {
          const el = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector(
            '[aria-label="Total Requests"] .analytics-card-value',
          );
          return el !== null && Number(el.textContent.replace(/,/g, '')) === expected;
        },
        [before + 6],
        { timeout: 10000 },
      );
      // It rose while the chats were going on, not only at the end, and only through live reloads.
      expect(new Set(seen.slice(1, -1)).size).toBeGreaterThan(1);
      expect(loads.count).toBeGreaterThanOrEqual(2);
      expect(await page.getByRole('button', { name: 'Refresh' }).isEnabled()).toBe(true);
      await page.getByRole('table', { name: 'Agent Performance' }).waitFor();
      await screenshot(page, 'analytics-2-after-chats');
    } finally {
      await page.context().close();
    }
  });

  it('a thumbs-down in the chat page shows in the agent\'s Helpful rate', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const chatPage = await context.newPage();
    try {
      await chatPage.goto(t.url);
      await chatPage.getByRole('tab', { name: /Employee Support/ }).click();
      const input = chatPage.getByRole('textbox', { name: 'Your message' });
      await input.fill('How many vacation days do I get? [mock:tokens=6]');
      await input.press('Enter');
      const thumbsDown = chatPage.getByRole('button', { name: 'Not helpful' }).last();
      await thumbsDown.waitFor({ timeout: 15000 });
      await thumbsDown.click();
      expect(await thumbsDown.getAttribute('aria-pressed')).toBe('true');
      await screenshot(chatPage, 'analytics-3-thumbs-down');

      const admin = await openAnalytics(browser, t);
      const row = admin.getByRole('table', { name: 'Agent Performance' }).getByRole('row', { name: /Employee Support Agent/ });
      await row.getByText('0.0% (1 vote)').waitFor({ timeout: 10000 });
      await screenshot(admin, 'analytics-4-helpful-rate');
      // At 1280x800 the whole table is in view: no sideways scroll in it, Helpful on screen.
      await admin.setViewportSize({ width: 1280, height: 800 });
      const table = admin.getByRole('table', { name: 'Agent Performance' });
      const overflow = await table.evaluate((el) => {
        type Box = { scrollWidth: number; clientWidth: number; parentElement: Box | null };
        let scrolled = 0;
        for (let node: Box | null = el as unknown as Box; node; node = node.parentElement) scrolled = Math.max(scrolled, node.scrollWidth - node.clientWidth);
        return scrolled;
      });
      expect(overflow).toBeLessThanOrEqual(1);
      const wide = await row.getByText('0.0% (1 vote)').boundingBox();
      expect(wide!.x + wide!.width).toBeLessThanOrEqual(1280);
      // On a phone (390 px) the row stacks into label/value lines: the figures are on screen, not only the name.
      await admin.setViewportSize({ width: 390, height: 844 });
      await row.scrollIntoViewIfNeeded();
      const helpful = row.getByText('0.0% (1 vote)');
      const box = await helpful.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      expect(await row.locator('td[data-label="Requests"]').isVisible()).toBe(true);
      await screenshot(admin, 'analytics-5-phone-agent-table', { fullPage: false });
      await admin.context().close();
    } finally {
      await context.close();
    }
  });
});

const describeTwoServers = (name: string, fn: () => void) => describeWith([NEEDS.chromium, NEEDS.redisUrl], name, fn);

describeTwoServers('the Analytics tab with two servers (Redis)', () => {
  let browser: Browser;
  let mock: MockLlmServer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    assertClientBuilt();
    mock = await startMockLlmServer({ tokens: 5 });
    const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
    const common = { openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl, adminEmail: ADMIN.email, adminPassword: ADMIN.password, signInIpLimit: 1000 };
    a = await startTestApp({ ...common, databaseSchema: schema });
    b = await startTestApp({ ...common, databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await b?.close({ keepData: true });
    await a?.close();
    await mock?.close();
  });

  it('chats through server B update the tab of an admin connected to server A', async () => {
    const page = await openAnalytics(browser, a);
    try {
      const before = await totalRequests(page);
      for (let n = 0; n < 4; n += 1) await chat(b, n);
      await page.waitForFunction(
        ([expected]) => {
          const el = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector(
            '[aria-label="Total Requests"] .analytics-card-value',
          );
          return el !== null && Number(el.textContent.replace(/,/g, '')) === expected;
        },
        [before + 4],
        { timeout: 10000 },
      );
      await screenshot(page, 'analytics-5-two-servers');
    } finally {
      await page.context().close();
    }
  });
});
