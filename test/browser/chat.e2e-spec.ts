/**
 * The public chat page in Chromium against the built client and the real server: streamed
 * replies for every vertical, the legal jurisdiction flow, Stop, the offline banner and its
 * recovery, the POST /interact fallback, and screenshots for a human to look at.
 */
import type { Browser, Page } from 'playwright-core';
import { ENABLED_VERTICAL_IDS, getVertical } from '../../src/shared/catalog/verticals';
import { getJurisdiction } from '../../src/shared/catalog/jurisdictions';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { portOf, startAppOnPort, type RestartedApp } from './support/app-on-port';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

/** The banner while the connection is down: it says what happens, and does not blame the visitor. */
const OFFLINE_BANNER = 'System offline. Please check connection.';

/** A question per vertical that the sample knowledge base answers (so the reply cites sources). */
const QUESTIONS: Record<string, string> = {
  'customer-service': 'How can I get my money back for something I bought?',
  hr: 'How many vacation days do employees earn each year?',
  legal: 'Can my landlord keep my security deposit when I move out?',
  sales: 'How should I handle a prospect who says the price is too high?',
};

// page.evaluate callbacks run in the browser; the server tsconfig has no DOM types.
type BrowserGlobals = { document: any; MutationObserver: any; __replyTexts?: string[] };

async function openChat(browser: Browser, url: string, width = 1280, height = 900): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(url);
  await waitOnline(page);
  return page;
}

async function waitOnline(page: Page, timeout = 10000): Promise<void> {
  await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout });
}

/** Records every distinct text the streaming reply shows, one entry per render that changed it. */
async function recordReplyRenders(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as BrowserGlobals;
    const texts: string[] = [];
    g.__replyTexts = texts;
    const list = g.document.querySelector('.message-list');
    new g.MutationObserver(() => {
      const streaming = list.querySelector('[data-streaming="true"] .message-content');
      const text: string | undefined = streaming?.textContent ?? undefined;
      if (text && texts[texts.length - 1] !== text) texts.push(text);
    }).observe(list, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

async function replyRenders(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as BrowserGlobals).__replyTexts ?? []);
}

async function ask(page: Page, question: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Your message' });
  await input.fill(question);
  await input.press('Enter');
}

const lastReply = (page: Page) => page.locator('.message-agent').last();

/** How many px the page is wider than the viewport (0 or less: no sideways scrolling). */
async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as BrowserGlobals).document;
    return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
  });
}

/** Waits for the newest reply to finish and returns its text and cited source titles. */
async function finishedReply(page: Page, timeout = 15000): Promise<{ text: string; sources: string[] }> {
  const reply = lastReply(page);
  await reply.locator('.message-time').waitFor({ timeout });
  return {
    text: (await reply.locator('.message-content').textContent()) ?? '',
    sources: await reply.locator('.message-source').allTextContents(),
  };
}

async function chooseSubRegion(page: Page, country: string, region: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Select Jurisdiction' });
  await dialog.getByRole('button', { name: new RegExp(country) }).click();
  const continueButton = dialog.getByRole('button', { name: 'Continue' });
  expect(await continueButton.isDisabled()).toBe(true);
  await dialog.getByRole('combobox').selectOption(region);
  await continueButton.click();
  await dialog.waitFor({ state: 'detached' });
}

