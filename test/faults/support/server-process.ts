/**
 * The app as a real child process (what production runs), for the fault tests: started from
 * source with ts-node, or from dist/ when it is built and `FAULTS_FROM_DIST=1`. Resolves once it
 * logs its address.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  /** SIGKILL unless it already exited. */
  kill(signal?: NodeJS.Signals): void;
}

export async function startServerProcess(env: Record<string, string | undefined>, startTimeoutMs = 60_000): Promise<ServerProcess> {
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
