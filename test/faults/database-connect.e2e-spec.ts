/**
 * A database that accepts TCP and never answers must not hang the start,
 * and a database lost at run time gives callers 503 `database_unavailable`, never a 500.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import request from 'supertest';
import { chatOverSocket, connectClient, startTestApp } from '../support/test-app';

const ROOT = path.resolve(__dirname, '..', '..');

describe('database connect timeout', () => {
  it('fails the start within the connect timeout with a line naming the database, when its port accepts and never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket)); // accepts, never says a word
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-dbto-'));
    const started = Date.now();
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, DATABASE_URL: `postgres://app:pw-hunter2@127.0.0.1:${port}/app`, DATABASE_CONNECT_TIMEOUT_MS: '1500', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const seconds = (Date.now() - started) / 1000;
      console.log(`silent database port: start failed after ${seconds.toFixed(1)} s (timeout 1.5 s, ts-node start included):\n${output.split('\n').filter((l) => /Could not start/.test(l)).join('\n')}`);
      expect(code).toBe(1);
      expect(output).toMatch(new RegExp(`Could not start: cannot connect to the database, PostgreSQL at postgres://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/app \\(DATABASE_URL\\) within 1500 ms`));
      expect(output).not.toContain('pw-hunter2');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      sockets.forEach((s) => s.destroy());
      silent.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 45_000);
});

describe('database lost at run time', () => {
  it('answers /interact and the socket with 503 database_unavailable, not 500 internal_error', async () => {
    const t = await startTestApp();
    const socket = await connectClient(t.url);
    try {
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
      await t.dataSource.destroy();
      const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, error: { code: 'database_unavailable', message: 'The database is not reachable right now. Please try again in a moment.' } });
      const result = await chatOverSocket(socket, { vertical: 'hr', query: 'How many vacation days do I get?' });
      expect(result.error).toEqual({ code: 'database_unavailable', message: 'The database is not reachable right now. Please try again in a moment.' });
    } finally {
      socket.close();
      await t.close().catch(() => undefined);
    }
  });
});
