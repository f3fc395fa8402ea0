/**
 * Embeddings in Chromium against the built client and the real server: an admin turns hybrid
 * retrieval on in the Configuration tab (an OpenAI-compatible server: the mock's /v1/embeddings),
 * the backfill runs, and the Knowledge tab shows "n of N chunks embedded"; its Test button checks
 * the settings as entered (Valid, or Invalid with the reason, in the page).
 */
import type { Browser, Page } from 'playwright-core';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startTestApp, type TestApp } from '../support/test-app';
import { signedInContext } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const ADMIN = { email: 'embeddings-browser@example.com', password: 'browser admin password' };

describeBrowser('Embeddings in the browser', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    assertClientBuilt();
    mock = await startMockLlmServer();
    t = await startTestApp({ adminEmail: ADMIN.email, adminPassword: ADMIN.password });
    browser = await launchBrowser();
    page = await (await signedInContext(browser, t, ADMIN, { width: 1280, height: 800 })).newPage();
    // The test's result is shown in the page, never in an alert.
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${t.url}/admin`);
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await mock?.close();
  });

  it('the Embeddings section turns hybrid retrieval on; the backfill finishes and the Knowledge tab shows "n of N chunks embedded"', async () => {
    await page.getByRole('tab', { name: 'Configuration' }).click();
    const section = page.getByRole('region', { name: 'Embeddings' });
    await section.waitFor();
    await section.getByRole('switch', { name: 'Use embeddings' }).check();
    await section.getByLabel('Provider').selectOption('openai-compatible');
    await section.getByLabel('Model').fill('nomic-embed-text');
    await section.getByLabel('Base URL').fill(mock.openaiBaseUrl);
    // Test before saving: one embeddings call with the settings as entered, the result in the page.
    await section.getByRole('button', { name: 'Test embeddings key' }).click();
    await section.getByText('Valid', { exact: true }).waitFor();
    await section.getByText('OpenAI-compatible accepted the key: nomic-embed-text returned a vector of 64 numbers.').waitFor();
    expect(mock.requests.at(-1)).toMatchObject({ kind: 'embeddings', path: '/v1/embeddings', model: 'nomic-embed-text' });
    await screenshot(page, 'embeddings-test-valid-1280');
    await section.getByRole('button', { name: 'Save Embeddings' }).click();
    await section.getByText(/Embeddings \(nomic-embed-text\): \d+ of \d+ chunks embedded/).waitFor();
    await screenshot(page, 'embeddings-configuration-1280');

    await page.getByRole('tab', { name: 'Knowledge Base' }).click();
    const line = page.getByText(/Embeddings \(nomic-embed-text\): (\d[\d,]*) of \1 chunks embedded$/);
    await line.waitFor({ timeout: 15000 });
    const text = (await line.textContent())!;
    const [, n] = /: ([\d,]+) of/.exec(text)!;
    expect(Number(n.replace(/,/g, ''))).toBeGreaterThan(0);
    await screenshot(page, 'embeddings-knowledge-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'embeddings-knowledge-390', { fullPage: true });
    await page.getByRole('tab', { name: 'Configuration' }).click();
    await page.getByRole('region', { name: 'Embeddings' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'embeddings-configuration-390');
  });

  it('Test with a key the server refuses: Invalid with the reason in the page; an edit clears the result', async () => {
    mock.configure({ validKeys: ['sk-the-right-one'] });
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.getByRole('tab', { name: 'Configuration' }).click();
      const section = page.getByRole('region', { name: 'Embeddings' });
      await section.getByLabel('Key', { exact: true }).fill('sk-the-wrong-one');
      await section.getByRole('button', { name: 'Test embeddings key' }).click();
      await section.getByText('Invalid', { exact: true }).waitFor();
      await section.getByText('The provider refused the key (HTTP 401).').waitFor();
      expect(mock.requests.at(-1)).toMatchObject({ kind: 'embeddings', status: 401, apiKey: 'sk-the-wrong-one' });
      await screenshot(page, 'embeddings-test-invalid-1280');
      await section.getByLabel('Model').fill('nomic-embed-text-v2');
      await section.getByText('Invalid', { exact: true }).waitFor({ state: 'detached' });
      expect(await section.getByText('The provider refused the key (HTTP 401).').count()).toBe(0);
      expect(dialogs).toEqual([]);
    } finally {
      mock.configure({ validKeys: undefined });
    }
  });
});
