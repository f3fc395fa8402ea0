/**
 * The sign-in steps and every console tab in Chromium, light and dark (prefers-color-scheme
 * emulated): axe-core finds no serious or critical violation, and a screenshot of each screen at
 * 1280x800 and 390x844 goes to test-artifacts/a11y-<screen>-<width>-<scheme>.png. Under each
 * scheme the screen is actually in it: the page, its cards and any open dialog have a dark
 * background and light text under the dark scheme, the other way round under the light one.
 */
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { AgentConfigService } from '../../src/agents/agent-config.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { signedInContext } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const EMAIL = 'a11y-browser@example.com';
const PASSWORD = 'browser admin password';
const AXE_SOURCE: string = require('axe-core').source;
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const TABS = ['Knowledge Base', 'Configuration', 'Analytics', 'Conversations', 'Inbox', 'Budgets', 'API keys', 'Widgets', 'Team', 'Audit', 'Security'];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 6).map((n) => n.target.join(' ') + ' :: ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')) })))`,
  )) as Violation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** What the scheme check reads: a surface's effective background and its text colour, as relative luminance (0..1). */
interface Surface {
  selector: string;
  background: number;
  text: number;
}

/**
 * The page (<html>) and each console surface present on screen (the console page, a card of the
 * console, the sign-in card, an open dialog), with the luminance of their effective background (the
 * first opaque one up the tree) and of their text.
 */
async function surfaces(page: Page): Promise<Surface[]> {
  return (await page.evaluate(`(() => {
    const lum = (css) => {
      if (!css.startsWith('rgb')) return null;
      const [r, g, b, a] = css.slice(css.indexOf('(') + 1, css.indexOf(')')).split(',').map((x) => parseFloat(x));
      if (a === 0) return null;
      const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const background = (el) => { for (let e = el; e; e = e.parentElement) { const l = lum(getComputedStyle(e).backgroundColor); if (l !== null) return l; } return 1; };
    const found = [{ selector: 'html', el: document.documentElement }];
    for (const selector of ['.admin-page', '.admin-panel', '.login-card', '.modal', '.kb-row', '.analytics-card', '.config-card', '.cv-message', '.cv-gap', '.budget-bar', '.kb-field textarea', '.notice', 'input', 'select']) {
      const el = [...document.querySelectorAll(selector)].find((e) => e.getClientRects().length > 0);
      if (el) found.push({ selector, el });
    }
    return found.map(({ selector, el }) => ({ selector, background: background(el), text: lum(getComputedStyle(el).color) }));
  })()`)) as Surface[];
}

describeBrowser('accessibility and screenshots of the sign-in steps and the console', () => {
  let t: TestApp;
  let browser: Browser;
  const found: Record<string, Violation[]> = {};
  const wrongScheme: Record<string, Surface[]> = {};
  const hiddenTab: string[] = [];
  const scrolledBar: string[] = [];

  /** Every viewport and scheme: the screenshot, and axe's verdict recorded under `name`. */
  async function check(page: Page, name: string): Promise<void> {
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.waitForTimeout(150);
        await screenshot(page, `a11y-${name}-${viewport.width}-${scheme}`, { fullPage: false });
        const violations = await seriousViolations(page);
        if (violations.length) found[`${name} ${viewport.width} ${scheme}`] = violations;
        // Dark: backgrounds below 0.05 (darker than #3f3f3f) with text above 0.5; light: the reverse.
        const wrong = (await surfaces(page)).filter((s) =>
          scheme === 'dark' ? !(s.background < 0.05 && s.text > 0.5) : !(s.background > 0.5 && s.text < 0.1),
        );
        if (wrong.length) wrongScheme[`${name} ${viewport.width} ${scheme}`] = wrong;
        // The selected console tab is in view in its tab bar (which scrolls sideways on a phone).
        const tabShown = await page.evaluate(`(() => { const tab = document.querySelector('.admin-tab.is-active'); if (!tab) return true; const t = tab.getBoundingClientRect(); const b = tab.parentElement.getBoundingClientRect(); return t.left >= b.left - 1 && t.right <= b.right + 1; })()`);
        if (!tabShown) hiddenTab.push(`${name} ${viewport.width} ${scheme}`);
        // On a wide screen every tab is in view at once: the bar wraps, it never scrolls sideways.
        if (viewport.width >= 1024) {
          const overflow = await page.evaluate(`(() => { const bar = document.querySelector('.admin-tabs'); return bar ? bar.scrollWidth - bar.clientWidth : 0; })()`);
          if ((overflow as number) > 1) scrolledBar.push(`${name} ${viewport.width} ${scheme}: ${overflow} px`);
        }
      }
    }
  }

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ adminEmail: EMAIL, adminPassword: PASSWORD, seedSampleKnowledge: true, signInIpLimit: 1000 });
    browser = await launchBrowser();
    // Something to draw: a few answered questions (Analytics' cards, trends and tables) and budgets (their bars).
    await t.app.get(AgentConfigService).updateGlobal({
      budgets: { list: [{ scope: 'global', monthlyUsd: 5, softPercent: 80, onCap: 'refuse' }, { scope: 'vertical:hr', monthlyUsd: 1, softPercent: 50, onCap: 'offline' }], visitorDailyTokens: null },
    });
    for (const [vertical, query] of [['customer-service', 'How do I get a refund?'], ['hr', 'How much annual leave do I get?'], ['sales', 'How should I handle price objections?'], ['customer-service', 'Can I pay with seashells on Mars?']]) {
      await request(t.url).post('/interact').send({ vertical, query }).expect(200);
    }
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sign-in steps: email, method, password, code', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS[0] });
    await page.goto(`${t.url}/admin`);
    await page.getByLabel('Email address').waitFor();
    await check(page, 'signin-email');
    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: /Login with Password/ }).waitFor();
    await check(page, 'signin-method');
    await page.getByRole('button', { name: /Login with Password/ }).click();
    await page.getByLabel('Password').waitFor();
    await check(page, 'signin-password');
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: /Email me a code/ }).click();
    await page.getByLabel('Verification code').waitFor();
    expect(await page.getByText('The code expires in 10 minutes and works once.').isVisible()).toBe(true);
    await check(page, 'signin-code');
    await page.close();
    expect(wrongScheme).toEqual({});
    expect(found).toEqual({});
  }, 120000);

  it('each console tab, and the dialogs of the Knowledge and Configuration tabs', async () => {
    const context = await signedInContext(browser, t, { email: EMAIL, password: PASSWORD }, VIEWPORTS[0]);
    const page = await context.newPage();
    await page.goto(`${t.url}/admin`);
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    for (const tab of TABS) {
      await page.getByRole('tab', { name: tab }).click();
      await page.waitForTimeout(600);
      await check(page, `tab-${tab.toLowerCase().replace(/\s+/g, '-')}`);
    }
    // Conversations: a transcript open, and the Knowledge gaps view.
    await page.getByRole('tab', { name: 'Conversations' }).click();
    await page.locator('.cv-list .kb-row').first().click();
    await page.locator('.cv-message').first().waitFor();
    await check(page, 'conversation-transcript');
    await page.getByRole('button', { name: 'Knowledge gaps' }).click();
    await page.locator('.cv-gap').first().waitFor();
    await check(page, 'knowledge-gaps');
    // Knowledge: an item open in the editor (on a phone it is brought into view), then the delete confirmation.
    await page.setViewportSize(VIEWPORTS[0]);
    await page.getByRole('tab', { name: 'Knowledge Base' }).click();
    await page.getByRole('list', { name: 'Knowledge Items' }).getByRole('button').first().click();
    await page.getByRole('heading', { name: 'Edit Knowledge Item' }).waitFor();
    await check(page, 'knowledge-editor');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete knowledge item?' }).waitFor();
    await check(page, 'knowledge-delete-confirm');
    // Confirmed: the notice with Undo (the console's toast), then Undo puts the item back.
    await page.getByRole('dialog', { name: 'Delete knowledge item?' }).getByRole('button', { name: 'Delete' }).click();
    const notices = page.getByRole('region', { name: 'Notifications' });
    await notices.getByRole('button', { name: 'Undo' }).waitFor();
    await check(page, 'knowledge-deleted-notice');
    await page.setViewportSize(VIEWPORTS[0]);
    await notices.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('list', { name: 'Knowledge Items' }).getByRole('button').nth(2).waitFor();
    // On a phone the editor is under the list: opening an item brings it into view.
    await page.setViewportSize(VIEWPORTS[1]);
    await page.getByRole('list', { name: 'Knowledge Items' }).getByRole('button').nth(2).click();
    const heading = page.getByRole('heading', { name: 'Edit Knowledge Item' });
    await heading.waitFor();
    await page.waitForFunction(() => {
      const d = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ textContent: string | null; getBoundingClientRect(): { top: number } }> } }).document;
      const h = Array.from(d.querySelectorAll('h2')).find((e) => e.textContent === 'Edit Knowledge Item');
      const top = h ? h.getBoundingClientRect().top : -1;
      return top >= 0 && top < 200;
    }, undefined, { timeout: 5000 });
    await screenshot(page, 'a11y-knowledge-editor-opened-390', { fullPage: false });
    await page.setViewportSize(VIEWPORTS[0]);
    // Configuration: the agent dialog.
    await page.getByRole('tab', { name: 'Configuration' }).click();
    await page.getByRole('button', { name: /^Configure / }).first().click();
    await page.getByRole('dialog').waitFor();
    await check(page, 'agent-dialog');
    await context.close();
    expect(hiddenTab).toEqual([]);
    expect(scrolledBar).toEqual([]);
    expect(wrongScheme).toEqual({});
    expect(found).toEqual({});
  }, 480000);
});
