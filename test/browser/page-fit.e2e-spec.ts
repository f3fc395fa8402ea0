/**
 * What the screens must keep in view and readable, in Chromium: no "Connecting" flash on a normal
 * load, the voice hint beside (not over) the red recording banner, notices that leave the message
 * box in view at 1280x800, the legal strip readable in full on a 390 px phone, and the legal
 * welcome once a jurisdiction is chosen; in the console, the Configure dialog's Save and Cancel in
 * view at any height, and toasts that cover no field and no dialog button. Screenshots: test-artifacts/fit-*.png (look at them).
 */
import type { Browser, Page } from 'playwright-core';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { adminAgent, TEST_ADMIN, type AdminAgent } from '../support/admin-session';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { chooseJurisdiction, closePage, contextOptions, inViewport, openConsole, type BrowserGlobals, type ViewportName } from './support/chat-page';

const PDF_FIXTURE = path.resolve(__dirname, '..', '..', 'client', 'src', 'features', 'admin', 'knowledge', 'testing', 'fixtures', 'refund-notes-printed.pdf');

type Box = { x: number; y: number; width: number; height: number };

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * A page whose browser "supports" speech recognition with a fake recogniser: 'speak' gives an
 * interim result and keeps listening; 'deny' fails with not-allowed, as a refused microphone does.
 */
async function openWithVoice(browser: Browser, url: string, mode: 'speak' | 'deny', viewport: ViewportName = 'desktop'): Promise<Page> {
  const context = await browser.newContext(contextOptions(viewport));
  await context.addInitScript((voiceMode: string) => {
    class FakeRecognition {
      onresult: ((e: unknown) => void) | null = null;
      onerror: ((e: unknown) => void) | null = null;
      onend: (() => void) | null = null;
      start() {
        setTimeout(() => {
          if (voiceMode === 'deny') {
            this.onerror?.({ error: 'not-allowed' });
            this.onend?.();
            return;
          }
          const result = Object.assign([{ transcript: 'how long does a refund take for an order paid by card' }], { isFinal: false });
          this.onresult?.({ resultIndex: 0, results: [result] });
        }, 50);
      }
      stop() {
        this.onend?.();
      }
      abort() {
        this.onend?.();
      }
    }
    (globalThis as unknown as { SpeechRecognition: unknown }).SpeechRecognition = FakeRecognition;
  }, mode);
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
  return page;
}

/** Texts cut short by their box (an ellipsis or hidden overflow): selector, text, and by how much. */
async function cutTexts(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate((sels: string[]) => {
    const g = globalThis as unknown as BrowserGlobals;
    const cut: string[] = [];
    for (const sel of sels) {
      for (const el of Array.from(g.document.querySelectorAll(sel)) as any[]) {
        if (el.scrollWidth > el.clientWidth + 1) cut.push(`${sel} "${el.textContent}" ${el.scrollWidth} > ${el.clientWidth}`);
      }
    }
    return cut;
  }, selectors);
}

/** Whether `selector`'s first match is in the viewport and is what is drawn at its centre (nothing over it). */
async function visibleAndOnTop(page: Page, locator: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  if (!box || box.y < 0 || box.x < 0 || box.y + box.height > viewport.height + 0.5 || box.x + box.width > viewport.width + 0.5) return false;
  const handle = await locator.elementHandle();
  return page.evaluate(
    ([el, x, y]) => {
      const hit = (globalThis as unknown as BrowserGlobals).document.elementFromPoint(x, y);
      return hit !== null && (hit === el || (el as any).contains(hit));
    },
    [handle, box.x + box.width / 2, box.y + box.height / 2] as const,
  );
}

