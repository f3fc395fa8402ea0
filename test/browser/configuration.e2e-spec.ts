/**
 * The Configuration tab in Chromium against the built client and the real server: an admin signs
 * in, tests an agent's key, changes its model and prompt, and the next chat message reaches the
 * mock vendor with them; the global settings switch HR off for the server; Validate and Export work.
 */
import * as fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const EMAIL = 'config-browser@example.com';
const PASSWORD = 'browser admin password';
const KEY = 'sk-browser-test-key-000000c0de';

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByLabel('Email address').fill(EMAIL);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: /Login with Password/ }).click();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

describeBrowser('Configuration tab in the browser', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    assertClientBuilt();
    mock = await startMockLlmServer({ tokens: 4, validKeys: [KEY] });
    t = await startTestApp({ adminEmail: EMAIL, adminPassword: PASSWORD, openaiApiKey: KEY, openaiBaseUrl: mock.openaiBaseUrl, seedSampleKnowledge: false, signInIpLimit: 1000 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await signIn(page, t.url);
    await page.getByRole('tab', { name: 'Configuration' }).click();
    await page.getByRole('heading', { name: 'System Configuration' }).waitFor();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  it("changing an agent's model and prompt in the browser: the next chat reaches the vendor with them", async () => {
    const hr = page.getByRole('listitem', { name: 'Employee Support Agent' });
    await hr.getByText('sk-...c0de').waitFor();
    await hr.getByRole('button', { name: 'Configure Employee Support Agent' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Test API key' }).click();
    await dialog.getByText('Valid', { exact: true }).waitFor();
    await dialog.getByLabel('Model').fill('gpt-4.1-mini');
    await dialog.getByLabel('System Prompt').fill('You are Zed, the people-team assistant.');
    await screenshot(page, 'configuration-dialog', { fullPage: false });
    await dialog.getByRole('button', { name: 'Save Configuration' }).click();
    await dialog.waitFor({ state: 'detached' });
    await hr.getByText('gpt-4.1-mini').waitFor();
    expect(await hr.getByText('Valid', { exact: true }).count()).toBe(1);

    await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
    const record = mock.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    expect(record.model).toBe('gpt-4.1-mini');
    expect(String(record.messages![0].content)).toContain('You are Zed, the people-team assistant.');
  });

  it('Cancel discards edits', async () => {
    await page.getByRole('button', { name: 'Configure Sales Advisor Agent' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Model').fill('gpt-4o');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const res = await request(t.url).post('/interact').send({ vertical: 'sales', query: 'Tips for cold calls?' }).expect(200);
    expect(res.body.data.usage.model).toBe('gpt-4o-mini');
  });

  it('switching HR off in the settings makes the server refuse HR chats and the public settings show it disabled', async () => {
    await page.getByRole('switch', { name: 'Enable Employee Support' }).click();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Settings saved.').waitFor();
    await screenshot(page, 'configuration-tab');
    const refused = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Leave?' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('vertical_disabled');
    const settings = await request(t.url).get('/api/public/settings').expect(200);
    expect(settings.body.data.enabledVerticals).not.toContain('hr');
  });

  it("'Validate Config' shows the result and 'Export Config' downloads the JSON without keys", async () => {
    await page.getByRole('button', { name: 'Validate Config' }).click();
    await page.getByRole('status', { name: 'Validation' }).waitFor();
    expect(await page.getByRole('status', { name: 'Validation' }).textContent()).toMatch(/Employee Support Agent \(hr-agent\): its vertical Employee Support is switched off/);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export Config' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^support-assistant-config-\d{4}-\d{2}-\d{2}\.json$/);
    const file = fs.readFileSync((await download.path())!, 'utf8');
    expect(JSON.parse(file).agents).toHaveLength(5);
    expect(file).not.toContain(KEY);
  });
});
