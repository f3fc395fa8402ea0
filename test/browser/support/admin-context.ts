/** A Chromium context signed in to the console: the session cookie of a real password sign-in. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import type { TestApp } from '../../support/test-app';

export const SESSION_COOKIE = 'sa_admin_session';

/** Signs in with the password (POST /api/auth/login-password) and returns the session cookie's value. */
export async function adminSessionCookie(t: TestApp, admin: { email: string; password: string }): Promise<string> {
  const res = await request(t.url).post('/api/auth/login-password').send(admin).expect(200);
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!header) throw new Error('no session cookie');
  return header.split(';')[0].slice(SESSION_COOKIE.length + 1);
}

/** A new browser context that carries an admin session for `t`. */
export async function signedInContext(browser: Browser, t: TestApp, admin: { email: string; password: string }, viewport: { width: number; height: number }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.addCookies([{ name: SESSION_COOKIE, value: await adminSessionCookie(t, admin), url: t.url, httpOnly: true, sameSite: 'Strict' }]);
  return context;
}

/** Signs in through the console's login screen: email, "Login with Password", the password. */
export async function signInWithPassword(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/admin`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: /Login with Password/ }).click();
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}
