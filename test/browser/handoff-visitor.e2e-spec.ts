/**
 * A visitor asks for a person in Chromium and a member answers through the inbox API: the queue
 * place, the member's name, their typing and reply live, and the end. Screenshot:
 * test-artifacts/handoff-visitor-1280.png (look at it).
 */
import type { Browser } from 'playwright-core';
import { adminAgent, type AdminAgent } from '../support/admin-session';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { ask, closePage, finished, openPage } from './support/chat-page';

jest.setTimeout(120000);

describeBrowser('talk to a person, visitor side, in Chromium', () => {
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

  it('a not-found answer offers a person; the queue place shows; the member takes it, types and replies live; resolved ends it', async () => {
    const page = await openPage(browser, t.url);
    await ask(page, 'zxqv blorft wibble quandary?');
    await finished(page);
    await page.getByRole('button', { name: 'Talk to a person' }).click();
    const panel = page.getByRole('region', { name: 'Talk to a person' });
    await panel.getByText(/You are number 1 in the queue\./).waitFor({ timeout: 10000 });

    const inbox = (await admin.get('/api/inbox').expect(200)).body.data;
    expect(inbox.waiting).toHaveLength(1);
    const id = inbox.waiting[0].conversationId;
    await admin.post(`/api/inbox/${id}/take`).send({}).expect(200);
    await panel.getByText(/is answering you\./).waitFor({ timeout: 10000 });
    await admin.post(`/api/inbox/${id}/typing`).send({ typing: true }).expect((res) => expect(res.status).toBeLessThan(300));
    await page.getByTestId('human-typing').waitFor({ timeout: 10000 });
    await admin.post(`/api/inbox/${id}/messages`).send({ text: 'Hello, I am here to help you.' }).expect(201);
    const human = page.locator('.message-agent').filter({ hasText: 'Hello, I am here to help you.' });
    await human.waitFor({ timeout: 10000 });
    expect(await human.locator('.message-author').textContent()).toBeTruthy();
    // A person's message has no Regenerate: only the assistant's replies are written again.
    expect(await human.getByRole('button', { name: 'Regenerate' }).count()).toBe(0);
    await screenshot(page, 'handoff-visitor-1280', { fullPage: false });
    await admin.post(`/api/inbox/${id}/resolve`).send({}).expect(200);
    await page.getByText('The conversation with our team has ended.').waitFor({ timeout: 10000 });
    await closePage(page);
  });
});
