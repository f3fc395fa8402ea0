/**
 * The cluster's nginx must not outlive `npm run cluster`: workers whose master is gone would keep
 * serving its port. The nginx start of
 * deploy/cluster.ts (deploy/nginx-process.ts) runs in a child process (support/nginx-child.ts)
 * that is killed with SIGKILL, as a test runner or the OOM killer would:
 * - nginx dies with it (Linux: the kernel's parent-death signal);
 * - when its master was killed too, its workers keep serving the port, and the next start of the
 *   same folder stops them before it starts its own.
 * Linux only (it reads /proc); skipped when nginx is not installed.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { findNginx, NGINX_MISSING } from '../../deploy/cluster';
import { describeWith, NEEDS } from '../support/requirements';

const nginx = findNginx(process.env);
if (!nginx) console.warn(`test/faults/nginx-leftover: skipped, nginx is not installed. ${NGINX_MISSING}`);
const describeOnLinuxWithNginx = (name: string, fn: () => void) => describeWith([NEEDS.nginx, { what: 'Linux', missing: process.platform === 'linux' ? undefined : `not on Linux (${process.platform})` }], name, fn);
const ROOT = path.resolve(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  masterPid: number;
  leftover: number[];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function startChild(dir: string, port: number): Promise<Started> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join('test', 'faults', 'support', 'nginx-child.ts'), dir, String(port), nginx!], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /^ready (.*)$/m.exec(output);
      if (m) {
        const ready = JSON.parse(m[1]) as { pid: number; leftover: number[] };
        resolve({ child, masterPid: ready.pid, leftover: ready.leftover });
      }
    });
    child.once('exit', (code) => reject(new Error(`the nginx child exited (code ${code}) before it was ready:\n${output}`)));
  });
}

/** Running: /proc says so and it is not a zombie (a killed process stays one until its parent reaps it). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The master and its workers (children of the master, read from /proc). */
function nginxFamily(masterPid: number): number[] {
  const workers = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === masterPid;
      } catch {
        return false;
      }
    });
  return [masterPid, ...workers];
}

function answers(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) }).then(
    (res) => res.ok,
    () => false,
  );
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

describeOnLinuxWithNginx("the cluster's nginx when its script is killed with SIGKILL", () => {
  let dir: string;
  const pids: number[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-nginx-'));
  });

  afterEach(() => {
    // Whatever a failed case left (this file's own processes only).
    for (const pid of pids.splice(0)) {
      try {
        if (isRunning(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('dies with the script: master and workers gone, the port free', async () => {
    const port = await freePort();
    const first = await startChild(dir, port);
    const family = nginxFamily(first.masterPid);
    pids.push(first.child.pid!, ...family);
    expect(family.length).toBeGreaterThan(1);
    expect(await answers(port)).toBe(true);

    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    const gone = await until(() => !family.some(isRunning), 5000);
    console.log(`nginx-leftover: SIGKILL of the script; its nginx (${family.length} processes) gone after ${Date.now() - killedAt} ms`);
    expect(family.filter(isRunning)).toEqual([]);
    expect(gone).toBe(true);
    expect(await answers(port)).toBe(false);
  }, 30_000);

  it('a master killed with its script leaves workers serving the port; the next start of the folder stops them and serves the port itself', async () => {
    const port = await freePort();
    const first = await startChild(dir, port);
    const family = nginxFamily(first.masterPid);
    const workers = family.slice(1);
    pids.push(first.child.pid!, ...family);
    process.kill(first.masterPid, 'SIGKILL');
    first.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    // The defect's state: no master, its workers still answer on the port.
    expect(isRunning(first.masterPid)).toBe(false);
    expect(workers.filter(isRunning)).toEqual(workers);
    expect(await answers(port)).toBe(true);

    const restartedAt = Date.now();
    const second = await startChild(dir, port);
    const secondFamily = nginxFamily(second.masterPid);
    pids.push(second.child.pid!, ...secondFamily);
    console.log(`nginx-leftover: the next start stopped ${second.leftover.length} leftover workers and served the port after ${Date.now() - restartedAt} ms`);
    expect(second.leftover.sort()).toEqual([...workers].sort());
    expect(workers.filter(isRunning)).toEqual([]);
    expect(await answers(port)).toBe(true);

    second.child.kill('SIGKILL');
    expect(await until(() => !secondFamily.some(isRunning), 5000)).toBe(true);
  }, 30_000);
});
