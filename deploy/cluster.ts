/**
 * `npm run cluster`: N support-assistant servers on PostgreSQL and Redis behind nginx, on this
 * machine, in the foreground. Ctrl-C (SIGINT) or SIGTERM stops everything: the apps drain first
 * (their running replies finish, /health says 503 "draining"), then nginx.
 *
 *   npm run cluster                       3 apps, nginx on http://127.0.0.1:8080
 *   npm run cluster -- 5 --port 9000      5 apps, nginx on 9000
 *
 * Options (flag, or environment variable):
 *   --apps N, or N         CLUSTER_APPS   number of app processes (default 3, 1 to 16)
 *   --port P               CLUSTER_PORT   nginx's port (default 8080; 0 picks a free one)
 *   --host H               CLUSTER_HOST   nginx's address (default 127.0.0.1; 0.0.0.0 for others)
 *   --dir D                CLUSTER_DIR    runtime folder: nginx's config, pid, temp and logs, the
 *                                         apps' DATA_DIR unless set (default data/cluster)
 *   --source                              run the apps from src/ with ts-node (no build)
 *   NGINX_BIN                             the nginx binary (default /usr/sbin/nginx, else PATH)
 * The apps get this environment plus: DATABASE_URL and REDIS_URL (default the local services,
 * postgres://postgres@127.0.0.1:5432/postgres and redis://127.0.0.1:6379), TRUST_PROXY=loopback
 * (nginx's X-Forwarded-For counts), PORT=0 (each its own free port) and DATA_DIR (shared: the
 * server secret and the mail outbox). Everything else (OPENAI_API_KEY, ...) passes through.
 *
 * nginx runs as this user with its own prefix, config, pid file and temp folders under the
 * runtime folder, from the checked-in template deploy/nginx/support-assistant.conf.template
 * (deploy/nginx-process.ts). Killed with SIGKILL, the script cannot stop anything: on Linux the
 * apps and nginx then get SIGTERM from the kernel (setpriv --pdeathsig), and every start first
 * stops what an earlier run of the same folder left of nginx (a master, or workers whose master
 * was killed, which would keep serving the port). OSS
 * nginx only checks upstreams passively (failed requests), so this script adds the active half:
 * it polls every app's /health each second and marks a draining (503 "draining") or unreachable
 * app `down`, then reloads nginx (and back `up` once it answers again).
 *
 * Machine-readable state for tests and the benchmark: `<dir>/cluster.json` (nginx URL and pid,
 * each app's pid, port and URL), written before the line "Cluster ready: <url>".
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { checkNginxConfig, dyingWithThisProcess, killNginxGroup, nginxSitePath, reachable, startNginx, stopLeftoverNginx, writeNginxConfig } from './nginx-process';

const ROOT = path.resolve(__dirname, '..');
const TEMPLATE = path.join(ROOT, 'deploy', 'nginx', 'support-assistant.conf.template');
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const HEALTH_EVERY_MS = 1000;
const APP_START_TIMEOUT_MS = 120_000;
/** Passive checks: one failed attempt takes a server out for this long (then nginx tries it again). */
const FAIL_TIMEOUT = '5s';
/**
 * A running app whose /health does not answer in time this many polls in a row is taken out. A
 * busy app answers late; taking it out for that turned a kill -9 under load into "no live
 * upstreams": the survivors, busy with the dead app's visitors and replies, missed a poll or two
 * and every reconnecting visitor got nginx's 502 for seconds. An app that refuses the connection
 * (or exited) is gone: out at the first poll.
 */
export const HEALTH_MISSES_DOWN = 5;

/** What one /health poll of an app found. */
export type HealthOutcome = 'ok' | 'draining' | 'refused' | 'late';

