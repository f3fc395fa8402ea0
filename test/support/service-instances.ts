/**
 * Redis and PostgreSQL instances a test owns: each on a free port of its own, in a temporary
 * folder, stopped and started by the test (the shared services on 6379 / 5432 are never touched).
 * Needs `redis-server` and PostgreSQL's server binaries (`/usr/lib/postgresql/<version>/bin`, or
 * PG_BIN); .ci/run installs both. PostgreSQL refuses to run as root, so as root the server runs
 * as the `postgres` user (runuser).
 */
import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A TCP port nobody listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A redis-server without persistence (a restart loses every key, as in the outage we test). */
export class RedisInstance {
  private process: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisInstance> {
    const instance = new RedisInstance(await freePort());
    await instance.start();
    return instance;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], {
      stdio: 'ignore',
    });
    this.process = child;
    await waitFor(async () => (await run('redis-cli', ['-p', String(this.port), 'ping'])).stdout.trim() === 'PONG', 10_000, `redis-server on ${this.port}`);
  }

  /** Stops it at once (SIGKILL: nothing is saved, nothing said to clients). */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  async command(...args: string[]): Promise<string> {
    return (await run('redis-cli', ['-p', String(this.port), ...args])).stdout.trim();
  }
}

function pgBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('PostgreSQL server binaries not found (install postgresql, or set PG_BIN)');
  return path.join(root, versions[0], 'bin');
}

/** A PostgreSQL cluster of its own (initdb in a temporary folder, trust auth on 127.0.0.1). */
export class PostgresInstance {
  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PostgresInstance> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-pg-'));
    fs.chmodSync(dir, 0o755);
    const instance = new PostgresInstance(await freePort(), dir);
    if (isRoot()) await run('chown', ['postgres:postgres', dir]);
    await instance.asPostgres('initdb', ['-D', instance.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await instance.start();
    return instance;
  }

  private get dataDir(): string {
    return path.join(this.dir, 'data');
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c full_page_writes=off`;
    await this.asPostgres('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', path.join(this.dir, 'server.log'), '-w', '-t', '30', 'start']);
    await waitFor(() => canConnect(this.port), 10_000, `postgres on ${this.port}`);
  }

  /** `immediate`: the server aborts its connections at once (as a crash or a failover would). */
  async stop(mode: 'fast' | 'immediate' = 'immediate'): Promise<void> {
    await this.asPostgres('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop']).catch(() => undefined);
  }

  /**
   * Makes the server silent without closing anything: every process of the cluster is stopped
   * (SIGSTOP), so open connections stay open and new ones are accepted by the kernel, but no
   * statement is answered until `thaw`. Needs the right to signal them (root, or the same user).
   */
  async freeze(): Promise<void> {
    for (const pid of await this.processIds()) process.kill(pid, 'SIGSTOP');
  }

  async thaw(): Promise<void> {
    for (const pid of await this.processIds()) process.kill(pid, 'SIGCONT');
  }

  /** The postmaster (first line of postmaster.pid) and its children. */
  private async processIds(): Promise<number[]> {
    const postmaster = Number(fs.readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = await run('pgrep', ['-P', String(postmaster)]).then(
      ({ stdout }) => stdout.split('\n').filter(Boolean).map(Number),
      () => [] as number[],
    );
    return [postmaster, ...children];
  }

  async destroy(): Promise<void> {
    await this.thaw().catch(() => undefined);
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async asPostgres(tool: string, args: string[]): Promise<void> {
    const bin = path.join(pgBin(), tool);
    if (isRoot()) await run('runuser', ['-u', 'postgres', '--', bin, ...args]);
    else await run(bin, args);
  }
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
