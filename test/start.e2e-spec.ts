/**
 * What `npm start` runs: the built server (dist/main.js) serving the built client and the API
 * on one port, with the embedded defaults (SQLite, in-process jobs, offline responder).
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');

/** A local port nothing listens on (connections to it are refused). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the built product (npm start)', () => {
  it('serves the client at "/" and "/admin", the API and health from one port with no other service', async () => {
    const main = MAIN;
    if (!fs.existsSync(main) || !fs.existsSync(path.join(ROOT, 'dist', 'client', 'index.html'))) {
      throw new Error('dist/ is missing: run "npm run build" (npm test does it first)');
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-start-'));
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir };
    // The embedded mode: no database, queue, mail or LLM service from the environment.
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'AZURE_OPENAI_API_KEY', 'LLM_BASE_URL']) delete env[name];
    const child = spawn(process.execPath, [main], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start within 20 s:\n${output}`)), 20000);
        child.stdout.on('data', () => {
          const m = /listening on (http:\/\/localhost:\d+)/.exec(output);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
        child.on('exit', () => reject(new Error(`exited:\n${output}`)));
      });
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, data: { database: { driver: 'sqlite' }, queue: { kind: 'in-process' } } });
      for (const page of ['/', '/admin', '/some/other/path']) {
        const res = await fetch(`${url}${page}`, { headers: { accept: 'text/html' } });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('<div id="root"></div>');
      }
      const chat = await fetch(`${url}/interact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'How do I reset my password?', vertical: 'customer-service' }),
      });
      const body = (await chat.json()) as { success: boolean; data: { usage: { provider: string }; sources: unknown[] } };
      expect(body.success).toBe(true);
      expect(body.data.usage.provider).toBe('local');
      expect(body.data.sources.length).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(dataDir, 'app.db'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops at once, naming the reason, when the database cannot be reached', async () => {
    if (!fs.existsSync(MAIN)) throw new Error('dist/ is missing: run "npm run build" (npm test does it first)');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-start-'));
    const port = await closedPort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dataDir, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/app` };
    for (const name of ['DATABASE_SCHEMA', 'REDIS_URL', 'SMTP_URL']) delete env[name];
    const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      // No retry loop: @nestjs/typeorm would otherwise try 9 times, 3 s apart.
      const code = await new Promise<number | null>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`still running after 10 s:\n${output}`)), 10000);
        child.once('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(code).toBe(1);
      expect(output).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
      expect(output).not.toMatch(/Retrying|listening on/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
