/**
 * `npm start` builds only what changed (scripts/build-when-changed.mjs): run against a project of
 * its own in a temporary folder, whose build:server and build:client scripts only record that they
 * ran and leave the outputs a real build leaves.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.join(__dirname, '..', 'scripts', 'build-when-changed.mjs');

function fakeBuild(name: string, outputs: string[], fail = false): string {
  const body = fail
    ? 'process.exit(3)'
    : `const fs=require('fs'),path=require('path');for(const f of ${JSON.stringify(outputs)}){fs.mkdirSync(path.dirname(f),{recursive:true});fs.writeFileSync(f,'')}fs.appendFileSync('builds.log','${name}\\n')`;
  return `node -e "${body.replace(/"/g, '\\"')}"`;
}

describe('scripts/build-when-changed.mjs', () => {
  let root: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const setScripts = (clientFails = false) =>
    write(
      'package.json',
      JSON.stringify({
        name: 'fake',
        private: true,
        scripts: {
          'build:server': fakeBuild('server', ['dist/main.js']),
          'build:client': fakeBuild('client', ['dist/client/index.html', 'dist/client/widget.js', 'dist/client/widget-frame/widget.html'], clientFails),
        },
      }),
    );
  /** Runs the script; the parts built this time, and its exit status. */
  const run = (...args: string[]) => {
    fs.rmSync(path.join(root, 'builds.log'), { force: true });
    const result = spawnSync(process.execPath, [SCRIPT, '--root', root, ...args], { encoding: 'utf8' });
    const log = fs.existsSync(path.join(root, 'builds.log')) ? fs.readFileSync(path.join(root, 'builds.log'), 'utf8') : '';
    return { built: log.split('\n').filter(Boolean), status: result.status, output: result.stdout + result.stderr };
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-build-'));
    setScripts();
    write('src/main.ts', 'export const a = 1;\n');
    write('src/main.spec.ts', 'test("a", () => undefined);\n');
    write('src/shared/contract.ts', 'export const b = 1;\n');
    write('client/src/App.tsx', 'export const c = 1;\n');
    write('client/src/App.test.tsx', 'test("c", () => undefined);\n');
    write('tsconfig.json', '{}');
    write('tsconfig.build.json', '{}');
    write('package-lock.json', '{}');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds both parts the first time, then nothing until a source changes', () => {
    expect(run().built).toEqual(['server', 'client']);
    const again = run();
    expect(again.built).toEqual([]);
    expect(again.output).toContain('server: up to date, not rebuilt');
  });

  it('builds only the part whose sources changed; specs and client tests call for no build', () => {
    run();
    write('src/main.spec.ts', 'test("a changed", () => undefined);\n');
    write('client/src/App.test.tsx', 'test("c changed", () => undefined);\n');
    expect(run().built).toEqual([]);
    write('src/main.ts', 'export const a = 2;\n');
    expect(run().built).toEqual(['server']);
    write('client/src/App.tsx', 'export const c = 2;\n');
    expect(run().built).toEqual(['client']);
    // The contracts are compiled into both.
    write('src/shared/contract.ts', 'export const b = 2;\n');
    expect(run().built).toEqual(['server', 'client']);
    write('package-lock.json', '{"lockfileVersion":3}');
    expect(run().built).toEqual(['server', 'client']);
  });

  it('builds a part whose output is missing, even with unchanged sources', () => {
    run();
    fs.rmSync(path.join(root, 'dist/client/widget.js'));
    expect(run().built).toEqual(['client']);
  });

  it('a failed build fails the start and is tried again next time', () => {
    run();
    write('client/src/App.tsx', 'export const c = 3;\n');
    setScripts(true);
    const failed = run();
    expect(failed.status).not.toBe(0);
    expect(failed.output).toMatch(/client: the build failed/);
    setScripts(false);
    expect(run().built).toEqual(['client']);
  });

  it("is what npm start runs before it serves, and what npm run build runs with --always", () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toMatch(/^node scripts\/build-when-changed\.mjs && node dist\/main\.js$/);
    expect(scripts.build).toBe('node scripts/build-when-changed.mjs --always');
  });

  it('--always builds both; --dry-run builds nothing and says what it would build', () => {
    run();
    expect(run('--always').built).toEqual(['server', 'client']);
    write('src/main.ts', 'export const a = 4;\n');
    const dry = run('--dry-run');
    expect(dry.built).toEqual([]);
    expect(dry.output).toContain('server: build (sources changed)');
    expect(run().built).toEqual(['server']);
  });
});
