/**
 * Conversations that last, in Chromium against the built client and the real server:
 * tab switches, reloads, New chat and delete; a reply that survives a dropped connection and a
 * reload mid-reply, on one server and across two servers sharing Redis (and Postgres in CI); a
 * reply whose server is killed (kill -9) mid-reply, taken over by the other server.
 */
import type { Browser, Page } from 'playwright-core';
import { portableSql } from '../../src/database/sql';
import { startMockLlmServer, type MockLlmServer } from '../support/mock-llm-server';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy';
import { distributed, startTestApp, uniqueSchema, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';
import { startServerProcess, type ServerProcess } from '../faults/support/server-process';
import { describeWith, NEEDS } from '../support/requirements';

async function waitOnline(page: Page, timeout = 15000): Promise<void> {
  await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout });
}

async function openChat(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await waitOnline(page);
  return page;
}

async function ask(page: Page, question: string): Promise<void> {
  // The message box, whatever the interface language.
  const input = page.locator('.composer textarea');
  await input.fill(question);
  await input.press('Enter');
}

const lastReply = (page: Page) => page.locator('.message-agent').last();

async function finishedReplyText(page: Page, timeout = 20000): Promise<string> {
  const reply = lastReply(page);
  await reply.locator('.message-time').waitFor({ timeout });
  return (await reply.locator('.message-content').textContent()) ?? '';
}

/** The Spanish interface's texts (client/src/features/chat/i18n/es.ts): the conversation test switches the page to Spanish. */
const es = {
  chat: { newChat: 'Nuevo chat', deleteConversations: 'Eliminar mis conversaciones', deleteTitle: '¿Eliminar sus conversaciones?', deleteConfirm: 'Eliminar' },
};
const SALES_ES = /Asesor de ventas/;
const SUPPORT_ES = /Atención al cliente/;

async function panelTexts(page: Page): Promise<string[]> {
  return page.locator('.message-list .message').allTextContents();
}

async function tab(page: Page, name: RegExp): Promise<void> {
  await page.getByRole('tab', { name }).click();
}

/** Waits until the streaming reply shows some text (the provider is mid-reply). */
async function midReply(page: Page): Promise<void> {
  await page.locator('[data-streaming="true"] .message-content').filter({ hasText: /tok5\b/ }).waitFor({ timeout: 15000 });
}

// page.evaluate callbacks run in the browser; the server tsconfig has no DOM types.
type BrowserGlobals = { document: any; MutationObserver: any; __streamed?: string[] };

/**
 * From now on, records each text the still-streaming reply shows: a reply that continues live
 * (rather than being read back whole once it ended) shows several.
 */
async function recordStreaming(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as BrowserGlobals;
    const texts: string[] = [];
    g.__streamed = texts;
    new g.MutationObserver(() => {
      const text: string | undefined = g.document.querySelector('[data-streaming="true"] .message-content')?.textContent ?? undefined;
      if (text && texts[texts.length - 1] !== text) texts.push(text);
    }).observe(g.document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

async function streamedTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as BrowserGlobals).__streamed ?? []);
}

async function count(t: TestApp, table: string): Promise<number> {
  const rows: { n: string | number }[] = await t.dataSource.query(portableSql(t.dataSource, `SELECT COUNT(*) AS n FROM ${table}`));
  return Number(rows[0].n);
}

