/**
 * The Inbox tab in Chromium, a visitor window and an agent window on the real server: the visitor
 * asks for a person; the agent (role agent, signed in with a password) sees it in Waiting, with
 * the unread count in the page title, takes it, types (the visitor sees the typing indicator),
 * replies (the visitor sees it with the agent's name), adds an internal note the visitor never
 * sees, and resolves. axe-core finds no serious or critical violation on the Inbox tab.
 * Screenshot: test-artifacts/inbox-1280.png (look at it).
 */
import type { Browser, Page } from 'playwright-core';
import { AdminUsersService } from '../../src/auth/admin-users.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { ask, axeViolations, closePage, collectErrors, finished, openConsole, openPage } from './support/chat-page';

jest.setTimeout(120000);

const QUESTION = 'zxqv blorft wibble quandary?';

describeBrowser('the Inbox tab: a visitor and an agent in Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  const agent = { email: 'inbox.agent@example.com', password: 'agent password 456', name: 'Ines Agent' };

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ signInIpLimit: 1000 });
    await t.app.get(AdminUsersService).create({ ...agent, role: 'agent' });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const waitingRow = (page: Page) => page.getByRole('list', { name: /^Waiting/ }).getByRole('button', { name: new RegExp(QUESTION.slice(0, 12)) });
  const openRow = (page: Page) => page.getByRole('list', { name: /^Open/ }).getByRole('button', { name: new RegExp(QUESTION.slice(0, 12)) });

  it('the agent sees the request in Waiting, takes it, types, replies with their name, notes, and resolves', async () => {
    const agentPage = await openConsole(browser, t, agent);
    const consoleErrors = collectErrors(agentPage);
    await agentPage.getByRole('tab', { name: 'Inbox' }).click();
    await agentPage.getByText('Nobody is waiting for a person.').waitFor({ timeout: 10000 });

    const visitor = await openPage(browser, t.url);
    await ask(visitor, QUESTION);
    await finished(visitor);
    await visitor.getByRole('button', { name: 'Talk to a person' }).click();
    const panel = visitor.getByRole('region', { name: 'Talk to a person' });
    await panel.getByText(/You are number 1 in the queue\./).waitFor({ timeout: 10000 });

    // Live: the request reaches the open agentPage over /admin, and the title counts the unread.
    await waitingRow(agentPage).waitFor({ timeout: 10000 });
    await agentPage.waitForFunction(() => /^\(\d+\) Admin Dashboard$/.test(document.title), undefined, { timeout: 10000 });

    await waitingRow(agentPage).click();
    const conversation = agentPage.getByRole('article');
    await conversation.getByText(QUESTION).first().waitFor();
    await conversation.getByRole('button', { name: 'Take' }).click();
    await openRow(agentPage).waitFor({ timeout: 10000 });
    await panel.getByText(/is answering you\./).waitFor({ timeout: 10000 });

    const reply = conversation.getByRole('textbox', { name: 'Reply to the visitor' });
    await reply.pressSequentially('Hello, I am here', { delay: 20 });
    await visitor.getByTestId('human-typing').waitFor({ timeout: 10000 });
    await reply.pressSequentially(' to help you.', { delay: 20 });
    await conversation.getByRole('button', { name: 'Send' }).click();

    const human = visitor.locator('.message-agent').filter({ hasText: 'Hello, I am here to help you.' });
    await human.waitFor({ timeout: 10000 });
    expect(await human.locator('.message-author').textContent()).toContain(agent.name);
    await conversation.getByText(`Reply · ${agent.name}`).waitFor({ timeout: 10000 });
    // Answered: nothing unread is left in the title.
    await agentPage.waitForFunction(() => document.title === 'Admin Dashboard', undefined, { timeout: 10000 });

    await conversation.getByRole('checkbox', { name: 'Internal note' }).check();
    await conversation.getByRole('textbox', { name: 'Internal note' }).fill('Asked about a made-up word; check the glossary.');
    await conversation.getByRole('button', { name: 'Add note' }).click();
    const note = conversation.locator('li.is-note').filter({ hasText: 'Asked about a made-up word' });
    await note.waitFor({ timeout: 10000 });
    await conversation.getByRole('checkbox', { name: 'Internal note' }).uncheck();

    expect(await axeViolations(agentPage)).toEqual([]);
    await screenshot(agentPage, 'inbox-1280', { fullPage: false });

    await conversation.getByRole('button', { name: 'Resolve' }).click();
    await conversation.getByText('This conversation is resolved. Notes can still be added.').waitFor({ timeout: 10000 });
    await visitor.getByText('The conversation with our team has ended.').waitFor({ timeout: 10000 });
    await agentPage.getByText('No open conversations.').waitFor({ timeout: 10000 });
    // The note never reached the visitor.
    expect(await visitor.getByText('Asked about a made-up word').count()).toBe(0);
    expect(consoleErrors).toEqual([]);

    await closePage(visitor);
    await closePage(agentPage);
  });
});
