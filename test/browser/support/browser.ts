/**
 * Browser tests: playwright-core driving Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium)
 * against the built client served by the real app. `npm test` builds the client first.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { describeWith, NEEDS } from '../../support/requirements';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.resolve(__dirname, '..', '..', '..', 'test-artifacts');

/** Browser suites run wherever Chromium is installed, skipped with the reason elsewhere; CI (.ci/run) always installs it. */
export const chromiumAvailable = NEEDS.chromium.missing === undefined;
export const describeBrowser = (name: string, fn: () => void): void => describeWith([NEEDS.chromium], name, fn);

export function assertClientBuilt(): void {
  const index = path.resolve(__dirname, '..', '..', '..', 'dist', 'client', 'index.html');
  if (!fs.existsSync(index)) throw new Error('dist/client is missing: run "npm run build" (npm test does it first)');
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync'],
  });
}

/**
 * Saves a screenshot under test-artifacts/ (kept by CI as an artifact; look at them). The whole
 * page by default; `fullPage: false` keeps to the viewport, which is what a visitor sees behind
 * a fixed overlay such as a modal.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  return file;
}