/** One /health poll: 'late' when nothing answered within `timeoutMs` (or the answer was cut). */
export async function probeHealth(url: string, timeoutMs: number): Promise<HealthOutcome> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json().catch(() => ({}))) as { status?: string };
    // A 503 for any other reason (the database is down) is the same on every server:
    // keep routing, the visitor gets the app's clear 503 rather than nginx's 502.
    return res.status === 503 && body.status === 'draining' ? 'draining' : 'ok';
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    return code === 'ECONNREFUSED' ? 'refused' : 'late';
  }
}

/** Whether an app stays in nginx after a poll, and its late polls in a row. */
export function nextHealth(state: { up: boolean; misses: number }, outcome: HealthOutcome): { up: boolean; misses: number } {
  switch (outcome) {
    case 'ok':
      return { up: true, misses: 0 };
    case 'draining':
    case 'refused':
      return { up: false, misses: 0 };
    case 'late': {
      const misses = state.misses + 1;
      return { up: state.up && misses < HEALTH_MISSES_DOWN, misses };
    }
  }
}

export interface ClusterOptions {
  apps: number;
  port: number;
  host: string;
  dir: string;
  source: boolean;
}

export interface ClusterState {
  url: string;
  nginxPid: number;
  apps: { name: string; pid: number; port: number; url: string }[];
}

class UsageError extends Error {}

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): ClusterOptions {
  let parsed: ReturnType<typeof parseClusterArgs>;
  try {
    parsed = parseClusterArgs(argv);
  } catch (error) {
    // node:util's messages name the option ("Unknown option '--x'", "Option '--port <value>' argument missing").
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const get = (flag: 'apps' | 'port' | 'host' | 'dir', envName: string): string | undefined =>
    values[flag] ?? (env[envName] === undefined || env[envName] === '' ? undefined : env[envName]);
  if (positionals.length > 1) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const whole = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return Number(raw);
  };
  return {
    apps: whole('the number of apps', positionals[0] ?? get('apps', 'CLUSTER_APPS'), 3, 1, 16),
    port: whole('the port', get('port', 'CLUSTER_PORT'), 8080, 0, 65535),
    host: get('host', 'CLUSTER_HOST') ?? '127.0.0.1',
    dir: path.resolve(ROOT, get('dir', 'CLUSTER_DIR') ?? path.join('data', 'cluster')),
    source: values.source ?? false,
  };
}

function parseClusterArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: true,
    options: { apps: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, dir: { type: 'string' }, source: { type: 'boolean' }, help: { type: 'boolean' } },
  });
}

export const NGINX_MISSING = 'Install it first: sudo apt-get install nginx (Debian/Ubuntu), or set NGINX_BIN to its path.';

/** NGINX_BIN, Debian's /usr/sbin/nginx, or nginx on PATH. */
export function findNginx(env: NodeJS.ProcessEnv, defaults: readonly string[] = ['/usr/sbin/nginx']): string | undefined {
  const executable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (env.NGINX_BIN) return executable(env.NGINX_BIN) ? env.NGINX_BIN : undefined;
  const candidates = [...defaults, ...(env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, 'nginx'))];
  return candidates.find(executable);
}

/** Fills ${SA_...} placeholders; an unknown one is an error (a typo must not reach nginx). */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{(SA_[A-Z0-9_]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`nginx template: no value for \${${name}}`);
    return values[name];
  });
}

function log(message: string): void {
  process.stdout.write(`[cluster] ${message}\n`);
}

/** Nest's start-up listing of every module and route: hundreds of lines per app, nothing to act on. */
const NOISE = /\[(RouterExplorer|RoutesResolver|InstanceLoader)\]/;

function prefixLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WriteStream, sink?: (text: string) => void): void {
  let rest = '';
  stream.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString();
    sink?.(chunk.toString());
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (!NOISE.test(line)) out.write(`${prefix} ${line}\n`);
  });
  stream.on('end', () => {
    if (rest) out.write(`${prefix} ${rest}\n`);
  });
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function alive(child: ChildProcess | undefined): child is ChildProcess {
  return child !== undefined && child.exitCode === null && child.signalCode === null;
}

function exited(child: ChildProcess): Promise<void> {
  return alive(child) ? new Promise((resolve) => child.once('exit', () => resolve())) : Promise.resolve();
}

