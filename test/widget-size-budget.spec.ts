/**
 * The widget's size budgets (.size-limit.json, checked by `npm run size` in `npm test` right
 * after the build): the loader at most 10 KB gzip, what the iframe page loads before the chat
 * shows at most 150 KB gzip, and the chunks it loads on demand (the Markdown renderer) their own
 * budget. The budgets are run here on stand-in files laid out as the build lays them out: within
 * budget they pass, over and size-limit fails (exit code 1). Then the real build is measured: it
 * is within budget, and every file its page loads at once is one the page budget counts.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const BUDGETS = JSON.parse(fs.readFileSync(path.join(ROOT, '.size-limit.json'), 'utf8')) as Array<{ name: string; path: string | string[]; limit: string; gzip?: boolean }>;

/** Incompressible text of about `gzipBytes` once gzipped (random base64 gzips to about 3/4 of its length). */
function noise(gzipBytes: number): string {
  return `/*${randomBytes(gzipBytes).toString('base64')}*/`;
}

function layOut(dir: string, loaderGzip: number, frameGzip: number, lazyGzip = 40_000, languagesGzip = 30_000): void {
  fs.mkdirSync(path.join(dir, 'dist/client/widget-frame/assets/lazy'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'dist/client/widget-frame/assets/lang'), { recursive: true });
  for (const code of ['de', 'fr']) fs.writeFileSync(path.join(dir, `dist/client/widget-frame/assets/lang/${code}-d.js`), noise(languagesGzip / 2));
  fs.writeFileSync(path.join(dir, 'dist/client/widget.js'), noise(loaderGzip));
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/widget.html'), '<!doctype html><div id="root"></div>');
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/assets/widget-a.js'), noise(frameGzip / 2));
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/assets/widget-b.css'), noise(frameGzip / 2));
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/assets/lazy/Markdown-c.js'), noise(lazyGzip));
  fs.writeFileSync(path.join(dir, '.size-limit.json'), JSON.stringify(BUDGETS));
}

function runSizeLimit(dir: string, config = path.join(dir, '.size-limit.json')): { code: number; results: Array<{ name: string; passed: boolean; size: number }> } {
  try {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/size-limit/bin.js'), '--json', '--config', config], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, results: JSON.parse(out) };
  } catch (error) {
    const failed = error as { status: number; stdout: string };
    return { code: failed.status, results: JSON.parse(failed.stdout) };
  }
}

describe('widget size budgets', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-size-'));
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are 10 KB gzip for the loader and 150 KB gzip for the iframe page', () => {
    expect(BUDGETS.map((b) => [b.name, b.limit, b.gzip])).toEqual([
      ['widget loader (/widget.js)', '10 kB', true],
      ['widget iframe page (/widget/{id})', '150 kB', true],
      ['widget iframe, loaded on demand (Markdown renderer)', '70 kB', true],
      ['widget iframe, the 10 languages other than English loaded on demand (all together; a visitor loads one)', '45 kB', true],
    ]);
  });

  it('pass within budget', () => {
    layOut(dir, 6_000, 100_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, true, true, true]);
    expect(code).toBe(0);
  });

  it('fail the run when the loader grows past 10 KB gzip', () => {
    layOut(dir, 12_000, 100_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([false, true, true, true]);
    expect(results[0].size).toBeGreaterThan(10_000);
    expect(code).toBe(1);
  });

  it('fail the run when the iframe page grows past 150 KB gzip', () => {
    layOut(dir, 6_000, 170_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, false, true, true]);
    expect(code).toBe(1);
  });

  it('fail the run when the chunks loaded on demand grow past their budget', () => {
    layOut(dir, 6_000, 100_000, 80_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, true, false, true]);
    expect(code).toBe(1);
  });

  it('fail the run when the dictionaries loaded on demand grow past theirs', () => {
    layOut(dir, 6_000, 100_000, 40_000, 60_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, true, true, false]);
    expect(code).toBe(1);
  });
});

describe('the built widget', () => {
  const frame = path.join(ROOT, 'dist/client/widget-frame');

  beforeAll(() => {
    if (!fs.existsSync(path.join(frame, 'widget.html')) || !fs.existsSync(path.join(ROOT, 'dist/client/widget.js'))) {
      throw new Error('dist/client is missing the widget: run "npm run build" (npm test does it first)');
    }
  });

  it('is within every budget', () => {
    const { code, results } = runSizeLimit(ROOT, path.join(ROOT, '.size-limit.json'));
    for (const result of results) expect({ name: result.name, passed: result.passed, size: result.size }).toEqual({ name: result.name, passed: true, size: result.size });
    expect(code).toBe(0);
  });

  it('loads at once only files the page budget counts, and no zod', () => {
    const html = fs.readFileSync(path.join(frame, 'widget.html'), 'utf8');
    const loaded = [...html.matchAll(/(?:src|href)="\/widget-frame\/([^"]+)"/g)].map((m) => m[1]);
    expect(loaded.some((file) => file.endsWith('.js'))).toBe(true);
    // What the entry imports statically is loaded at once too.
    const seen = new Set<string>();
    const queue = [...loaded];
    while (queue.length > 0) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      if (!file.endsWith('.js')) continue;
      const code = fs.readFileSync(path.join(frame, file), 'utf8');
      for (const m of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},*\s]+from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(path.posix.join(path.posix.dirname(file), m[1]));
      // zod's error messages: present only if the contracts' schemas were bundled.
      expect({ file, zod: code.includes('Invalid input: expected') }).toEqual({ file, zod: false });
    }
    for (const file of seen) expect({ file, counted: /^assets\/[^/]+\.(js|css)$/.test(file) }).toEqual({ file, counted: true });
  });
});
