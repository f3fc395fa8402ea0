/**
 * The second factor, sessions and API keys in Chromium against the built client and the real
 * server: set up an authenticator app from the Security tab (the code typed is made from the key
 * shown as text, as an app would), sign out, sign in with the password and then the code; a member
 * of a team that requires a second factor is sent to the set-up screen and can do nothing else;
 * the API keys tab issues a key (shown once) that /interact accepts, and revokes it.
 * Screenshots (desktop 1280x800, phone 390x844) go to test-artifacts/.
 */
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { AdminUsersService } from '../../src/auth/admin-users.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { signInWithPassword } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot as save } from './support/browser';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await page.waitForTimeout(350);
  await save(page, name, options);
}

function codeFor(secret: string, at = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });
}

/** The next step's code: an app's code is accepted once, so a second sign-in in the same 30 s uses the next. */
function nextCode(secret: string): string {
  return codeFor(secret, Date.now() + 30_000);
}

describeBrowser('second factor, sessions and API keys in Chromium', () => {
  let browser: Browser;
  let t: TestApp;
  const owner = { email: 'owner@example.com', password: 'owner password 123', name: 'Olive Owner' };
  const member = { email: 'member@example.com', password: 'member password 123', name: 'Milo Member' };
  // Recovery codes read off the screen, for the API sign-ins of later cases (an app code works once per 30 s).
  const recovery: Record<string, string[]> = {};

  async function recoveryCodesOnScreen(page: Page): Promise<string[]> {
    return page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts();
  }

  /** A full session through the API: password, then one of the recovery codes read off the screen. */
  async function apiSignIn(who: { email: string; password: string }): Promise<ReturnType<typeof request.agent>> {
    const agent = request.agent(t.url);
    const first = await agent.post('/api/auth/login-password').send({ email: who.email, password: who.password }).expect(200);
    if (first.body.secondFactor === 'totp') await agent.post('/api/auth/verify-totp').send({ recoveryCode: recovery[who.email].shift() }).expect(200);
    return agent;
  }

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 1000 });
    await t.app.get(AdminUsersService).create(owner);
    await t.app.get(AdminUsersService).create(member);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('set up from the Security tab, sign out, sign in with the password and then the authenticator code', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    try {
      await signInWithPassword(page, t.url, owner.email, owner.password);
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
      await page.getByRole('tab', { name: 'Security' }).click();
      await page.getByRole('button', { name: 'Set up' }).click();
      await page.getByRole('img', { name: /QR code to add owner@example.com/ }).waitFor();
      await screenshot(page, 'security-totp-setup');
      const secret = (await page.locator('.totp-secret code').innerText()).replace(/\s+/g, '');
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);

      await page.getByLabel('Code from the app').fill('000000');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('alert').filter({ hasText: 'does not match' }).waitFor();
      await page.getByLabel('Code from the app').fill(codeFor(secret));
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
      recovery[owner.email] = await recoveryCodesOnScreen(page);
      expect(recovery[owner.email]).toHaveLength(10);
      await screenshot(page, 'security-recovery-codes');
      await page.getByLabel('I have saved my recovery codes').check();
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByText('On since').waitFor();
      await page.getByText('10 of 10 recovery codes left.').waitFor();
      await page.getByRole('cell', { name: 'This browser' }).waitFor();
      await screenshot(page, 'security-tab');

      await page.getByRole('button', { name: 'Logout' }).click();
      await page.getByRole('heading', { name: 'Admin Access' }).waitFor();
      await signInWithPassword(page, t.url, owner.email, owner.password);
      await page.getByText('Enter the 6-digit code from your authenticator app').waitFor();
      expect(await page.getByLabel('Authentication code').evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement)).toBe(true);
      await screenshot(page, 'login-totp-step');
      // Nothing of the console while half signed in.
      const cookie = (await context.cookies()).find((c) => c.name === 'sa_admin_session')!;
      await request(t.url).get('/api/knowledge').set('Cookie', `sa_admin_session=${cookie.value}`).expect(401);

      await page.getByLabel('Authentication code').fill('12345');
      expect(await page.getByRole('button', { name: 'Verify Code' }).isDisabled()).toBe(true);
      await page.getByLabel('Authentication code').fill(nextCode(secret).replace(/./, (d) => String((Number(d) + 1) % 10)));
      await page.getByLabel('Authentication code').press('Enter');
      await page.getByRole('alert').filter({ hasText: 'The code is not right' }).waitFor();
      expect(await page.getByLabel('Authentication code').inputValue()).toBe('');
      await screenshot(page, 'login-totp-wrong');
      await page.getByLabel('Authentication code').fill(nextCode(secret));
      await page.getByRole('button', { name: 'Verify Code' }).click();
      await page.getByText('Login successful!').waitFor();
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

      const phone = await browser.newContext({ viewport: PHONE });
      const phonePage = await phone.newPage();
      try {
        await signInWithPassword(phonePage, t.url, owner.email, owner.password);
        await phonePage.getByLabel('Authentication code').waitFor();
        await phonePage.getByRole('button', { name: 'Use a recovery code' }).click();
        await phonePage.getByLabel('Recovery code').waitFor();
        await screenshot(phonePage, 'login-totp-recovery-phone');
      } finally {
        await phone.close();
      }
    } finally {
      await context.close();
    }
  }, 120_000);

  it('with "require for everyone", a member without a second factor is sent to the set-up screen and then to the console', async () => {
    const ownerAgent = await apiSignIn(owner);
    await ownerAgent.put('/api/auth/security').send({ requireSecondFactor: true }).expect(200);

    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    try {
      await signInWithPassword(page, t.url, member.email, member.password);
      await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();
      await page.getByRole('img', { name: /QR code/ }).waitFor();
      await screenshot(page, 'enrol-screen-phone');
      const cookie = (await context.cookies()).find((c) => c.name === 'sa_admin_session')!;
      await request(t.url).get('/api/knowledge').set('Cookie', `sa_admin_session=${cookie.value}`).expect(401);
      await page.reload();
      await page.getByRole('heading', { name: 'Set up two-factor authentication' }).waitFor();

      const memberSecret = (await page.locator('.totp-secret code').innerText()).replace(/\s+/g, '');
      await page.getByLabel('Code from the app').fill(codeFor(memberSecret));
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
      recovery[member.email] = await recoveryCodesOnScreen(page);
      await screenshot(page, 'enrol-recovery-codes-phone');
      await page.getByLabel('I have saved my recovery codes').check();
      await page.getByRole('button', { name: 'Continue to the console' }).click();
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
      await page.getByRole('tab', { name: 'Security' }).click();
      await page.getByText('Your team requires two-factor authentication, so it cannot be turned off.').waitFor();
      await screenshot(page, 'security-tab-phone');

      const desktop = await browser.newContext({ viewport: DESKTOP });
      const desk = await desktop.newPage();
      try {
        await signInWithPassword(desk, t.url, member.email, member.password);
        await desk.getByText('Enter the 6-digit code from your authenticator app').waitFor();
        await desk.getByLabel('Authentication code').fill(nextCode(memberSecret));
        await desk.getByRole('button', { name: 'Verify Code' }).click();
        await desk.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
        await desk.getByRole('tab', { name: 'Security' }).click();
        await desk.getByRole('switch', { name: "Everyone's sessions" }).check();
        await desk.getByRole('cell', { name: /Olive Owner/ }).first().waitFor();
        await screenshot(desk, 'security-sessions-everyone');
      } finally {
        await desktop.close();
      }
    } finally {
      await context.close();
      await ownerAgent.put('/api/auth/security').send({ requireSecondFactor: false }).expect(200);
    }
  }, 120_000);

  it('the API keys tab issues a key shown once, which /interact accepts until it is revoked', async () => {
    const agent = await apiSignIn(member);
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.addCookies(
      (await cookiesOf(agent, t.url)).map(([name, value]) => ({ name, value, url: t.url })),
    );
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/admin`);
      await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
      await page.getByRole('tab', { name: 'API keys' }).click();
      await page.getByText('No API keys yet.').waitFor();
      await page.getByRole('button', { name: 'New API key' }).click();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('alert').filter({ hasText: 'Name is required' }).waitFor();
      await page.getByLabel('Name').fill('Help centre bot');
      await page.getByLabel(/knowledge:read/).check();
      await page.getByLabel('Expiry').selectOption('90');
      await page.getByLabel('Requests per minute (optional)').fill('60');
      await screenshot(page, 'api-keys-new', { fullPage: false });
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByTestId('issued-api-key').innerText();
      expect(key).toMatch(/^sak_[0-9a-f]{8}_/);
      await screenshot(page, 'api-keys-issued', { fullPage: false });
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByText('Help centre bot', { exact: true }).waitFor();
      expect(await page.content()).not.toContain(key);

      await request(t.url).post('/interact').set('Authorization', `Bearer ${key}`).send({ query: 'Hello', vertical: 'hr' }).expect(200);
      await page.reload();
      await page.getByRole('tab', { name: 'API keys' }).click();
      await page.getByText('Help centre bot', { exact: true }).waitFor();
      await screenshot(page, 'api-keys-tab');

      await page.getByRole('button', { name: 'Revoke Help centre bot' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('Revoked', { exact: true }).waitFor();
      await request(t.url).post('/interact').set('Authorization', `Bearer ${key}`).send({ query: 'Hello', vertical: 'hr' }).expect(401);

      await page.setViewportSize(PHONE);
      await screenshot(page, 'api-keys-tab-phone');
    } finally {
      await context.close();
    }
  }, 120_000);
});

async function cookiesOf(agent: ReturnType<typeof request.agent>, url: string): Promise<Array<[string, string]>> {
  const jar = (agent as unknown as { jar: { getCookies(access: unknown): Array<{ name: string; value: string }> } }).jar;
  return jar.getCookies({ domain: new URL(url).hostname, path: '/', secure: false, script: false }).map((c) => [c.name, c.value]);
}
