/**
 * The embeddable widget in Chromium: a host page on another origin (another port on 127.0.0.1)
 * with the one-line snippet. The launcher shows, opens the chat, a question streams its reply with
 * sources, the conversation survives a reload and navigation; identify() ties a verified visitor's
 * conversation across browser contexts; a host origin taken off the allowed list is refused by the
 * browser (CSP frame-ancestors) and by the server (403 on the socket); unknown and deleted widgets
 * show a 404 page inside the frame without breaking the host page. Screenshots for a human.
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { adminAgent, type AdminAgent } from '../support/admin-session';
import { startTestApp, type TestApp } from '../support/test-app';
import { widgetSettings } from '../support/widgets';
import { describeBrowser, launchBrowser, screenshot } from './support/browser';

const AXE_SOURCE: string = require('axe-core').source;
const QUESTION = 'How can I get my money back for something I bought?';

interface HostSite {
  url: string;
  close(): Promise<void>;
}

/** A plain site on its own port: every page carries the snippet for `widgetId` (changeable). */
async function startHostSite(assistantUrl: string, widget: { id: string }): Promise<HostSite> {
  const server = http.createServer((req, res) => {
    const page = req.url?.split('?')[0] === '/other' ? 'Another page' : 'Home';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${page} · Example shop</title></head>
<body style="font-family:sans-serif;margin:0;padding:32px;background:#f8fafc"><h1>${page} of the example shop</h1><p>Products, prices and a help centre.</p><a href="/other">Another page</a>
<script src="${assistantUrl}/widget.js" data-widget="${widget.id}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function chatFrame(page: Page): FrameLocator {
  return page.frameLocator('.sa-panel iframe');
}

async function openWidget(page: Page): Promise<FrameLocator> {
  await page.locator('.sa-launcher').click();
  const frame = chatFrame(page);
  await frame.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 15000 });
  return frame;
}

async function ask(frame: FrameLocator, question: string): Promise<void> {
  await frame.locator('textarea').fill(question);
  await frame.locator('textarea').press('Enter');
  await frame.locator('.message-sources').last().waitFor({ timeout: 20000 });
}