/** The fields (and with `buttons`, the buttons) under `scope` (a CSS selector) that a toast overlaps. */
async function toastsOverControls(page: Page, scope: string, buttons = false): Promise<string[]> {
  return page.evaluate(([sel, withButtons]) => {
    const g = globalThis as unknown as BrowserGlobals;
    const toasts = Array.from(g.document.querySelectorAll('.notice-stack .notice')).map((n: any) => n.getBoundingClientRect());
    const hits: string[] = [];
    const controls = `${sel} input:not([type="file"]), ${sel} select, ${sel} textarea${withButtons ? `, ${sel} button` : ''}`;
    for (const el of Array.from(g.document.querySelectorAll(controls)) as any[]) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest('.notice-stack')) continue;
      for (const t of toasts) {
        if (r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom) hits.push(`${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim() ?? ''}`);
      }
    }
    return hits;
  }, [scope, buttons] as const);
}

jest.setTimeout(120000);

describeBrowser('screens keep what matters in view, in Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    assertClientBuilt();
    browser = await launchBrowser();
    t = await startTestApp();
    admin = await adminAgent(t);
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('"Connecting" shows only when connecting takes long, never as a flash on a normal load', async () => {
    const context = await browser.newContext(contextOptions('desktop'));
    // Records, from before the app runs, when the pill first appears, says "Connecting", and says "Online".
    await context.addInitScript(() => {
      const g = globalThis as unknown as { document: any; MutationObserver: any; performance: { now(): number }; pillTimes: Record<string, number> };
      g.pillTimes = {};
      const look = () => {
        const pill = g.document.querySelector('.connection-pill');
        if (!pill) return;
        const now = g.performance.now();
        g.pillTimes.mounted ??= now;
        const status = pill.getAttribute('data-status');
        if (status === 'connecting') g.pillTimes.connecting ??= now;
        if (status === 'online') g.pillTimes.online ??= now;
      };
      new g.MutationObserver(look).observe(g.document, { subtree: true, childList: true, attributes: true });
    });
    const page = await context.newPage();
    await page.goto(t.url);
    await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
    const times = await page.evaluate(() => (globalThis as unknown as { pillTimes: Record<string, number> }).pillTimes);
    console.info(`page mounted -> Online: ${Math.round(times.online - times.mounted)} ms; "Connecting" ${times.connecting === undefined ? 'never shown' : `shown after ${Math.round(times.connecting - times.mounted)} ms`}`);
    if (times.connecting !== undefined) expect(times.connecting - times.mounted).toBeGreaterThanOrEqual(1400);
    expect(await page.getByRole('textbox', { name: 'Your message' }).getAttribute('placeholder')).toBe('Type your message...');
    await closePage(page);
  });

  it.each(['desktop', 'phone'] as const)('the voice hint sits under the red "Recording... Speak now in English" banner, never over it (%s)', async (viewport) => {
    const page = await openWithVoice(browser, t.url, 'speak', viewport);
    await page.getByRole('button', { name: 'Start voice input' }).click();
    const banner = page.locator('.recording-banner');
    const hint = page.getByTestId('interim-hint');
    await hint.waitFor();
    expect(await banner.textContent()).toBe('Recording... Speak now in English');
    const bannerBox = (await banner.boundingBox())!;
    const hintBox = (await hint.boundingBox())!;
    await screenshot(page, `fit-voice-hint-${viewport}`, { fullPage: false });
    expect(overlaps(bannerBox, hintBox)).toBe(false);
    // The banner is what is drawn at its centre (nothing over it), and both are on screen.
    const onTop = await page.evaluate(([x, y]) => {
      const g = globalThis as unknown as BrowserGlobals;
      return Boolean(g.document.elementFromPoint(x, y)?.closest('.recording-banner'));
    }, [bannerBox.x + bannerBox.width / 2, bannerBox.y + bannerBox.height / 2]);
    expect(onTop).toBe(true);
    expect((await inViewport(page, '.recording-banner')).inside).toBe(true);
    expect((await inViewport(page, '[data-testid="interim-hint"]')).inside).toBe(true);
    await closePage(page);
  });

  it('a refused microphone is told in the chat panel, and the message box stays in view at 1280x800 (also on the legal tab)', async () => {
    const page = await openWithVoice(browser, t.url, 'deny');
    await page.getByRole('button', { name: 'Start voice input' }).click();
    const notice = page.getByRole('alert').filter({ hasText: 'Microphone access denied. Please allow microphone access to use voice input.' });
    await notice.waitFor();
    await screenshot(page, 'fit-mic-denied-1280', { fullPage: false });
    expect(await notice.evaluate((el) => Boolean(el.closest('.chat-panel')))).toBe(true);
    for (const sel of ['.composer textarea', '.composer .send-button']) expect(await inViewport(page, sel)).toMatchObject({ inside: true });
    await page.getByRole('tab', { name: /Legal Advisor/ }).click();
    await chooseJurisdiction(page, /United States/, 'California');
    await page.getByRole('button', { name: 'Start voice input' }).click();
    await notice.waitFor();
    await screenshot(page, 'fit-mic-denied-legal-1280', { fullPage: false });
    for (const sel of ['.composer textarea', '.composer .send-button']) expect(await inViewport(page, sel)).toMatchObject({ inside: true });
    await closePage(page);
  });

  it('a vertical switched off is told in the chat panel, and the message box stays in view at 1280x800', async () => {
    const context = await browser.newContext(contextOptions('desktop'));
    const page = await context.newPage();
    try {
      await page.goto(t.url);
      await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
      await page.getByRole('tab', { name: /Sales Advisor/ }).click();
      await admin.put('/api/config/global').send({ verticals: { sales: false } }).expect(200);
      const notice = page.getByRole('alert').filter({ hasText: 'Sales Advisor is not available right now' });
      await notice.waitFor({ timeout: 3000 });
      await screenshot(page, 'fit-vertical-off-1280', { fullPage: false });
      expect(await notice.evaluate((el) => Boolean(el.closest('.chat-panel')))).toBe(true);
      for (const sel of ['.composer textarea', '.composer .send-button']) expect(await inViewport(page, sel)).toMatchObject({ inside: true });
    } finally {
      await admin.put('/api/config/global').send({ verticals: { sales: true } }).expect(200);
      await closePage(page);
    }
  });

  it('phone, Legal tab: the badge, description, legal notice and state warning are readable in full; the welcome no longer asks for a jurisdiction', async () => {
    const context = await browser.newContext(contextOptions('phone'));
    const page = await context.newPage();
    await page.goto(t.url);
    await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
    await page.getByRole('tab', { name: /Legal Advisor/ }).click();
    await chooseJurisdiction(page, /United States/, 'New York');
    await page.getByRole('note').waitFor();
    await screenshot(page, 'fit-legal-390', { fullPage: false });
    const badge = page.getByRole('status', { name: 'Selected jurisdiction' });
    expect(await badge.textContent()).toContain('United States');
    expect(await badge.textContent()).toContain('New York');
    expect(await cutTexts(page, ['.jurisdiction-badge', '.jurisdiction-country', '.jurisdiction-sub', '.panel-title p', '.legal-notice > span', '.legal-warning > span'])).toEqual([]);
    expect(await page.locator('.legal-notice').innerText()).toContain('not legal advice');
    expect(await page.locator('.panel-title p').innerText()).toContain('not legal advice');
    expect(await page.locator('.legal-warning').innerText()).toContain('state');
    // The conversation keeps most of the phone, and the message box is in view.
    expect((await page.locator('.message-list').boundingBox())!.height).toBeGreaterThanOrEqual(300);
    expect((await inViewport(page, '.composer textarea')).inside).toBe(true);
    expect(await page.getByRole('log').textContent()).not.toMatch(/choose a jurisdiction/i);
    await closePage(page);
  });
  it.each([
    ['phone 390x844', { width: 390, height: 844 }],
    ['1280x800', { width: 1280, height: 800 }],
    ['1280x600', { width: 1280, height: 600 }],
  ] as const)("the Configure dialog's Save Configuration and Cancel are in view without scrolling (%s)", async (name, viewport) => {
    const page = await openConsole(browser, t, TEST_ADMIN, viewport);
    await page.getByRole('tab', { name: 'Configuration' }).click();
    await page.getByRole('button', { name: /^Configure / }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Save Configuration' }).waitFor();
    await screenshot(page, `fit-configure-${name.replace(/ /g, '-')}`, { fullPage: false });
    expect(await visibleAndOnTop(page, dialog.getByRole('button', { name: 'Save Configuration' }))).toBe(true);
    expect(await visibleAndOnTop(page, dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
    // Still there once the dialog's fields are scrolled to the top and to the end.
    await dialog.getByLabel('Agent Name').focus();
    expect(await visibleAndOnTop(page, dialog.getByRole('button', { name: 'Save Configuration' }))).toBe(true);
    await page.context().close();
  });

  it('toasts cover no field of the console nor the PDF review dialog; a blank title is said once, in the dialog, and goes as the title is typed', async () => {
    const page = await openConsole(browser, t, TEST_ADMIN);
    await page.getByRole('button', { name: 'New knowledge item' }).click();
    const quickUpload = page.getByRole('region', { name: 'Quick Upload Document' }).getByLabel(/^Upload a TXT, JSON, PDF/);
    // Three refusals at once: three toasts (the most that show).
    for (const name of ['a.exe', 'b.exe', 'c.exe', 'd.exe']) {
      await quickUpload.setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from('x') });
      await page.locator('.notice-stack .notice').filter({ hasText: name }).waitFor();
    }
    expect(await page.locator('.notice-stack .notice').count()).toBe(3);
    await page.mouse.move(640, 10);
    await screenshot(page, 'fit-toasts-editor-1280', { fullPage: false });
    // The console's fields (editor, search, filter) are clear of the stack.
    expect(await toastsOverControls(page, 'main')).toEqual([]);

    await quickUpload.setInputFiles({ name: 'refund-notes.pdf', mimeType: 'application/pdf', buffer: fs.readFileSync(PDF_FIXTURE) });
    const review = page.getByRole('dialog', { name: 'Review upload: refund-notes.pdf' });
    await review.waitFor({ timeout: 20000 });
    expect(await page.locator('.notice-stack .notice').count()).toBeGreaterThan(0);
    await screenshot(page, 'fit-toasts-review-1280', { fullPage: false });
    expect(await toastsOverControls(page, '[role="dialog"]', true)).toEqual([]);
    expect(await visibleAndOnTop(page, review.getByRole('button', { name: 'Create item' }))).toBe(true);
    for (const field of ['Title', 'Category']) expect(await visibleAndOnTop(page, review.getByLabel(field, { exact: true }))).toBe(true);

    // A blank title: said once, beside the fields; the dialog stays; no toast, no "Please try again".
    await review.getByLabel('Title', { exact: true }).fill('');
    await review.getByRole('button', { name: 'Create item' }).click();
    const problem = review.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toBe('Title is required');
    await screenshot(page, 'fit-review-title-required-1280', { fullPage: false });
    expect(await page.getByText('Title is required').count()).toBe(1);
    expect(await page.locator('.notice-stack').textContent()).not.toContain('Title is required');
    expect(await page.getByText(/Please try again/).filter({ hasText: 'Title' }).count()).toBe(0);
    await review.getByLabel('Title', { exact: true }).fill('Refund notes');
    await problem.waitFor({ state: 'detached' });
    await review.getByRole('button', { name: 'Create item' }).click();
    await review.waitFor({ state: 'detached' });
    await page.locator('.notice-stack .notice').filter({ hasText: 'Successfully uploaded and parsed PDF: refund-notes.pdf' }).waitFor({ timeout: 10000 });
    expect(await toastsOverControls(page, 'main')).toEqual([]);
    await page.context().close();
  });
});
