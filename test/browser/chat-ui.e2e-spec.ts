/**
 * The chat page's finish in Chromium, visitor side: markdown replies, Retry after Stop,
 * the source panel, Arabic right to left, settings switched live, the compact legal strip, touch
 * targets, axe-core over the page and the legal modal in light and dark, and screenshots of the
 * chat screens at 1280x800 and 390x844 in both schemes (test-artifacts/chat-ui-*.png: look at them).
 */
import type { Browser, Page } from 'playwright-core';
import { adminAgent, type AdminAgent } from '../support/admin-session';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { ask, axeViolations, chooseJurisdiction, closePage, finished, lastReply, openPage, VIEWPORTS, type BrowserGlobals } from './support/chat-page';

const TABLE_REPLY = [
  'Here are the plans:',
  '',
  '| Tier | Price | Seats |',
  '|---|---|---|',
  '| Basic | $10 | 1 |',
  '| Pro | $25 | 5 |',
  '',
  'Steps:',
  '',
  '1. Open **Billing**',
  '2. Choose a plan',
  '',
  '```bash',
  'curl -X POST https://example.com/api/upgrade',
  '```',
].join('\n');
const REFUND_QUESTION = 'How can I get my money back for something I bought?';

describeBrowser('chat page finish in Chromium', () => {
  let browser: Browser;
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    assertClientBuilt();
    browser = await launchBrowser();
    mock = await startMockLlmServer();
    t = await startTestApp({ openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  beforeEach(() => {
    mock.reset();
  });

  it('renders a markdown table as a table, a numbered list, and a code block with a copy button', async () => {
    mock.configure({ reply: TABLE_REPLY });
    const page = await openPage(browser, t.url);
    await ask(page, REFUND_QUESTION);
    await finished(page);
    const reply = lastReply(page);
    const table = reply.getByRole('table');
    expect(await table.locator('th').allTextContents()).toEqual(['Tier', 'Price', 'Seats']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await reply.locator('ol > li').count()).toBe(2);
    expect(await reply.locator('.code-block pre').textContent()).toContain('curl -X POST');
    expect(await reply.textContent()).not.toContain('|---|');
    await reply.getByRole('button', { name: 'Copy code' }).waitFor();
    await closePage(page);
  });

  it('Retry after Stop produces a reply', async () => {
    mock.configure({ tokens: 400, delayMs: 30 });
    const page = await openPage(browser, t.url);
    await ask(page, REFUND_QUESTION);
    await lastReply(page).locator('.message-content').getByText(/tok5\b/).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await lastReply(page).locator('.message-stopped').waitFor();

    mock.configure({ tokens: 8, delayMs: 0, reply: 'Refunds are paid back to the original card within 5 days.' });
    await lastReply(page).getByRole('button', { name: 'Retry' }).click();
    await finished(page);
    expect(await lastReply(page).locator('.message-content').textContent()).toBe('Refunds are paid back to the original card within 5 days.');
    expect(await page.locator('.message-stopped').count()).toBe(0);
    expect(await page.locator('.message-user').count()).toBe(1);
    await closePage(page);
  });

  it('a source chip opens the cited passage in a side panel', async () => {
    mock.configure({ reply: 'See the refund policy.' });
    const page = await openPage(browser, t.url);
    await ask(page, REFUND_QUESTION);
    await finished(page);
    const chip = lastReply(page).locator('button.message-source').first();
    const title = (await chip.textContent())!;
    await chip.click();
    const panel = page.getByRole('dialog', { name: title });
    await panel.locator('.source-content').waitFor();
    expect((await panel.locator('.source-content').textContent())!.length).toBeGreaterThan(40);
    await screenshot(page, 'chat-ui-source-panel-1280-light', { fullPage: false });
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    await closePage(page);
  });

  it('the panel opens a long item at the passage the reply cites: highlighted, and scrolled into view', async () => {
    // Three paragraphs of ~130 words (three passages); only the last one answers the question.
    const filler = (topic: string) => Array.from({ length: 13 }, (_, i) => `The ${topic} ledger entry ${i + 1} is reviewed by the harbour office every quarter.`).join(' ');
    const content = ['## Reseller handbook', filler('cobalt'), filler('granite'), `${filler('saffron')} The **quokka onboarding voucher** gives every new reseller forty free training seats in their first month.`].join('\n\n');
    const item = (await admin.post('/api/knowledge').send({ title: 'Reseller programme handbook', content, category: 'Programmes', vertical: 'customer-service', tags: [], attachments: [] }).expect(201)).body.data;
    try {
      mock.configure({ reply: 'The voucher gives forty free training seats.' });
      for (const [viewport, scheme] of [['desktop', 'light'], ['phone', 'dark']] as const) {
        const page = await openPage(browser, t.url, viewport, scheme);
        await ask(page, 'What does the quokka onboarding voucher give a new reseller?');
        await finished(page);
        await lastReply(page).getByRole('button', { name: 'Open source: Reseller programme handbook' }).click();
        const panel = page.getByRole('dialog', { name: 'Reseller programme handbook' });
        const cited = panel.getByRole('region', { name: 'Cited passage' });
        await cited.waitFor();
        expect(await cited.textContent()).toContain('quokka onboarding voucher gives every new reseller forty free training seats');
        // Not the item's other paragraphs, nor the tail of the one before that the passage repeats.
        expect(await cited.textContent()).not.toContain('cobalt');
        expect(await cited.textContent()).not.toContain('granite');
        expect(await cited.locator('strong').textContent()).toBe('quokka onboarding voucher');
        // The item's start is above, out of view; the cited passage is in view, its top near the panel's.
        await page.waitForFunction(() => {
          const w = globalThis as unknown as { innerHeight: number; document: { querySelector(s: string): { getBoundingClientRect(): { top: number } } } };
          const r = w.document.querySelector('.source-passage').getBoundingClientRect();
          return r.top >= 0 && r.top < w.innerHeight / 2;
        }, undefined, { timeout: 5000 });
        expect(await panel.getByRole('heading', { name: 'Reseller handbook' }).isVisible()).toBe(true);
        const headingBox = (await panel.getByRole('heading', { name: 'Reseller handbook' }).boundingBox())!;
        expect(headingBox.y + headingBox.height).toBeLessThan(0);
        // The panel's title stays in view above it.
        expect((await panel.getByRole('heading', { name: 'Reseller programme handbook' }).boundingBox())!.y).toBeGreaterThanOrEqual(0);
        await screenshot(page, `chat-ui-source-passage-${viewport === 'desktop' ? 1280 : 390}-${scheme}`, { fullPage: false });
        await closePage(page);
      }
    } finally {
      await admin.delete(`/api/knowledge/${item.id}`).expect(200);
    }
  });

  it('thumbs are at least 44 px and the row does not move when "Thanks for your feedback" appears', async () => {
    mock.configure({ reply: 'Refunds take five days.' });
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await openPage(browser, t.url, viewport);
      await ask(page, REFUND_QUESTION);
      await finished(page);
      const up = lastReply(page).getByRole('button', { name: 'Helpful', exact: true });
      const box = (await up.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(44);
      const before = (await lastReply(page).boundingBox())!;
      await up.click();
      await lastReply(page).getByText('Thanks for your feedback').waitFor();
      const after = (await lastReply(page).boundingBox())!;
      expect(after.height).toBe(before.height);
      await closePage(page);
    }
  });

  it('Arabic sets dir="rtl" and mirrors the layout; the choice is remembered, and a reload is right to left before the app runs', async () => {
    const page = await openPage(browser, t.url);
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ar');
    expect(await page.evaluate(() => [(globalThis as unknown as BrowserGlobals).document.documentElement.lang, (globalThis as unknown as BrowserGlobals).document.documentElement.dir])).toEqual(['ar', 'rtl']);
    // Mirrored: the brand is on the right and the connection pill on the left; the first tab is the rightmost.
    const brand = (await page.locator('.brand').boundingBox())!;
    const pill = (await page.locator('.connection-pill').boundingBox())!;
    expect(brand.x).toBeGreaterThan(pill.x);
    const tabs = page.getByRole('tab');
    expect((await tabs.first().boundingBox())!.x).toBeGreaterThan((await tabs.nth(1).boundingBox())!.x);
    await page.getByRole('tab', { name: /دعم العملاء/ }).waitFor();
    mock.configure({ reply: 'يمكنك استرداد المبلغ خلال 30 يومًا.' });
    await ask(page, 'كيف أسترد أموالي؟');
    await finished(page);
    await screenshot(page, 'chat-ui-arabic-1280-light', { fullPage: false });
    await page.reload();
    await page.locator('.connection-pill[data-status="online"]').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.dir)).toBe('rtl');
    // Before the first paint: with the app's bundle held back, the parsed page is already Arabic and right to left.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let requested!: () => void;
    const bundleRequested = new Promise<void>((resolve) => (requested = resolve));
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      requested();
      await held;
      await route.continue();
    });
    await page.goto(t.url, { waitUntil: 'commit' });
    await bundleRequested;
    // A function, not a string: a string predicate runs through eval(), which the page's CSP refuses.
    await page.waitForFunction(() => (globalThis as unknown as { document: { readyState: string } }).document.readyState !== 'loading');
    const beforeApp = await page.evaluate('({ dir: document.documentElement.dir, lang: document.documentElement.lang, mounted: document.getElementById("root").childElementCount > 0 })');
    release();
    expect(beforeApp).toEqual({ dir: 'rtl', lang: 'ar', mounted: false });
    await page.locator('.connection-pill[data-status="online"]').waitFor();
    await page.unroute(/\/assets\/index-[^/]+\.js$/);
    await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
    await closePage(page);
  });

  it('an admin switching Sales off greys the tab on an open page within 2 s, and switching it on restores it', async () => {
    const page = await openPage(browser, t.url);
    const sales = page.getByRole('tab', { name: /Sales Advisor/ });
    expect(await sales.getAttribute('aria-disabled')).toBeNull();
    const started = Date.now();
    await admin.put('/api/config/global').send({ verticals: { sales: false } }).expect(200);
    await page.locator('#tab-sales[aria-disabled="true"]').waitFor({ timeout: 2000 });
    const elapsed = Date.now() - started;
    console.info(`Sales switched off -> tab greyed on the open page: ${elapsed} ms (the PUT included)`);
    expect(elapsed).toBeLessThan(2000);
    expect(await sales.getAttribute('class')).toContain('is-disabled');
    await admin.put('/api/config/global').send({ verticals: { sales: true } }).expect(200);
    await page.locator('#tab-sales:not([aria-disabled])').waitFor({ timeout: 2000 });
    await closePage(page);
  });

  it.each([
    ['desktop', 'light'],
    ['phone', 'dark'],
  ] as const)('a visitor on the Sales tab when it is switched off is told in a notice (%s, %s): the app\'s one notice, dismissable', async (viewport, scheme) => {
    const page = await openPage(browser, t.url, viewport, scheme);
    try {
      await page.getByRole('tab', { name: /Sales Advisor/ }).click();
      await admin.put('/api/config/global').send({ verticals: { sales: false } }).expect(200);
      const notice = page.getByRole('alert').filter({ hasText: 'Sales Advisor is not available right now' });
      await notice.waitFor({ timeout: 3000 });
      expect(await notice.getAttribute('class')).toBe('notice is-warning is-inline');
      await screenshot(page, `chat-ui-notice-${viewport === 'desktop' ? 1280 : 390}-${scheme}`, { fullPage: false });
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    } finally {
      await admin.put('/api/config/global').send({ verticals: { sales: true } }).expect(200);
      await closePage(page);
    }
  });

  it('legal tab: the strip keeps the message box in view at 1280x800 and most of a phone for messages; no Enter hint on a phone; the footer links to the console for every visitor', async () => {
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await openPage(browser, t.url, viewport);
      await page.getByRole('tab', { name: /Legal Advisor/ }).click();
      await chooseJurisdiction(page, /United States/, 'California');
      await page.getByRole('note').waitFor();
      const composer = (await page.locator('.composer').boundingBox())!;
      const list = (await page.locator('.message-list').boundingBox())!;
      if (viewport === 'desktop') {
        expect(composer.y + composer.height).toBeLessThanOrEqual(VIEWPORTS.desktop.height);
        expect(await page.locator('.composer-hint').isVisible()).toBe(true);
      } else {
        // Before the compact strip: about 211 px. The badge, notice and warning now wrap so they
        // are read in full (no "…"), which costs about 15 px: 345 px here.
        expect(list.height).toBeGreaterThanOrEqual(330);
        expect(await page.locator('.composer-hint').isVisible()).toBe(false);
      }
      // A fresh browser, never signed in: the footer still has the spec's Admin Dashboard link.
      expect(await page.getByRole('contentinfo').getByRole('link', { name: 'Admin Dashboard' }).getAttribute('href')).toBe('/admin');
      await closePage(page);
    }
  });

  it.each(['light', 'dark'] as const)('axe-core finds no serious or critical violation on the chat page and the legal modal (%s)', async (scheme) => {
    mock.configure({ reply: TABLE_REPLY });
    const page = await openPage(browser, t.url, 'desktop', scheme);
    await ask(page, REFUND_QUESTION);
    await finished(page);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('tab', { name: /Legal Advisor/ }).click();
    await page.getByRole('dialog').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: /United Arab Emirates/ }).click();
    expect(await axeViolations(page)).toEqual([]);
    await closePage(page);
  });

  it.each([
    ['desktop', 'light'],
    ['desktop', 'dark'],
    ['phone', 'light'],
    ['phone', 'dark'],
  ] as const)('screenshots of the chat screens at %s, %s', async (viewport, scheme) => {
    const size = `${VIEWPORTS[viewport].width}x${VIEWPORTS[viewport].height}`;
    mock.configure({ reply: TABLE_REPLY });
    const page = await openPage(browser, t.url, viewport, scheme);
    await screenshot(page, `chat-ui-${size}-${scheme}-welcome`, { fullPage: false });
    await ask(page, REFUND_QUESTION);
    await finished(page);
    await screenshot(page, `chat-ui-${size}-${scheme}-reply`, { fullPage: false });
    await page.getByRole('tab', { name: /Legal Advisor/ }).click();
    await page.getByRole('dialog').waitFor();
    await screenshot(page, `chat-ui-${size}-${scheme}-legal-modal`, { fullPage: false });
    await chooseJurisdiction(page, /United Arab Emirates/, 'Dubai');
    await screenshot(page, `chat-ui-${size}-${scheme}-legal`, { fullPage: false });
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ar');
    await screenshot(page, `chat-ui-${size}-${scheme}-legal-arabic`, { fullPage: false });
    await page.evaluate(() => (globalThis as unknown as { localStorage: { clear(): void } }).localStorage.clear());
    await closePage(page);
  });
});