function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

interface App {
  name: string;
  child: ChildProcess;
  port: number;
  /** In nginx's upstream (false: marked down after a failed /health). */
  up: boolean;
  /** /health polls in a row that got no answer in time. */
  misses: number;
}

class Cluster {
  private readonly apps: App[] = [];
  private nginx: ChildProcess | undefined;
  private nginxDir: string;
  private healthTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<number> | undefined;
  private url = '';
  private resolveStopped: (code: number) => void = () => undefined;
  /** Settles with the exit code once everything was stopped (by a signal, or no app left). */
  readonly stopped = new Promise<number>((resolve) => (this.resolveStopped = resolve));

  constructor(
    private readonly options: ClusterOptions,
    private readonly nginxBin: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.nginxDir = path.join(options.dir, 'nginx');
  }

  async start(): Promise<void> {
    const { options } = this;
    // An nginx of an earlier run of this folder (its script killed) would still hold the port.
    const leftover = await stopLeftoverNginx(this.nginxDir);
    if (leftover.length > 0) log(`stopped what an earlier run left of nginx in ${this.nginxDir} (pids ${leftover.join(', ')})`);
    const port = options.port === 0 ? await freePort(options.host) : options.port;
    if (await reachable(options.host, port, 500)) throw new UsageError(`${options.host}:${port} is already in use (another cluster? set --port or CLUSTER_PORT)`);
    this.url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;

    // The first app alone: it migrates the database, creates the shared secret and seeds the
    // agents, so the others start on a ready schema.
    this.apps.push(await this.startApp(1));
    this.apps.push(...(await Promise.all(Array.from({ length: options.apps - 1 }, (_, i) => this.startApp(i + 2)))));

    writeNginxConfig(this.nginxDir);
    this.writeUpstreams();
    checkNginxConfig(this.nginxBin, this.nginxDir);
    await this.startNginx();
    this.writeState();
    this.healthTimer = setInterval(() => void this.checkHealth(), HEALTH_EVERY_MS);
    log(`Cluster ready: ${this.url} (nginx pid ${this.nginx!.pid}, ${this.apps.length} apps: ${this.apps.map((a) => `${a.name} pid ${a.child.pid} port ${a.port}`).join(', ')})`);
    log('Ctrl-C stops it (the apps drain first).');
  }

  private appEnv(): NodeJS.ProcessEnv {
    const env = this.env;
    return {
      ...env,
      PORT: '0',
      ...(process.stdout.isTTY ? {} : { NO_COLOR: '1' }),
      DATABASE_URL: env.DATABASE_URL || DEFAULT_DATABASE_URL,
      REDIS_URL: env.REDIS_URL || DEFAULT_REDIS_URL,
      TRUST_PROXY: env.TRUST_PROXY || 'loopback',
      DATA_DIR: env.DATA_DIR || path.join(this.options.dir, 'app'),
    };
  }

