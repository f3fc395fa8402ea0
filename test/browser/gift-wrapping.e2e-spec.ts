/**
 * The gift-wrapping item (a heading, a numbered price list, a table and a code block, with a text
 * attachment) asked about on the chat page with the offline responder: the reply shows the list
 * and the table with the prices as list and table elements, no stray ``` fence, and the
 * attachment's first line is not glued onto the item's text. Screenshots:
 * test-artifacts/gift-wrapping-reply-top.png and -end.png (look at them).
 */
import type { Browser, Page } from 'playwright-core';
import { GIFT_WRAPPING } from '../fixtures/gift-wrapping';
import { adminAgent } from '../support/admin-session';
import { startTestApp, type TestApp } from '../support/test-app';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ARTIFACTS_DIR, assertClientBuilt, describeBrowser, launchBrowser } from './support/browser';

describeBrowser('the gift-wrapping answer in Chromium (offline responder)', () => {
  let browser: Browser;
  let t: TestApp;

  beforeAll(async () => {
    assertClientBuilt();
    browser = await launchBrowser();
    t = await startTestApp({ seedSampleKnowledge: false });
    const admin = await adminAgent(t);
    await admin
      .post('/api/knowledge')
      .send({
        title: GIFT_WRAPPING.title,
        content: GIFT_WRAPPING.content,
        category: 'Orders',
        vertical: 'customer-service',
        tags: ['gift'],
        attachments: [{ name: GIFT_WRAPPING.attachment.name, type: 'text/plain', size: Buffer.byteLength(GIFT_WRAPPING.attachment.content), content: GIFT_WRAPPING.attachment.content }],
      })
      .expect(201);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the heading, the numbered price list and the price table, with nothing glued on', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page: Page = await context.newPage();
    await page.goto(t.url);
    await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
    const input = page.locator('.composer textarea');
    await input.fill(GIFT_WRAPPING.question);
    await input.press('Enter');
    const reply = page.locator('.message-agent').last();
    await reply.locator('.message-time').waitFor({ timeout: 15000 });
    const content = reply.locator('.message-content');

    const items = await content.locator('ol > li').allTextContents();
    expect(items).toEqual(['Classic paper wrapping: $4', 'Premium box with ribbon: $9', 'Eco fabric wrap (reusable): $7']);
    const table = content.getByRole('table');
    expect(await table.locator('th').allTextContents()).toEqual(['Style', 'Price', 'Delivery']);
    expect(await table.locator('tbody tr').allTextContents()).toEqual(['Classic$4same day', 'Premium$9next day', 'Eco$7same day']);
    const text = (await content.innerText()) ?? '';
    expect(text).not.toContain('```');
    expect(text).not.toMatch(/\| *--- *\|/);
    // The item's title stands on its own line, not run into the passage.
    expect(text).toMatch(/(^|\n)Gift wrapping\s*\n/);
    expect(text).not.toMatch(/Gift wrapping We wrap/);
    // The attachment's first line is never glued onto the item's text.
    expect(text).not.toMatch(/\S[ \t]*Warranty claims/);
    expect(text).not.toMatch(/GIFTNOTE-2024\s*Warranty/);
    // The chat scrolls inside its own pane: the reply's top (title, list) and its end (table, code), each in view.
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await reply.evaluate((el: { scrollIntoView(o: unknown): void }) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'gift-wrapping-reply-top.png') });
    await reply.evaluate((el: { scrollIntoView(o: unknown): void }) => el.scrollIntoView({ block: 'end' }));
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'gift-wrapping-reply-end.png') });
    await context.close();
  });
});