describeBrowser('Embeddable widget in Chromium', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let browser: Browser;
  let widget: { id: string };
  let secret: string;
  let host: HostSite;
  const contexts: BrowserContext[] = [];

  const newPage = async (viewport = { width: 1280, height: 860 }) => {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    return { context, page: await context.newPage() };
  };

  beforeAll(async () => {
    if (!fs.existsSync(path.resolve(__dirname, '..', '..', 'dist', 'client', 'widget.js'))) throw new Error('dist/client/widget.js is missing: run "npm run build"');
    t = await startTestApp({ seedSampleKnowledge: true });
    admin = await adminAgent(t);
    browser = await launchBrowser();
    // The host site's port is known only once it listens: the widget is made first, then allowed there.
    const made = (await admin.post('/api/widgets').send(widgetSettings({ allowedOrigins: ['https://placeholder.example'] })).expect(201)).body.data;
    widget = made.widget;
    secret = made.secret;
    host = await startHostSite(t.url, widget);
    await admin.put(`/api/widgets/${widget.id}`).send(widgetSettings({ allowedOrigins: [host.url] })).expect(200);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await host?.close();
    await t?.close();
  });

  it('shows the launcher, opens the chat, streams a reply with sources, and keeps the conversation across reloads and pages', async () => {
    const { context, page } = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(host.url);
    const launcher = page.locator('.sa-launcher');
    await launcher.waitFor();
    expect(await launcher.textContent()).toBe('Chat with us');
    expect(await page.evaluate('getComputedStyle(document.querySelector(".sa-launcher")).backgroundColor')).toBe('rgb(30, 58, 138)');
    // Nothing stored, no cookie and no frame before the visitor opens it.
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator('.sa-panel').count()).toBe(0);

    await page.evaluate(`window.__events = []; ['opened', 'closed', 'message'].forEach((e) => SupportAssistant.on(e, (d) => window.__events.push([e, d && d.role])))`);
    const frame = await openWidget(page);
    await ask(frame, QUESTION);
    const reply = frame.locator('.message-sources').last();
    expect(await reply.locator('.message-source').count()).toBeGreaterThan(0);
    await page.waitForFunction('window.__events.some((e) => e[0] === "message" && e[1] === "assistant")');
    expect(await page.evaluate('window.__events.map((e) => e.filter((x) => x !== undefined).join(":"))')).toEqual(['opened', 'message:visitor', 'message:assistant']);
    await screenshot(page, 'widget-desktop', { fullPage: false });

    // The iframe's own close button, and the launcher again.
    await frame.locator('.widget-close').click();
    await page.locator('.sa-panel').waitFor({ state: 'hidden' });
    expect(await page.evaluate('window.__events.map((e) => e[0])')).toContain('closed');

    await page.reload();
    const again = await openWidget(page);
    await again.getByText(QUESTION).waitFor({ timeout: 10000 });
    await page.goto(`${host.url}/other`);
    const elsewhere = await openWidget(page);
    await elsewhere.getByText(QUESTION).waitFor({ timeout: 10000 });
    // The widget's visitor rides on its token, never on an assistant cookie.
    expect((await context.cookies()).filter((c) => c.name === 'sa_visitor')).toEqual([]);
    expect(errors).toEqual([]);
    // Three page loads, three frames and a streamed reply: more than the default 30 s on a busy machine.
  }, 90_000);

  it('fills a phone screen with a close button, and axe finds no serious or critical violation inside', async () => {
    const { page } = await newPage({ width: 390, height: 800 });
    await page.goto(host.url);
    const frame = await openWidget(page);
    const box = await page.locator('.sa-panel').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 800 });
    expect(await page.locator('.sa-launcher').isVisible()).toBe(false);
    await ask(frame, QUESTION);
    await screenshot(page, 'widget-phone', { fullPage: false });
    const inner = page.frames().find((f) => f.url().includes('/widget/'))!;
    // Evaluated, not added as an inline script tag: the widget page's CSP refuses inline scripts.
    await inner.evaluate(AXE_SOURCE);
    const violations = (await inner.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.help))`,
    )) as string[];
    expect(violations).toEqual([]);
    await frame.locator('.widget-close').click();
    await page.locator('.sa-panel').waitFor({ state: 'hidden' });
    expect(await page.locator('.sa-launcher').isVisible()).toBe(true);
  });

  it('a visitor in the widget asks for a person after a not-found answer, sees the queue, and gets the reply of a member live', async () => {
    const { page } = await newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(host.url);
    const frame = await openWidget(page);
    await frame.locator('textarea').fill('zxqv blorft wibble quandary?');
    await frame.locator('textarea').press('Enter');
    const offer = frame.getByRole('button', { name: 'Talk to a person' });
    await offer.waitFor({ timeout: 20000 });
    await offer.click();
    const panel = frame.getByRole('region', { name: 'Talk to a person' });
    await panel.getByText(/You are number \d+ in the queue\./).waitFor({ timeout: 10000 });

    // The member answers through the inbox API: the widget's conversation is the one waiting with that question.
    const inbox = (await admin.get('/api/inbox').expect(200)).body.data;
    const ids: string[] = inbox.waiting.map((item: { conversationId: string }) => item.conversationId);
    let id = '';
    for (const candidate of ids) {
      const transcript = (await admin.get(`/api/inbox/${candidate}`).expect(200)).body.data;
      if (transcript.messages.some((m: { content: string }) => m.content === 'zxqv blorft wibble quandary?')) id = candidate;
    }
    expect(id).not.toBe('');
    await admin.post(`/api/inbox/${id}/take`).send({}).expect(200);
    await panel.getByText(/is answering you\./).waitFor({ timeout: 10000 });
    await admin.post(`/api/inbox/${id}/messages`).send({ text: 'Hello from the team, inside the widget.' }).expect(201);
    const human = frame.locator('.message-agent').filter({ hasText: 'Hello from the team, inside the widget.' });
    await human.waitFor({ timeout: 10000 });
    expect(await human.locator('.message-author').textContent()).toBeTruthy();
    await screenshot(page, 'widget-handoff', { fullPage: false });
    // Once, in the widget's own conversation (the stored transcript agrees after a reload).
    expect(await human.count()).toBe(1);
    await page.reload();
    const again = await openWidget(page);
    await again.getByText('Hello from the team, inside the widget.').waitFor({ timeout: 10000 });
    expect(errors).toEqual([]);
  }, 90_000);

  it('identify() with a correct signature shows the same conversation in a second browser context; a wrong one does not', async () => {
    const signature = createHmac('sha256', secret).update('customer-1001').digest('hex');
    const question = 'Where can I see the status of my order?';
    const first = await newPage();
    await first.page.goto(host.url);
    await first.page.locator('.sa-launcher').waitFor();
    await first.page.evaluate(`SupportAssistant.identify({ id: 'customer-1001', name: 'Ada', signature: '${signature}' })`);
    const frame = await openWidget(first.page);
    await ask(frame, question);

    const second = await newPage();
    await second.page.goto(host.url);
    await second.page.locator('.sa-launcher').waitFor();
    await second.page.evaluate(`SupportAssistant.identify({ id: 'customer-1001', signature: '${signature}' })`);
    const other = await openWidget(second.page);
    await other.getByText(question).waitFor({ timeout: 10000 });

    const third = await newPage();
    await third.page.goto(host.url);
    await third.page.locator('.sa-launcher').waitFor();
    await third.page.evaluate(`SupportAssistant.identify({ id: 'customer-1001', signature: '${'0'.repeat(64)}' })`);
    const stranger = await openWidget(third.page);
    await stranger.locator('textarea').waitFor();
    await third.page.waitForTimeout(1000);
    expect(await stranger.getByText(question).count()).toBe(0);
  });

  it('shows a 404 page inside the frame for unknown and deleted widgets, without breaking the host page', async () => {
    const doomed = (await admin.post('/api/widgets').send(widgetSettings({ allowedOrigins: [host.url] })).expect(201)).body.data.widget;
    await admin.delete(`/api/widgets/${doomed.id}`).expect(200);
    for (const id of ['00000000-0000-4000-8000-000000000000', doomed.id]) {
      const site = await startHostSite(t.url, { id });
      try {
        const { page } = await newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(site.url);
        await page.waitForFunction('typeof window.SupportAssistant === "object"');
        await page.waitForTimeout(500);
        expect(await page.locator('.sa-launcher').count()).toBe(0);
        await page.evaluate('SupportAssistant.open()');
        await chatFrame(page).getByText('This chat is not available').waitFor({ timeout: 10000 });
        expect(await page.locator('h1').textContent()).toBe('Home of the example shop');
        expect(errors).toEqual([]);
      } finally {
        await site.close();
      }
    }
  });

  it('is refused by the browser (CSP frame-ancestors) and by the socket (403) once the host origin is off the allowed list', async () => {
    const locked = (await admin.post('/api/widgets').send(widgetSettings({ allowedOrigins: [host.url] })).expect(201)).body.data.widget;
    const site = await startHostSite(t.url, locked);
    try {
      await admin.put(`/api/widgets/${locked.id}`).send(widgetSettings({ allowedOrigins: ['https://shop.example.com'] })).expect(200);
      const { page } = await newPage();
      const consoleLines: string[] = [];
      page.on('console', (message) => consoleLines.push(message.text()));
      await page.goto(site.url);
      await page.waitForFunction('typeof window.SupportAssistant === "object"');
      await page.evaluate('SupportAssistant.open()');
      await page.locator('.sa-panel iframe').waitFor();
      await page.waitForTimeout(1500);
      // The frame never shows the chat: the browser refused to render it.
      expect(await chatFrame(page).locator('.chat-page').count()).toBe(0);
      expect(consoleLines.some((line) => /frame-ancestors/.test(line))).toBe(true);
      // The socket from this origin with the widget id: refused with 403.
      await page.addScriptTag({ url: `${t.url}/socket.io/socket.io.js` });
      const refusal = await page.evaluate(
        `new Promise((resolve) => { const s = io('${t.url}', { transports: ['websocket'], reconnection: false, auth: { widget: '${locked.id}' } }); s.on('connect', () => resolve('connected')); s.on('connect_error', (e) => { s.close(); resolve(e.data); }); })`,
      );
      expect(refusal).toMatchObject({ code: 'forbidden', status: 403 });
    } finally {
      await site.close();
    }
  });
});