  private startApp(n: number): Promise<App> {
    const name = `app${n}`;
    const args = this.options.source ? ['-r', 'ts-node/register/transpile-only', path.join('src', 'main.ts')] : [path.join('dist', 'main.js')];
    // Detached: a terminal's Ctrl-C reaches this script only, which stops the apps in order. When
    // the script dies without stopping them (SIGKILL), they get SIGTERM and drain.
    const [command, commandArgs] = dyingWithThisProcess(process.execPath, args);
    const child = spawn(command, commandArgs, { cwd: ROOT, env: this.appEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const sink = (text: string) => {
      if (output.length < 200_000) output += text;
    };
    prefixLines(child.stdout!, `[${name}]`, process.stdout, sink);
    prefixLines(child.stderr!, `[${name}]`, process.stderr, sink);
    return new Promise<App>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${name} did not start within ${APP_START_TIMEOUT_MS / 1000} s`));
      }, APP_START_TIMEOUT_MS);
      const onData = () => {
        const m = /listening on https?:\/\/[^:\s]+:(\d+)/.exec(output);
        if (!m) return;
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.off('exit', onEarlyExit);
        const app: App = { name, child, port: Number(m[1]), up: true, misses: 0 };
        child.once('exit', (code, signal) => this.onAppExit(app, code, signal));
        resolve(app);
      };
      const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited while starting (${signal ?? `code ${code}`}); its output is above`));
      };
      child.stdout!.on('data', onData);
      child.once('exit', onEarlyExit);
    });
  }

  private onAppExit(app: App, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    const left = this.apps.filter((a) => alive(a.child)).length;
    log(`${app.name} (pid ${app.child.pid}) exited (${signal ?? `code ${code}`}); ${left} of ${this.apps.length} apps left`);
    this.setUp(app, false);
    if (left === 0) {
      log('no app is left: stopping');
      void this.stop(1);
    }
  }

  private upstreamServers(): string {
    return this.apps.map((a) => `server 127.0.0.1:${a.port} max_fails=1 fail_timeout=${FAIL_TIMEOUT}${a.up ? '' : ' down'};  # ${a.name}`).join('\n    ');
  }

  private writeUpstreams(): void {
    const listen = `${this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host}:${new URL(this.url).port}`;
    const site = renderTemplate(fs.readFileSync(TEMPLATE, 'utf8'), { SA_LISTEN: listen, SA_UPSTREAM_SERVERS: this.upstreamServers() });
    // Written aside, then renamed: nginx reloading meanwhile reads the old file or the new one,
    // never half of one ("pread() returned only N bytes", seen when two apps changed at once).
    const file = nginxSitePath(this.nginxDir);
    fs.writeFileSync(`${file}.tmp`, `# Generated by npm run cluster from deploy/nginx/support-assistant.conf.template; edit that.\n${site}`);
    fs.renameSync(`${file}.tmp`, file);
  }

  private async startNginx(): Promise<void> {
    const { hostname, port } = new URL(this.url);
    const child = await startNginx(this.nginxBin, this.nginxDir, { host: hostname, port: Number(port) }, (spawned) => {
      this.nginx = spawned;
      prefixLines(spawned.stdout!, '[nginx]', process.stdout);
      prefixLines(spawned.stderr!, '[nginx]', process.stderr);
    });
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      log(`nginx exited (${signal ?? `code ${code}`}): stopping`);
      void this.stop(1);
    });
  }

  private writeState(): void {
    const state: ClusterState = {
      url: this.url,
      nginxPid: this.nginx!.pid!,
      apps: this.apps.map((a) => ({ name: a.name, pid: a.child.pid!, port: a.port, url: `http://127.0.0.1:${a.port}` })),
    };
    fs.writeFileSync(path.join(this.options.dir, 'cluster.json'), JSON.stringify(state, null, 2));
  }

  /** The active health check: draining or unreachable apps out of nginx, recovered ones back in. */
  private async checkHealth(): Promise<void> {
    if (this.stopping) return;
    await Promise.all(
      this.apps.map(async (app) => {
        if (!alive(app.child)) return this.setUp(app, false);
        const next = nextHealth(app, await probeHealth(`http://127.0.0.1:${app.port}`, HEALTH_EVERY_MS * 2));
        app.misses = next.misses;
        this.setUp(app, next.up);
      }),
    );
  }

  private setUp(app: App, up: boolean): void {
    if (app.up === up || this.stopping) return;
    app.up = up;
    log(`${app.name} ${up ? 'answers /health again: back in nginx' : alive(app.child) ? 'is draining or not answering /health: marked down in nginx' : 'is gone: marked down in nginx'}`);
    this.writeUpstreams();
    if (alive(this.nginx)) this.nginx.kill('SIGHUP');
  }

  /** Apps first (SIGTERM: they drain), then nginx (SIGQUIT: graceful); SIGKILL for anything late. */
  stop(code: number): Promise<number> {
    this.stopping ??= (async () => {
      clearInterval(this.healthTimer);
      const running = this.apps.filter((a) => alive(a.child));
      if (running.length > 0) log(`stopping ${running.length} apps (SIGTERM: running replies finish first)`);
      for (const app of running) app.child.kill('SIGTERM');
      const grace = Number(this.appEnv().SHUTDOWN_GRACE_MS ?? 25_000) + 10_000;
      for (const app of running) {
        if (!(await within(exited(app.child), grace))) {
          log(`${app.name} did not stop in time: SIGKILL`);
          app.child.kill('SIGKILL');
        }
      }
      if (alive(this.nginx)) {
        log('stopping nginx');
        this.nginx.kill('SIGQUIT');
        if (!(await within(exited(this.nginx), 5000))) {
          this.nginx.kill('SIGTERM');
          if (!(await within(exited(this.nginx), 3000))) killNginxGroup(this.nginx, 'SIGKILL');
        }
      }
      log('stopped');
      this.resolveStopped(code);
      return code;
    })();
    return this.stopping;
  }

  /** Last resort (this process is exiting): nothing it started may outlive it. */
  killAll(): void {
    for (const app of this.apps) if (alive(app.child)) app.child.kill('SIGKILL');
    if (alive(this.nginx)) killNginxGroup(this.nginx, 'SIGKILL');
  }
}