describeBrowser('chat page in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    assertClientBuilt();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  describe('with the offline knowledge responder', () => {
    let t: TestApp;

    beforeAll(async () => {
      // A visible pause between word groups, so every reply streams over many frames.
      t = await startTestApp({ localResponderDelayMs: 25 });
    });

    afterAll(async () => {
      await t?.close();
    });

    it.each(ENABLED_VERTICAL_IDS.map((id) => [id]))('%s: the reply grows over several renders, then shows its sources', async (id) => {
      const page = await openChat(browser, t.url);
      const vertical = getVertical(id)!;
      await page.getByRole('tab', { name: new RegExp(vertical.name) }).click();
      expect(await page.getByRole('tab', { name: new RegExp(vertical.name) }).getAttribute('aria-selected')).toBe('true');
      await page.locator('.message-list').getByText(vertical.welcomeMessage).waitFor();
      if (vertical.requiresJurisdiction) await chooseSubRegion(page, 'United States', 'New York');

      await recordReplyRenders(page);
      await ask(page, QUESTIONS[id]);
      await page.locator('.message-user').getByText(QUESTIONS[id]).waitFor();
      const { text, sources } = await finishedReply(page);

      const renders = await replyRenders(page);
      expect(renders.length).toBeGreaterThanOrEqual(2);
      expect(renders[renders.length - 1].length).toBeGreaterThan(renders[0].length);
      expect(text.length).toBeGreaterThanOrEqual(renders[renders.length - 1].length);
      expect(sources.length).toBeGreaterThan(0);
      expect(sources.every((s) => s.trim().length > 0)).toBe(true);
      await page.close();
    });

    it('legal: the modal opens by itself; United States -> California -> question gets a cited reply', async () => {
      const page = await openChat(browser, t.url);
      await page.getByRole('tab', { name: /Legal Advisor/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Select Jurisdiction' });
      await dialog.waitFor();
      await screenshot(page, 'chat-legal-modal-1280', { fullPage: false });

      await dialog.getByRole('button', { name: /United States/ }).click();
      await screenshot(page, 'chat-legal-modal-state-step-1280', { fullPage: false });
      await dialog.getByRole('button', { name: 'Back' }).click();
      await chooseSubRegion(page, 'United States', 'California');

      const badge = page.getByRole('status', { name: 'Selected jurisdiction' });
      expect(await badge.textContent()).toContain('United States');
      expect(await badge.textContent()).toContain('California');
      await page.locator('.message-list').getByText(/California, United States/).waitFor();
      await page.getByText(getJurisdiction('US')!.warning!).waitFor();
      await page.getByRole('button', { name: 'Change Jurisdiction' }).waitFor();

      await ask(page, QUESTIONS.legal);
      const { sources } = await finishedReply(page);
      expect(sources.length).toBeGreaterThan(0);
      await screenshot(page, 'chat-legal-reply-1280');
      await page.close();
    });

    it('a question asked in the wrong tab: the reply says nothing matched, and "Ask in Employee Support" switches tab and asks it there', async () => {
      const page = await openChat(browser, t.url);
      await ask(page, 'How many vacation days do I get?');
      const first = await finishedReply(page);
      expect(first.sources).toEqual([]);
      expect(first.text).toContain("I couldn't find anything in our knowledge base");
      expect(first.text).toContain('This looks like an Employee Support question');
      const button = lastReply(page).getByRole('button', { name: 'Ask in Employee Support' });
      await screenshot(page, 'chat-not-found-suggestion-1280', { fullPage: false });
      await button.click();
      expect(await page.getByRole('tab', { name: /Employee Support/ }).getAttribute('aria-selected')).toBe('true');
      await page.locator('.message-user').getByText('How many vacation days do I get?').waitFor();
      const second = await finishedReply(page);
      expect(second.sources).toContain('Paid time off (PTO)');
      expect(second.text).toContain('20 days of paid time off');
      // The conversation started over in Employee Support: one question, no "Ask in" button left.
      expect(await page.locator('.message-user').count()).toBe(1);
      expect(await page.getByRole('button', { name: /^Ask in/ }).count()).toBe(0);
      await screenshot(page, 'chat-asked-in-employee-support-1280', { fullPage: false });
      await page.close();
    });

    it('legal: United Arab Emirates -> Dubai shows the emirate warning', async () => {
      const page = await openChat(browser, t.url);
      await page.getByRole('tab', { name: /Legal Advisor/ }).click();
      await chooseSubRegion(page, 'United Arab Emirates', 'Dubai');
      const badge = page.getByRole('status', { name: 'Selected jurisdiction' });
      expect(await badge.textContent()).toContain('Dubai');
      const warning = page.getByRole('note');
      expect(await warning.textContent()).toBe(getJurisdiction('AE')!.warning);
      expect(await warning.textContent()).toMatch(/emirate/);
      await page.close();
    });

    it('works by keyboard alone: tabs, the jurisdiction modal (Escape closes it) and sending', async () => {
      const page = await openChat(browser, t.url);
      await page.getByRole('tab', { name: /Customer Support/ }).focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Select Jurisdiction' });
      await dialog.waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Select Jurisdiction' }).focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Enter'); // the first country (United States) has focus
      await page.keyboard.press('ArrowDown'); // the state select has focus; pick Alabama
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter'); // Continue
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Change Jurisdiction' }).waitFor();
      await page.getByRole('textbox', { name: 'Your message' }).focus();
      await page.keyboard.type('Can my landlord keep my deposit?');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('I moved out last week.');
      await page.keyboard.press('Enter');
      expect(await page.locator('.message-user').last().textContent()).toBe('Can my landlord keep my deposit?\nI moved out last week.');
      await finishedReply(page);
      await page.close();
    });

    it('screenshots: the chat page at 1280 and 375 px wide, and the legal modal at 375 px', async () => {
      const wide = await openChat(browser, t.url, 1280, 900);
      await ask(wide, 'How do I reset my password?');
      await finishedReply(wide);
      expect((await wide.locator('.chat-panel').boundingBox())?.height).toBe(600);
      await screenshot(wide, 'chat-1280');
      await wide.close();

      const narrow = await openChat(browser, t.url, 375, 812);
      await ask(narrow, 'How long does standard shipping take?');
      await finishedReply(narrow);
      // 600 px at the least; a tall phone gives the conversation its height.
      expect((await narrow.locator('.chat-panel').boundingBox())?.height).toBeGreaterThanOrEqual(600);
      await screenshot(narrow, 'chat-375');
      expect(await horizontalOverflow(narrow)).toBeLessThanOrEqual(0);
      await narrow.getByRole('tab', { name: /Legal Advisor/ }).click();
      await narrow.getByRole('dialog', { name: 'Select Jurisdiction' }).waitFor();
      await screenshot(narrow, 'chat-legal-modal-375', { fullPage: false });
      await chooseSubRegion(narrow, 'United Arab Emirates', 'Dubai');
      await screenshot(narrow, 'chat-legal-375');
      expect(await horizontalOverflow(narrow)).toBeLessThanOrEqual(0);
      await narrow.close();
    });

    it('fits 360 px: nothing overflows sideways, every tab and the composer stay visible', async () => {
      const page = await openChat(browser, t.url, 360, 740);
      await page.getByRole('tab', { name: /Legal Advisor/ }).click();
      await chooseSubRegion(page, 'United States', 'California');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      for (const tab of await page.getByRole('tab').all()) {
        const box = (await tab.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(360);
      }
      expect(await page.getByRole('textbox', { name: 'Your message' }).isVisible()).toBe(true);
      const send = (await page.getByRole('button', { name: 'Send' }).boundingBox())!;
      expect(send.x + send.width).toBeLessThanOrEqual(360);
      await screenshot(page, 'chat-legal-360');
      await page.close();
    });
  });

  describe('with a long stream from an LLM vendor (mock)', () => {
    let mock: MockLlmServer;
    let t: TestApp;

    beforeAll(async () => {
      mock = await startMockLlmServer();
      t = await startTestApp({ openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl });
    });

    afterAll(async () => {
      await t?.close();
      await mock?.close();
    });

    it('Stop ends a long streaming reply: the partial text stays, marked stopped, and the upstream call closes', async () => {
      const page = await openChat(browser, t.url);
      await ask(page, 'Tell me everything about your products [mock:tokens=400;delay=30]');
      const reply = lastReply(page);
      await reply.locator('.message-content').getByText(/tok5\b/).waitFor();
      const [record] = await mock.waitForRequests(1);
      await page.getByRole('button', { name: 'Stop' }).click();

      await reply.locator('.message-stopped').waitFor();
      const stoppedText = await reply.locator('.message-content').textContent();
      expect(stoppedText).toMatch(/^tok0 tok1/);
      const closed = await mock.waitForClose(record, 3000);
      expect(closed.completed).toBe(false);
      expect(closed.tokensSent).toBeLessThan(400);

      await page.waitForTimeout(500);
      expect(await reply.locator('.message-content').textContent()).toBe(stoppedText);
      expect(await page.locator('.message-error').count()).toBe(0);
      expect(await page.getByText(/I apologize/).count()).toBe(0);
      await page.getByRole('button', { name: 'Send' }).waitFor();
      await page.close();
    });
  });

  describe('connection state', () => {
    it("shows 'System offline. Please check connection.' and the placeholder 'System offline...' within the health interval after the server stops; the visitor keeps typing, and the message sent meanwhile goes out when the server is back", async () => {
      const healthIntervalMs = 500;
      const first = await startTestApp({ healthIntervalMs });
      let second: RestartedApp | undefined;
      try {
        const page = await openChat(browser, first.url);
        const input = page.getByRole('textbox', { name: 'Your message' });
        expect(await input.isEnabled()).toBe(true);
        expect(await page.getByText(OFFLINE_BANNER).count()).toBe(0);

        const port = portOf(first.url);
        await first.close({ keepData: true });
        const banner = page.locator('.offline-banner').filter({ hasText: OFFLINE_BANNER });
        await banner.waitFor({ timeout: healthIntervalMs * 4 });
        expect(await input.getAttribute('placeholder')).toBe('System offline...');
        expect(await input.isEnabled()).toBe(true);
        // Typed and sent while the server is away: kept, and said so.
        await ask(page, QUESTIONS['customer-service']);
        await page.getByText('Your message will be sent when the connection is back.').waitFor();
        expect(await input.inputValue()).toBe(QUESTIONS['customer-service']);
        await screenshot(page, 'chat-offline-1280');

        second = await startAppOnPort(first.config, port);
        await banner.waitFor({ state: 'detached', timeout: 10000 });
        await waitOnline(page);
        // The draft went out by itself: the question is in the conversation and answered.
        await page.locator('.message-user').filter({ hasText: QUESTIONS['customer-service'] }).waitFor({ timeout: 10000 });
        expect((await finishedReply(page)).sources.length).toBeGreaterThan(0);
        expect(await input.inputValue()).toBe('');
        await page.close();
      } finally {
        if (second) await second.close();
        else await first.close();
      }
      // Two app starts, a stop and a browser reconnect: give a busy machine room.
    }, 90000);

    it('when websockets are blocked but GET /health answers, replies still stream through POST /interact', async () => {
      const t = await startTestApp({ localResponderDelayMs: 25 });
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        // A proxy that blocks Socket.IO entirely: both the websocket and long-polling.
        await context.routeWebSocket(/\/socket\.io\//, (ws) => ws.close());
        await context.route(/\/socket\.io\//, (route) => route.abort());
        const interactCalls: string[] = [];
        context.on('request', (request) => {
          if (request.url().endsWith('/interact')) interactCalls.push(request.headers()['accept'] ?? '');
        });
        const page = await context.newPage();
        await page.goto(t.url);
        await waitOnline(page);
        expect(await page.getByText(OFFLINE_BANNER).count()).toBe(0);

        await recordReplyRenders(page);
        // The page is on Customer Support (an HR question there is now "not found", as it should be).
        await ask(page, QUESTIONS['customer-service']);
        const { sources } = await finishedReply(page);
        expect(sources.length).toBeGreaterThan(0);
        expect((await replyRenders(page)).length).toBeGreaterThanOrEqual(2);
        expect(interactCalls).toEqual(['text/event-stream']);
      } finally {
        await context.close();
        await t.close();
      }
    });
  });
});
