#!/usr/bin/env node
/**
 * Builds the server and the client only when their sources changed since the last build, so that
 * `npm start` serves at once on a machine that has built before (a full Vite build takes tens of
 * seconds on a small machine). What each part is built from is hashed by content; the hashes of
 * the last good build are kept in dist/.build-inputs.json, written only after the build passed.
 *
 *   node scripts/build-when-changed.mjs            build what changed (npm start)
 *   node scripts/build-when-changed.mjs --always   build both and record them (npm run build)
 *   node scripts/build-when-changed.mjs --dry-run  say what would be built, build nothing
 *
 * Each part is built with its npm script (build:server, build:client), run in the project root.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

const { values: options } = parseArgs({
  options: { always: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false }, root: { type: 'string' } },
});
const root = path.resolve(options.root ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const STAMP = path.join(root, 'dist', '.build-inputs.json');
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'coverage']);

/** What each part is built from, and what a finished build of it leaves behind. */
const PARTS = [
  {
    name: 'server',
    script: 'build:server',
    inputs: ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'],
    // Specs are not compiled (tsconfig.build.json), so editing one does not call for a build.
    ignore: (file) => /\.(spec|contract)\.ts$/.test(file),
    outputs: ['dist/main.js'],
  },
  {
    name: 'client',
    script: 'build:client',
    inputs: ['client', 'src/shared', 'package-lock.json'],
    ignore: (file) => /\.test\.tsx?$/.test(file) || file.startsWith(`client${path.sep}test${path.sep}`),
    outputs: ['dist/client/index.html', 'dist/client/widget.js', 'dist/client/widget-frame/widget.html'],
  },
];

function filesUnder(relative, ignore) {
  const absolute = path.join(root, relative);
  if (!fs.existsSync(absolute)) return [];
  if (fs.statSync(absolute).isFile()) return ignore(relative) ? [] : [relative];
  const found = [];
  for (const entry of fs.readdirSync(absolute, { withFileTypes: true })) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) continue;
    found.push(...filesUnder(path.join(relative, entry.name), ignore));
  }
  return found;
}

function hashOf(part) {
  const hash = createHash('sha256');
  const files = [...new Set(part.inputs.flatMap((input) => filesUnder(input, part.ignore)))].sort();
  for (const file of files) {
    hash.update(file.split(path.sep).join('/')).update('\0').update(fs.readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return {};
  }
}

const stamp = readStamp();
const decisions = PARTS.map((part) => {
  const hash = hashOf(part);
  const missing = part.outputs.find((output) => !fs.existsSync(path.join(root, output)));
  const reason = options.always ? 'asked to' : missing ? `${missing} is missing` : stamp[part.name] !== hash ? 'sources changed' : undefined;
  return { part, hash, reason };
});

for (const { part, reason } of decisions) console.log(`${part.name}: ${reason ? `build (${reason})` : 'up to date, not rebuilt'}`);
if (options['dry-run']) process.exit(0);

const recorded = { ...stamp };
for (const { part, hash, reason } of decisions) {
  if (!reason) continue;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', '--silent', part.script], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    // The stamp keeps the last good build's hash, so the next start tries again.
    console.error(`${part.name}: the build failed (npm run ${part.script}, exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  recorded[part.name] = hash;
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, `${JSON.stringify(recorded, null, 2)}\n`);
}