async function main(): Promise<number> {
  let options: ClusterOptions;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`npm run cluster: ${error.message}\nUsage: npm run cluster -- [N] [--port P] [--host H] [--dir D] [--source]`);
    return 2;
  }
  if (process.argv.includes('--help')) {
    console.log('Usage: npm run cluster -- [N apps, default 3] [--port P, default 8080] [--host H] [--dir D] [--source]\nSee deploy/cluster.ts and the README section "Cluster".');
    return 0;
  }

  const nginxBin = findNginx(process.env);
  if (!nginxBin) {
    const looked = process.env.NGINX_BIN ? `NGINX_BIN=${process.env.NGINX_BIN} is not an executable file` : 'looked for /usr/sbin/nginx and nginx on PATH';
    console.error(`npm run cluster: nginx was not found (${looked}).\n${NGINX_MISSING}`);
    return 1;
  }

  for (const [name, raw, fallback, defaultPort] of [
    ['DATABASE_URL', process.env.DATABASE_URL, DEFAULT_DATABASE_URL, 5432],
    ['REDIS_URL', process.env.REDIS_URL, DEFAULT_REDIS_URL, 6379],
  ] as const) {
    const url = new URL(raw || fallback);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || defaultPort);
    if (!(await reachable(host, port))) {
      console.error(`npm run cluster: nothing answers at ${host}:${port} (${name}${raw ? '' : ', the default'}). Start ${name === 'DATABASE_URL' ? 'PostgreSQL' : 'Redis'} or set ${name}.`);
      return 1;
    }
  }

  if (!options.source && !(fs.existsSync(path.join(ROOT, 'dist', 'main.js')) && fs.existsSync(path.join(ROOT, 'dist', 'client', 'index.html')))) {
    log('dist/ is missing: building first (npm run build)');
    const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0) {
      console.error('npm run cluster: the build failed (above)');
      return 1;
    }
  }

  const cluster = new Cluster(options, nginxBin, process.env);
  process.on('exit', () => cluster.killAll());
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    // Ctrl-C under `npm run` can arrive twice at once (from the terminal, and forwarded by npm).
    if (firstSignalAt !== 0 && Date.now() - firstSignalAt < 1000) return;
    if (firstSignalAt !== 0) {
      log(`${signal} again: killing everything now`);
      cluster.killAll();
      process.exit(130);
    }
    firstSignalAt = Date.now();
    log(`${signal}: stopping (${signal} again kills at once)`);
    void cluster.stop(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await cluster.start();
  } catch (error) {
    console.error(`npm run cluster: ${error instanceof Error ? error.message : String(error)}`);
    await cluster.stop(1);
    return 1;
  }
  return cluster.stopped;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
