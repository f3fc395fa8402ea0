/**
 * The app as a real child process (what production runs), for the fault tests: started from
 * source with ts-node, or from dist/ when it is built and `FAULTS_FROM_DIST=1`. Resolves once it
 * logs its address.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { LIFTED_CHAT_LIMITS } from '../../support/lifted-limits';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGKILL unless it already exited. */
  kill(signal?: NodeJS.Signals): void;
}


const LIFTER = { email: 'limits-lifter@example.com', password: 'a long enough password for tests' };

/** Raises the chat rate limits through the Config API, signed in as the environment's admin. */
async function liftChatLimits(url: string, email: string, password: string): Promise<void> {
  const login = await fetch(`${url}/api/auth/login-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (!login.ok) throw new Error(`sign-in to lift the chat limits failed: ${login.status} ${await login.text()}`);
  const cookie = (login.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const put = await fetch(`${url}/api/config/global`, { method: 'PUT', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ chatLimits: LIFTED_CHAT_LIMITS }) });
  if (!put.ok) throw new Error(`lifting the chat limits failed: ${put.status} ${await put.text()}`);
}

/**
 * Starts the app; unless `chatLimits: 'defaults'`, lifts its chat rate limits (signing in as
 * ADMIN_EMAIL / ADMIN_PASSWORD from `env`, or as an admin added for it).
 */
export async function startServerProcess(env: Record<string, string | undefined>, startTimeoutMs = 60_000, options: { chatLimits?: 'defaults' | 'lifted' } = {}): Promise<ServerProcess> {
  const lift = options.chatLimits !== 'defaults';
  // The suite's own admin (ADMIN_EMAIL) is kept: a password is added for the sign-in that lifts the limits
  // (code sign-in stays on for it), or an admin is added for that when the suite names none.
  if (lift && !env.ADMIN_PASSWORD) env = { ...env, ADMIN_EMAIL: env.ADMIN_EMAIL ?? LIFTER.email, ADMIN_PASSWORD: LIFTER.password };
  const server = await spawnServer(env, startTimeoutMs);
  if (lift) {
    try {
      await liftChatLimits(server.url, env.ADMIN_EMAIL!, env.ADMIN_PASSWORD!);
    } catch (error) {
      server.kill();
      throw error;
    }
  }
  return server;
}

async function spawnServer(env: Record<string, string | undefined>, startTimeoutMs: number): Promise<ServerProcess> {
  const fromDist = process.env.FAULTS_FROM_DIST === '1';
  const args = fromDist ? [path.join(ROOT, 'dist', 'main.js')] : ['-r', 'ts-node/register/transpile-only', 'src/main.ts'];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'log', ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d.toString()));
  child.stderr!.on('data', (d) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within ${startTimeoutMs} ms:\n${output}`)), startTimeoutMs);
    const onData = () => {
      const m = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(m[1].replace('localhost', '127.0.0.1'));
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited early:\n${output}`));
    });
  });
  return {
    child,
    url,
    output: () => output,
    exited,
    kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