describeBrowser('conversations that last, in Chromium', () => {
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
      t = await startTestApp({ localResponderDelayMs: 5 });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('keeps each vertical’s exchange across tab switches and reloads, with the language; New chat empties the panel for good; delete removes them on the server', async () => {
      const page = await openChat(browser, t.url);
      // In Spanish: the interface is Spanish from then on (and remembered across reloads).
      await page.getByRole('combobox').selectOption('es');
      await ask(page, 'How do I reset my password?');
      const supportReply = await finishedReplyText(page);
      await tab(page, SALES_ES);
      await ask(page, 'How should I handle a prospect who says the price is too high?');
      const salesReply = await finishedReplyText(page);

      await tab(page, SUPPORT_ES);
      const back = await panelTexts(page);
      expect(back).toHaveLength(3);
      expect(back[1]).toContain('How do I reset my password?');
      expect(back[2]).toContain(supportReply);

      await page.reload();
      await waitOnline(page);
      await page.locator('.message-list .message').nth(2).waitFor();
      expect(await page.getByRole('tab', { name: SUPPORT_ES }).getAttribute('aria-selected')).toBe('true');
      expect(await page.getByRole('combobox').inputValue()).toBe('es');
      const reloaded = await panelTexts(page);
      expect(reloaded[1]).toContain('How do I reset my password?');
      expect(reloaded[2]).toContain(supportReply);
      await tab(page, SALES_ES);
      const sales = await panelTexts(page);
      expect(sales).toHaveLength(3);
      expect(sales[2]).toContain(salesReply);
      await screenshot(page, 'conversations-after-reload-1280');

      await tab(page, SUPPORT_ES);
      await page.getByRole('button', { name: es.chat.newChat }).click();
      expect(await panelTexts(page)).toHaveLength(1);
      await page.reload();
      await waitOnline(page);
      // Sales is back from the server (so the page has read its conversations), Customer Support stays empty.
      await tab(page, SALES_ES);
      await page.locator('.message-list .message').nth(2).waitFor();
      await tab(page, SUPPORT_ES);
      expect(await panelTexts(page)).toHaveLength(1);
      expect(await count(t, 'conversations')).toBe(2);

      await page.getByRole('button', { name: es.chat.deleteConversations }).click();
      const dialog = page.getByRole('dialog', { name: es.chat.deleteTitle });
      await screenshot(page, 'conversations-delete-dialog-1280', { fullPage: false });
      await dialog.getByRole('button', { name: es.chat.deleteConfirm, exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await count(t, 'conversations')).toBe(0);
      expect(await count(t, 'conversation_messages')).toBe(0);
      await page.reload();
      await waitOnline(page);
      await tab(page, SALES_ES);
      await page.waitForTimeout(300);
      expect(await panelTexts(page)).toHaveLength(1);
      await page.close();
    }, 60000);
  });

  describe('a reply from an LLM vendor (mock) that outlives its connection, on one server', () => {
    let mock: MockLlmServer;
    let t: TestApp;
    let proxy: SwitchProxy;

    beforeAll(async () => {
      mock = await startMockLlmServer({ tokens: 60, delayMs: 30 });
      t = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
      proxy = await startSwitchProxy(t.url);
    });

    afterEach(() => mock.reset());

    afterAll(async () => {
      await proxy?.close();
      await t?.close();
      await mock?.close();
    });

    it('the connection drops mid-reply: the page reconnects and shows the provider’s full reply exactly once', async () => {
      const page = await openChat(browser, proxy.url);
      await ask(page, 'Tell me about your return policy');
      await midReply(page);
      await recordStreaming(page);
      proxy.dropConnections();
      const text = await finishedReplyText(page);
      const [record] = mock.requests;
      expect(text).toBe(record.replyText);
      // It went on live after the reconnect, growing frame by frame.
      expect((await streamedTexts(page)).length).toBeGreaterThanOrEqual(3);
      expect(await page.getByText(/I apologize/).count()).toBe(0);
      await page.close();
    });

    it('a reload mid-reply: the page picks the reply up again and shows it whole, exactly once', async () => {
      const page = await openChat(browser, t.url);
      await ask(page, 'Tell me about your shipping options');
      await midReply(page);
      await page.reload();
      await recordStreaming(page);
      await waitOnline(page);
      const text = await finishedReplyText(page);
      expect(text).toBe(mock.requests[0].replyText);
      expect((await streamedTexts(page)).length).toBeGreaterThanOrEqual(3);
      expect((await panelTexts(page))[1]).toContain('Tell me about your shipping options');
      await page.close();
    });
  });

  // Two servers need Redis to share reply streams; .ci/run sets REDIS_URL (and DATABASE_URL).
  const describeWithRedis = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl], name, fn);

  describeWithRedis('two servers on one Redis and database', () => {
    let mock: MockLlmServer;
    let a: TestApp;
    let b: TestApp;
    let proxy: SwitchProxy;

    beforeAll(async () => {
      mock = await startMockLlmServer({ tokens: 60, delayMs: 30 });
      const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
      a = await startTestApp({ databaseSchema: schema, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
      b = await startTestApp({ databaseSchema: schema, dataDir: a.config.dataDir, redisPrefix: a.config.redisPrefix, openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
      proxy = await startSwitchProxy(a.url);
    }, 60000);

    afterEach(() => mock.reset());

    afterAll(async () => {
      await proxy?.close();
      await b?.close({ keepData: true });
      await a?.close();
      await mock?.close();
    });

    it('streaming from server A, the connection is lost and the page reconnects to server B: the full reply shows exactly once', async () => {
      proxy.switchTo(a.url);
      const page = await openChat(browser, proxy.url);
      await ask(page, 'Tell me about your warranty');
      await midReply(page);
      await recordStreaming(page);
      proxy.switchTo(b.url);
      const text = await finishedReplyText(page);
      expect(mock.requests).toHaveLength(1);
      expect(text).toBe(mock.requests[0].replyText);
      // Server B streamed the rest live (from the Redis stream), not a read of the finished reply.
      expect((await streamedTexts(page)).length).toBeGreaterThanOrEqual(3);
      await page.close();
    }, 60000);

    it('streaming from server A, the page reloads from server B mid-reply: the full reply shows exactly once', async () => {
      proxy.switchTo(a.url);
      const page = await openChat(browser, proxy.url);
      await ask(page, 'Tell me about gift cards');
      await midReply(page);
      proxy.switchTo(b.url);
      await page.reload();
      await recordStreaming(page);
      await waitOnline(page);
      const text = await finishedReplyText(page);
      expect(mock.requests).toHaveLength(1);
      expect(text).toBe(mock.requests[0].replyText);
      expect((await streamedTexts(page)).length).toBeGreaterThanOrEqual(3);
      await page.close();
    }, 60000);
  });

  // A killed server is a process of its own (server A); B runs here. Both need Redis and Postgres.
  const describeWithServices = (name: string, fn: () => void) => describeWith([NEEDS.redisUrl, NEEDS.databaseUrl], name, fn);

  describeWithServices('the server writing the reply is killed (kill -9)', () => {
    let mock: MockLlmServer;
    let a: ServerProcess | undefined;
    let b: TestApp;
    let proxy: SwitchProxy;

    beforeAll(async () => {
      mock = await startMockLlmServer({ tokens: 60, delayMs: 40 });
      b = await startTestApp({ databaseSchema: uniqueSchema(), openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
      a = await startServerProcess(
        {
          DATA_DIR: b.config.dataDir,
          DATABASE_URL: b.config.databaseUrl,
          DATABASE_SCHEMA: b.config.databaseSchema,
          REDIS_URL: b.config.redisUrl,
          REDIS_PREFIX: b.config.redisPrefix,
          OPENAI_API_KEY: 'sk-test',
          OPENAI_BASE_URL: mock.openaiBaseUrl,
        },
        120_000,
      );
      proxy = await startSwitchProxy(a.url);
    }, 180_000);

    afterAll(async () => {
      a?.kill();
      await a?.exited;
      await proxy?.close();
      await b?.close();
      await mock?.close();
    });

    it('another server takes the reply over: the page drops the partial text and shows the provider\'s full reply exactly once', async () => {
      const page = await openChat(browser, proxy.url);
      await ask(page, 'Tell me about your warranty');
      await midReply(page);
      await recordStreaming(page);
      a!.kill('SIGKILL');
      await a!.exited;
      proxy.switchTo(b.url);
      const text = await finishedReplyText(page, 40_000);
      await screenshot(page, 'conversations-takeover');
      // Asked twice (A's call died with it; B asked again), with the same prompt and the same reply.
      expect(mock.requests).toHaveLength(2);
      expect(JSON.stringify(mock.requests[1].messages)).toBe(JSON.stringify(mock.requests[0].messages));
      expect(text).toBe(mock.requests[1].replyText);
      // Every text the streaming reply showed was a beginning of the reply: the partial text was
      // dropped at the restart, never shown twice; and B streamed the new one live.
      const streamed = await streamedTexts(page);
      for (const shown of streamed) expect({ shown, prefix: mock.requests[1].replyText!.startsWith(shown) }).toEqual({ shown, prefix: true });
      expect(streamed.length).toBeGreaterThanOrEqual(3);
      await page.close();
    }, 90_000);
  });
});
