// The README's screenshots, taken from the running product with its sample knowledge:
//   npm run build && node docs/images/capture.mjs
// Starts dist/main.js on a free port with a temporary DATA_DIR (offline responder, sample
// knowledge, an admin from the environment), asks the chat page a question, opens the console,
// and writes docs/images/chat.png and docs/images/console.png. Chromium: CHROMIUM_PATH, else
// /usr/bin/chromium.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const admin = { email: 'admin@example.com', password: 'screenshot-password-1' };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-screenshots-'));

const server = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], {
  cwd: root,
  env: { ...process.env, PORT: '0', DATA_DIR: dataDir, ADMIN_EMAIL: admin.email, ADMIN_PASSWORD: admin.password, ADMIN_NAME: 'Alex Admin', DATABASE_URL: '', REDIS_URL: '', LOG_FORMAT: 'text' },
  stdio: ['ignore', 'pipe', 'inherit'],
});

// The server logs the address it listens on once it is ready.
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /listening on (http:\/\/\S+)/i.exec(out);
    if (match) resolve(match[1].replace(/\/$/, ''));
  });
  server.on('exit', (code) => reject(new Error(`server exited (${code}):\n${out}`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});
try {
  const viewport = { width: 1280, height: 800 };
  const chat = await browser.newPage({ viewport });
  await chat.goto(url);
  await chat.locator('.connection-pill[data-status="online"]').waitFor();
  await chat.getByRole('textbox', { name: 'Your message' }).fill('How long do I have to return a laptop for a refund?');
  await chat.keyboard.press('Enter');
  await chat.locator('.message-agent').last().locator('.message-time').waitFor({ timeout: 30_000 });
  await chat.screenshot({ path: path.join(here, 'chat.png') });

  const res = await fetch(`${url}/api/auth/login-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
  const cookie = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith('sa_admin_session='));
  if (!res.ok || !cookie) throw new Error(`sign-in failed: ${res.status}`);
  const context = await browser.newContext({ viewport });
  await context.addCookies([{ name: 'sa_admin_session', value: cookie.split(';')[0].split('=')[1], url, httpOnly: true, sameSite: 'Strict' }]);
  const console_ = await context.newPage();
  await console_.goto(`${url}/admin`);
  const item = console_.getByText('Returns and refunds').first();
  await item.click();
  await console_.getByRole('textbox', { name: /title/i }).first().waitFor();
  await console_.evaluate(() => window.scrollTo(0, 0));
  await console_.mouse.move(viewport.width - 1, viewport.height - 1);
  await console_.screenshot({ path: path.join(here, 'console.png') });
} finally {
  await browser.close();
  server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}
