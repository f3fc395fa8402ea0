/**
 * Rate limits and budgets in Chromium against the built client and the real server: a message a rate limit
 * refuses shows the countdown and keeps the typed text; the console's budget bars move after
 * chats without a refresh (budget:update on the /admin socket). Screenshots (1280x800 and
 * 390x844) go to test-artifacts/.
 */
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { AgentConfigService } from '../../src/agents/agent-config.service';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { signedInContext } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const ADMIN = { email: 'limits-browser@example.com', password: 'limits browser password' };
/** The countdown's seconds: "in 42 s", "in 1 min" or "in 1 min 5 s". */
function secondsLeft(text: string | null): number {
  const m = /in (?:(\d+) min)? ?(?:(\d+) s)?\./.exec(text ?? '');
  if (!m || (m[1] === undefined && m[2] === undefined)) throw new Error(`no countdown in: ${text}`);
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
}

describeBrowser('cost and abuse control in Chromium', () => {
  let browser: Browser;
  let mock: MockLlmServer;
  let t: TestApp;

  beforeAll(async () => {
    assertClientBuilt();
    mock = await startMockLlmServer({ tokens: 12 });
    t = await startTestApp(
      { openaiApiKey: 'sk-x', openaiBaseUrl: mock.openaiBaseUrl, adminEmail: ADMIN.email, adminPassword: ADMIN.password, signInIpLimit: 1000 },
      { chatLimits: 'defaults' },
    );
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  it.each([
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ])('the chat page (%s): a message over the limit shows a countdown and keeps the typed text', async (name, viewport) => {
    // One message a minute per visitor: the second is refused for up to a minute.
    await t.app.get(AgentConfigService).updateGlobal({ chatLimits: { visitorPerMinute: 1 } });
    const context = await browser.newContext({ viewport });
    const page: Page = await context.newPage();
    try {
      await page.goto(t.url);
      const input = page.getByRole('textbox', { name: 'Your message' });
      await page.getByText('Online', { exact: true }).first().waitFor({ timeout: 15000 });
      await input.fill('Where is my order?');
      await input.press('Enter');
      await page.locator('.message-agent').last().getByText(/\S/).first().waitFor({ timeout: 15000 });
      await page.waitForTimeout(300);
      await input.fill('And when will it arrive?');
      await input.press('Enter');
      const notice = page.getByTestId('rate-limit-notice');
      await notice.waitFor({ timeout: 10000 });
      const first = secondsLeft(await notice.textContent());
      expect(first).toBeGreaterThan(1);
      expect(first).toBeLessThanOrEqual(60);
      expect(await input.inputValue()).toBe('And when will it arrive?');
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
      await screenshot(page, `limits-chat-countdown-${name}`, { fullPage: false });
      // It counts down.
      await page.waitForTimeout(2200);
      const later = secondsLeft(await notice.textContent());
      expect(later).toBeLessThan(first);
    } finally {
      await context.close();
      await t.app.get(AgentConfigService).updateGlobal({ chatLimits: { visitorPerMinute: 10 } });
    }
  }, 60000);

  it.each([
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ])("the console's budget bars (%s) move after chats without a refresh", async (name, viewport) => {
    await t.app.get(AgentConfigService).updateGlobal({
      budgets: { list: [{ scope: 'global', monthlyUsd: 0.02, softPercent: 80, onCap: 'refuse' }, { scope: 'vertical:hr', monthlyUsd: 0.01, softPercent: 50, onCap: 'offline' }], visitorDailyTokens: null },
    });
    const context = await signedInContext(browser, t, ADMIN, viewport);
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/admin`);
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: 15000 });
      await page.getByRole('tab', { name: 'Budgets' }).click();
      await page.locator('.budgets-live').waitFor({ timeout: 10000 });
      const bar = page.locator('.budget-bar[data-scope="vertical:hr"] .budget-bar-spent');
      await bar.waitFor();
      const before = (await bar.textContent()) ?? '';
      let loads = 0;
      page.on('request', (r) => {
        if (r.url().endsWith('/api/budgets')) loads += 1;
      });
      for (let i = 0; i < 3; i += 1) await request(t.url).post('/interact').send({ vertical: 'hr', query: `How many vacation days do I get? ${i} [mock:tokens=400]` }).expect(200);
      const deadline = Date.now() + 10_000;
      while ((await bar.textContent()) === before && Date.now() < deadline) await page.waitForTimeout(100);
      expect(await bar.textContent()).not.toBe(before);
      // Reloaded by the push (no click, no page reload).
      expect(loads).toBeGreaterThanOrEqual(1);
      await screenshot(page, `limits-budgets-${name}`);
    } finally {
      await context.close();
    }
  }, 60000);
});
