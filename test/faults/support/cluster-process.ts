/**
 * `npm run cluster` (deploy/cluster.ts) as a child process, for the cluster test and
 * bench/cluster.ts: N apps behind nginx on a free port, its runtime folder in a temporary
 * directory. Resolves once it printed "Cluster ready", with its cluster.json.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ClusterState } from '../../../deploy/cluster';
import { stopLeftoverNginx } from '../../../deploy/nginx-process';
import { LIFTED_CHAT_LIMITS } from '../../support/lifted-limits';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ClusterProcess {
  child: ChildProcess;
  state: ClusterState;
  dir: string;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGTERM (the script drains the apps, then stops nginx); resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ClusterOptions {
  apps: number;
  /** Its runtime folder (nginx config, logs, the apps' DATA_DIR). */
  dir: string;
  env: Record<string, string | undefined>;
  /** Apps from src/ with ts-node instead of dist/ (the fault tests' default, see server-process.ts). */
  source?: boolean;
  startTimeoutMs?: number;
  /** Where the script's output goes besides the buffer (the benchmark shows nothing). */
  echo?: boolean;
}

/** Runs deploy/cluster.ts with `extraArgs` and the environment; resolves with its exit code and output. */
export function runClusterScript(extraArgs: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join('deploy', 'cluster.ts'), ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d.toString()));
  child.stderr!.on('data', (d) => (output += d.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

export async function startCluster(options: ClusterOptions): Promise<ClusterProcess> {
  const args = ['-r', 'ts-node/register/transpile-only', path.join('deploy', 'cluster.ts'), String(options.apps), '--port', '0', '--dir', options.dir];
  if (options.source) args.push('--source');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'log', ...options.env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (d: Buffer) => {
    output += d.toString();
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
    if (options.echo) process.stdout.write(d);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const timeoutMs = options.startTimeoutMs ?? 180_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the cluster did not start within ${timeoutMs} ms:\n${output.slice(-5000)}`));
    }, timeoutMs);
    const onData = () => {
      if (/Cluster ready: /.test(output)) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the cluster script exited (code ${code}) before it was ready:\n${output.slice(-5000)}`));
    });
  });
  const state = JSON.parse(fs.readFileSync(path.join(options.dir, 'cluster.json'), 'utf8')) as ClusterState;
  return {
    child,
    state,
    dir: options.dir,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Every client of a test or benchmark comes from 127.0.0.1, so the per-IP chat rate limits (and
 * sockets per IP) would refuse most of them. Signs in as the cluster's ADMIN_EMAIL /
 * ADMIN_PASSWORD and raises them as the other suites do (LIFTED_CHAT_LIMITS); returns what it set.
 */
export async function liftChatLimits(url: string, email: string, password: string): Promise<Record<string, number>> {
  const login = await fetch(`${url}/api/auth/login-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!login.ok) throw new Error(`sign-in to raise the chat limits failed: ${login.status} ${await login.text()}`);
  const cookie = (login.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const put = await fetch(`${url}/api/config/global`, { method: 'PUT', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ chatLimits: LIFTED_CHAT_LIMITS }) });
  if (!put.ok) throw new Error(`raising the chat limits failed: ${put.status} ${await put.text()}`);
  return { ...LIFTED_CHAT_LIMITS };
}

/**
 * A cluster test's teardown: the cluster script and every app killed (a SIGKILL of the script
 * alone would leave its apps running), nginx with its workers (a SIGKILL of its master alone would
 * leave them serving the port), then what the test started beside it and its folder.
 */
export async function tearDownCluster(parts: { cluster?: ClusterProcess; dir?: string; others?: Array<{ close(): Promise<void> } | undefined> }): Promise<void> {
  await parts.cluster?.stop('SIGKILL');
  for (const app of parts.cluster?.state.apps ?? []) {
    try {
      process.kill(app.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (parts.dir) await stopLeftoverNginx(path.join(parts.dir, 'nginx'));
  for (const other of parts.others ?? []) await other?.close();
  if (parts.dir) fs.rmSync(parts.dir, { recursive: true, force: true });
}
