/**
 * What a suite needs beyond Node and npm (services, binaries, documentation packages), and the
 * one way to say so: `describeWith([NEEDS.chromium], 'name', () => ...)`.
 *
 * Where something is missing the suite fails with a test that names it and how to get it: nothing
 * is skipped. test/support/skip-reporter.js lists any test skipped some other way.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findNginx } from '../../deploy/cluster';

export interface Requirement {
  /** What is needed, for the summary ("Redis (REDIS_URL)"). */
  what: string;
  /** Why it is not there; undefined when it is. */
  missing: string | undefined;
}

function onPath(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

function postgresServerBinaries(): string | undefined {
  if (process.env.PG_BIN) return fs.existsSync(path.join(process.env.PG_BIN, 'initdb')) ? undefined : `PG_BIN (${process.env.PG_BIN}) has no initdb`;
  const root = '/usr/lib/postgresql';
  const found = fs.existsSync(root) && fs.readdirSync(root).some((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')));
  return found ? undefined : 'PostgreSQL server binaries not found (apt-get install postgresql, or set PG_BIN)';
}

function debianFaqPackages(): string | undefined {
  const docs = fs.existsSync('/usr/share/doc') ? fs.readdirSync('/usr/share/doc') : [];
  const missing = [
    docs.some((d) => /^python3\.\d+$/.test(d) && fs.existsSync(`/usr/share/doc/${d}/html/_sources/faq`)) ? undefined : 'python3-doc',
    fs.existsSync('/usr/share/doc/git-doc/gitfaq.txt') ? undefined : 'git-doc',
    fs.existsSync('/usr/share/doc/zlib1g-dev/FAQ.gz') ? undefined : 'zlib1g-dev',
    fs.existsSync('/usr/share/doc/debian/FAQ/debian-faq.en.txt.gz') ? undefined : 'debian-faq',
  ].filter(Boolean);
  return missing.length > 0 ? `Debian documentation packages not installed: ${missing.join(', ')}` : undefined;
}

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const ESPEAK_NG = process.env.ESPEAK_NG || '/usr/bin/espeak-ng';

/** Computed once per test file, when first used. */
export const NEEDS = {
  get redisUrl(): Requirement {
    return { what: 'a shared Redis (REDIS_URL)', missing: process.env.REDIS_URL ? undefined : 'REDIS_URL is not set' };
  },
  get databaseUrl(): Requirement {
    return { what: 'a shared PostgreSQL (DATABASE_URL)', missing: process.env.DATABASE_URL ? undefined : 'DATABASE_URL is not set' };
  },
  get redisServer(): Requirement {
    return { what: 'the redis-server binary', missing: onPath('redis-server') ? undefined : 'redis-server not found on PATH (apt-get install redis-server)' };
  },
  get postgresServer(): Requirement {
    return { what: 'PostgreSQL server binaries', missing: postgresServerBinaries() };
  },
  /** Redis and Postgres for several app processes: the shared ones (REDIS_URL and DATABASE_URL), else servers of the test's own. */
  get sharedServices(): Requirement {
    if (process.env.REDIS_URL && process.env.DATABASE_URL) return { what: 'Redis and PostgreSQL', missing: undefined };
    const why = [NEEDS.redisServer.missing, NEEDS.postgresServer.missing].filter(Boolean).join('; ');
    return { what: 'Redis and PostgreSQL', missing: why ? `REDIS_URL and DATABASE_URL are not both set, and ${why}` : undefined };
  },
  get chromium(): Requirement {
    return { what: 'Chromium', missing: fs.existsSync(CHROMIUM) ? undefined : `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` };
  },
  get nginx(): Requirement {
    return { what: 'nginx', missing: findNginx(process.env) ? undefined : 'nginx not found (apt-get install nginx, or set NGINX_BIN)' };
  },
  get espeakNg(): Requirement {
    return { what: 'espeak-ng (speaks the fake microphone\'s WAV)', missing: fs.existsSync(ESPEAK_NG) ? undefined : `espeak-ng not found at ${ESPEAK_NG} (apt-get install espeak-ng, or set ESPEAK_NG)` };
  },
  get gitDoc(): Requirement {
    return { what: "git-doc's HTML manual (a real website to import)", missing: fs.existsSync('/usr/share/doc/git-doc/gitfaq.html') ? undefined : 'git-doc is not installed (apt-get install git-doc)' };
  },
  get debianFaqs(): Requirement {
    return { what: "the eval's Debian FAQ packages", missing: debianFaqPackages() };
  },
};

/** The first missing requirement's reason, or undefined when all are there. */
export function missingOf(needs: Requirement[]): string | undefined {
  const missing = needs.filter((n) => n.missing !== undefined);
  return missing.length > 0 ? missing.map((n) => `needs ${n.what}: ${n.missing}`).join('; ') : undefined;
}

/**
 * `describe` when everything in `needs` is there. Else the suite fails with the reason, on every
 * machine: a test that cannot run is not a test that passed. `npm test` points REDIS_URL and
 * DATABASE_URL at the local services when they answer (scripts/with-local-services.mjs), and
 * .ci/run installs everything else.
 */
export function describeWith(needs: Requirement[], name: string, fn: () => void): void {
  const reason = missingOf(needs);
  if (reason === undefined) {
    describe(name, fn);
    return;
  }
  describe(name, () => {
    it('has what it needs (bash .ci/run installs and starts all of it)', () => {
      throw new Error(reason);
    });
  });
}
