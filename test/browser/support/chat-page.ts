/**
 * Page helpers shared by the browser suites: opening the chat page or the console at a given
 * viewport and colour scheme, asking a question, waiting for the reply, choosing a jurisdiction,
 * axe-core's serious and critical violations, and the page's errors and requests.
 */
import * as fs from 'node:fs';
import type { Browser, BrowserContextOptions, ConsoleMessage, Page } from 'playwright-core';
import type { TestApp } from '../../support/test-app';
import { signedInContext } from './admin-context';

// page.evaluate callbacks run in the browser; the server tsconfig has no DOM types.
export type BrowserGlobals = { document: any; axe: any; getComputedStyle: any; innerHeight: number; innerWidth: number };

export const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
export type ViewportName = keyof typeof VIEWPORTS;
export type Scheme = 'light' | 'dark';

export function contextOptions(viewport: ViewportName, scheme: Scheme = 'light'): BrowserContextOptions {
  const phone = viewport === 'phone';
  return { viewport: VIEWPORTS[viewport], colorScheme: scheme, ...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) };
}

/** A new context and page on the chat page, once it is online. */
export async function openPage(browser: Browser, url: string, viewport: ViewportName = 'desktop', scheme: Scheme = 'light'): Promise<Page> {
  const context = await browser.newContext(contextOptions(viewport, scheme));
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('.connection-pill[data-status="online"]').waitFor({ timeout: 10000 });
  return page;
}

export async function closePage(page: Page): Promise<void> {
  await page.context().close();
}

/** The console, signed in as `admin`, once its heading shows. */
export async function openConsole(browser: Browser, t: TestApp, admin: { email: string; password: string }, viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<Page> {
  const context = await signedInContext(browser, t, admin, viewport);
  const page = await context.newPage();
  await page.goto(`${t.url}/admin`);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: 15000 });
  return page;
}

export async function ask(page: Page, question: string): Promise<void> {
  const input = page.locator('.composer textarea');
  await input.fill(question);
  await input.press('Enter');
}

export const lastReply = (page: Page) => page.locator('.message-agent').last();

export async function finished(page: Page): Promise<void> {
  await lastReply(page).locator('.message-time').waitFor({ timeout: 15000 });
}

/** Serious and critical axe-core violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(async () => {
    const g = globalThis as unknown as BrowserGlobals;
    const run = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return run.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n: any) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  });
  return (results as { id: string; impact: string; nodes: string[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(' | ')}`);
}

export async function chooseJurisdiction(page: Page, country: RegExp, region?: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: country }).click();
  if (region) {
    await dialog.getByRole('combobox').selectOption(region);
    await dialog.locator('button[type="submit"]').click();
  }
  await dialog.waitFor({ state: 'detached' });
}

/** Errors the page logs (a Content-Security-Policy violation is one) and uncaught exceptions. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** Every URL the page asks for, from its documents, scripts, images, fetches and sockets. */
export function collectRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

/** Whether the whole of `selector`'s first match lies inside the viewport (nothing below the fold or cut off). */
export async function inViewport(page: Page, selector: string): Promise<{ inside: boolean; box: { x: number; y: number; width: number; height: number } | null; viewport: { width: number; height: number } }> {
  const box = await page.locator(selector).first().boundingBox();
  const viewport = page.viewportSize()!;
  const inside = box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width + 0.5 && box.y + box.height <= viewport.height + 0.5;
  return { inside, box, viewport };
}
