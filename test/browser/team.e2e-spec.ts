/**
 * A team in Chromium against the built client and the real server: an owner invites a member as
 * an agent from the Team tab; the link in the outbox mail opens the invitation page, where the
 * agent sets a name and a password; the agent signs in and sees Knowledge Base and Conversations
 * but not Configuration, Budgets, Team or Audit, with no control that changes knowledge, and the
 * server refuses those routes (403) to their session. Screenshots go to test-artifacts/.
 */
import type { Browser, Page } from 'playwright-core';
import { AdminUsersService } from '../../src/auth/admin-users.service';
import { invitationLink } from '../support/outbox-mail';
import { startTestApp, type TestApp } from '../support/test-app';
import { signInWithPassword } from './support/admin-context';
import { assertClientBuilt, describeBrowser, launchBrowser, screenshot } from './support/browser';

const DESKTOP = { width: 1280, height: 800 };

/** The console's sign-in, then the dashboard is shown. */
async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await signInWithPassword(page, url, email, password);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

describeBrowser('team: invite an agent, accept the link, and what the agent may reach', () => {
  let browser: Browser;
  let t: TestApp;
  const owner = { email: 'owner@example.com', password: 'owner password 123', name: 'Olive Owner' };
  const agent = { email: 'new.agent@example.com', password: 'agent password 456', name: 'Arlo Agent' };

  beforeAll(async () => {
    assertClientBuilt();
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 1000 });
    await t.app.get(AdminUsersService).create({ ...owner, role: 'owner' });
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the owner invites, the agent joins through the mailed link, signs in and reaches only what an agent may', async () => {
    const ownerContext = await browser.newContext({ viewport: DESKTOP });
    const agentContext = await browser.newContext({ viewport: DESKTOP });
    try {
      const page = await ownerContext.newPage();
      await signIn(page, t.url, owner.email, owner.password);
      await page.getByRole('tab', { name: 'Team' }).click();
      await page.getByRole('button', { name: 'Invite member' }).click();
      await page.getByLabel('Email address').fill(agent.email);
      await page.getByRole('radio', { name: /^Agent/ }).check();
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`Invitation sent to ${agent.email}.`).waitFor();
      await screenshot(page, 'team-invited-1280');

      // The mailed link, opened without a session.
      const link = await invitationLink(t.config.dataDir, agent.email);
      expect(link.startsWith(`${t.url}/admin/invitation/`)).toBe(true);
      const invited = await agentContext.newPage();
      await invited.goto(link);
      await invited.getByRole('heading', { name: 'Join the team' }).waitFor();
      expect(await invited.getByLabel('Email address').inputValue()).toBe(agent.email);
      await invited.getByLabel('Your name').fill(agent.name);
      await invited.getByLabel('Password', { exact: true }).fill(agent.password);
      await invited.getByLabel('Repeat the password').fill(agent.password);
      await invited.getByRole('button', { name: 'Join the team' }).click();
      await invited.getByText('Welcome to the team. You can sign in now.').waitFor();
      await screenshot(invited, 'team-joined-1280');

      // A used link is refused.
      const again = await agentContext.newPage();
      await again.goto(link);
      await again.getByRole('alert').first().waitFor();
      expect(await again.getByRole('button', { name: 'Join the team' }).count()).toBe(0);
      await again.close();

      await signIn(invited, t.url, agent.email, agent.password);
      const tabs = await invited.getByRole('tab').allInnerTexts();
      expect(tabs).toEqual(expect.arrayContaining(['Knowledge Base', 'Conversations']));
      for (const hidden of ['Configuration', 'Budgets', 'Team', 'Audit', 'API keys']) expect(tabs).not.toContain(hidden);
      // The knowledge is theirs to read, not to change.
      await invited.getByRole('heading', { name: 'Knowledge Items' }).waitFor();
      expect(await invited.getByRole('button', { name: 'New knowledge item' }).count()).toBe(0);
      expect(await invited.getByRole('region', { name: 'Quick Upload Document' }).count()).toBe(0);
      await screenshot(invited, 'team-agent-console-1280');

      // The server refuses the agent's session on what the console hides.
      const statuses = await invited.evaluate(async () => {
        const paths = ['/api/config', '/api/budgets', '/api/team/members', '/api/audit', '/api/api-keys', '/api/knowledge', '/api/conversations'];
        const out: Record<string, number> = {};
        for (const path of paths) out[path] = (await fetch(path, { credentials: 'same-origin' })).status;
        return out;
      });
      expect(statuses).toEqual({
        '/api/config': 403,
        '/api/budgets': 403,
        '/api/team/members': 403,
        '/api/audit': 403,
        '/api/api-keys': 403,
        '/api/knowledge': 200,
        '/api/conversations': 200,
      });
    } finally {
      await ownerContext.close();
      await agentContext.close();
    }
  });
});
