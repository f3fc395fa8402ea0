/**
 * Admin sign-in in Chromium against the built client and the real server: a fresh install's
 * admin@localhost signs in with a code read from DATA_DIR/outbox; an admin from ADMIN_EMAIL /
 * ADMIN_PASSWORD signs in with the password; a reload keeps the session; after logout the old
 * cookie replayed gets 401. Screenshots of every step go to test-artifacts/ for a human to look at.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { eventually, startTestApp, type TestApp } from '../support/test-app';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot as save } from './support/browser';

const PASSWORD = 'correct horse battery staple';
const COOKIE = 'sa_admin_session';

/** Screenshot once CSS transitions (progress dots, button colours) have settled. */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(350);
  await save(page, name);
}

async function codeFromOutbox(dataDir: string, email: string, nth: number): Promise<string> {
  const dir = path.join(dataDir, 'outbox');
  return eventually(
    () => {
      if (!fs.existsSync(dir)) return undefined;
      const files = fs.readdirSync(dir).filter((f) => f.endsWith(`-${email}.eml`)).sort();
      if (files.length < nth) return undefined;
      return /Verification code: (\d{6})/.exec(fs.readFileSync(path.join(dir, files[nth - 1]), 'utf8'))?.[1];
    },
    15000,
    `mail #${nth} to ${email} in ${dir}`,
  );
}

async function sessionCookie(context: BrowserContext): Promise<{ name: string; value: string; httpOnly: boolean; sameSite: string } | undefined> {
  return (await context.cookies()).find((c) => c.name === COOKIE);
}

async function expectConsole(page: Page, name: string, email: string): Promise<void> {
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: 10000 });
  await page.getByText(name, { exact: true }).waitFor();
  await page.getByText(email, { exact: true }).waitFor();
  const selected = await page.getByRole('tab', { name: 'Knowledge Base' }).getAttribute('aria-selected');
  expect(selected).toBe('true');
}

describeBrowser('admin sign-in in Chromium', () => {
  let browser: Browser;
  let t: TestApp;

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ adminEmail: 'ops@example.com', adminPassword: PASSWORD, adminName: 'Ops Lead', seedSampleKnowledge: false, signInIpLimit: 1000 });
    browser = await launchBrowser();
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a fresh install: admin@localhost signs in with the code from DATA_DIR/outbox; reload keeps the session; logout; the old cookie gets 401', async () => {
    const fresh = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 1000 });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    try {
      await page.goto(`${fresh.url}/admin`);
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
      await page.getByText('Enter your email to continue').waitFor();
      await screenshot(page, 'admin-login-1-email');

      await page.getByLabel('Email address').fill('admin@localhost');
      await page.getByRole('button', { name: 'Continue' }).click();
      // Code sign-in only: the code is requested at once.
      await page.getByText('Enter the verification code sent to your email').waitFor();
      await page.getByText('Verification code sent to your email', { exact: true }).waitFor();
      await screenshot(page, 'admin-login-2-code');

      const code = await codeFromOutbox(fresh.config.dataDir, 'admin@localhost', 1);
      await page.getByLabel('Verification code').fill(`${code.slice(0, 3)} ${code.slice(3)}`);
      expect(await page.getByLabel('Verification code').inputValue()).toBe(code);
      await page.getByRole('button', { name: 'Verify Code' }).click();
      await page.getByText('Login successful!').waitFor();
      await screenshot(page, 'admin-login-3-success');
      await expectConsole(page, 'Admin User', 'admin@localhost');
      await screenshot(page, 'admin-console');

      const cookie = await sessionCookie(context);
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      // HttpOnly: page scripts cannot read it.
      expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).not.toContain(COOKIE);

      await page.reload();
      await expectConsole(page, 'Admin User', 'admin@localhost');

      await page.getByRole('tab', { name: 'Analytics' }).click();
      expect(await page.getByRole('tab', { name: 'Analytics' }).getAttribute('aria-selected')).toBe('true');
      await screenshot(page, 'admin-console-analytics');

      await page.getByRole('button', { name: 'Logout' }).click();
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
      expect(await sessionCookie(context)).toBeUndefined();

      const replay = await request(fresh.url).get('/api/auth/me').set('Cookie', `${COOKIE}=${cookie!.value}`);
      expect(replay.status).toBe(401);
      await request(fresh.url).get('/api/knowledge').set('Cookie', `${COOKIE}=${cookie!.value}`).expect(401);
    } finally {
      await context.close();
      await fresh.close();
    }
  }, 60000);

  it('an admin with a password: method choice, password, reload keeps the session, logout, the old cookie gets 401', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/admin`);
      await page.getByLabel('Email address').fill('ops@example.com');
      await page.getByLabel('Email address').press('Enter');
      await page.getByText('Choose your preferred login method').waitFor();
      await screenshot(page, 'admin-login-4-method');
      await page.getByRole('button', { name: /Login with Password/ }).click();
      await page.getByText('Enter your password to login').waitFor();

      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Login' }).click();
      await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
      await screenshot(page, 'admin-login-5-error');

      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Login' }).click();
      await page.getByText('Login successful!').waitFor();
      await expectConsole(page, 'Ops Lead', 'ops@example.com');
      const cookie = await sessionCookie(context);
      expect(cookie).toBeDefined();

      await page.reload();
      await expectConsole(page, 'Ops Lead', 'ops@example.com');
      await request(t.url).get('/api/auth/me').set('Cookie', `${COOKIE}=${cookie!.value}`).expect(200);

      await page.getByRole('button', { name: 'Logout' }).click();
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
      await request(t.url).get('/api/auth/me').set('Cookie', `${COOKIE}=${cookie!.value}`).expect(401);
      await page.reload();
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
    } finally {
      await context.close();
    }
  }, 60000);

  it('looks right on a phone-sized screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 780 } });
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/admin`);
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
      await screenshot(page, 'admin-login-mobile');
      await page.getByLabel('Email address').fill('ops@example.com');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: /Login with Password/ }).click();
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor({ timeout: 10000 });
      await screenshot(page, 'admin-console-mobile');
      const overflow = await page.evaluate(() => {
        const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return d.scrollWidth - d.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      await page.getByRole('link', { name: 'Back to Support' }).click();
      await page.waitForURL(`${t.url}/`);
    } finally {
      await context.close();
    }
  }, 60000);
});
