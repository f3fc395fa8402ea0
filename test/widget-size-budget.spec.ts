/**
 * The widget's size budgets (.size-limit.json, checked by `npm run size` in `npm test`): the
 * loader at most 10 KB gzip, the iframe page at most 150 KB gzip. The budgets are run here on
 * stand-in files laid out as the build lays them out: within budget they pass, one byte of gzip
 * over and size-limit fails (exit code 1), so a build that grows past them fails CI.
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

function layOut(dir: string, loaderGzip: number, frameGzip: number): void {
  fs.mkdirSync(path.join(dir, 'dist/client/widget-frame/assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'dist/client/widget.js'), noise(loaderGzip));
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/widget.html'), '<!doctype html><div id="root"></div>');
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/assets/widget-a.js'), noise(frameGzip / 2));
  fs.writeFileSync(path.join(dir, 'dist/client/widget-frame/assets/widget-b.css'), noise(frameGzip / 2));
  fs.writeFileSync(path.join(dir, '.size-limit.json'), JSON.stringify(BUDGETS));
}

function runSizeLimit(dir: string): { code: number; results: Array<{ name: string; passed: boolean; size: number }> } {
  try {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/size-limit/bin.js'), '--json', '--config', path.join(dir, '.size-limit.json')], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
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
    ]);
  });

  it('pass within budget', () => {
    layOut(dir, 6_000, 100_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, true]);
    expect(code).toBe(0);
  });

  it('fail the run when the loader grows past 10 KB gzip', () => {
    layOut(dir, 12_000, 100_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([false, true]);
    expect(results[0].size).toBeGreaterThan(10_000);
    expect(code).toBe(1);
  });

  it('fail the run when the iframe page grows past 150 KB gzip', () => {
    layOut(dir, 6_000, 170_000);
    const { code, results } = runSizeLimit(dir);
    expect(results.map((r) => r.passed)).toEqual([true, false]);
    expect(code).toBe(1);
  });
});
