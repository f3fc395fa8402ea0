#!/usr/bin/env node
/**
 * Runs a command (npm run test:server: jest) with REDIS_URL and DATABASE_URL pointed at the local
 * Redis (127.0.0.1:6379) and PostgreSQL (127.0.0.1:5432, user postgres, database test) when they
 * are not set and the servers answer, as .ci/run sets them. So `npm test` runs every suite on a
 * machine that has the services, and a suite whose requirement is really missing fails with the
 * reason (test/support/requirements.ts) instead of being skipped. A variable already set is kept.
 *
 *   node scripts/with-local-services.mjs jest --runInBand
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';

const REDIS_URL = 'redis://127.0.0.1:6379';
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

function redisAnswers() {
  return new Promise((resolve) => {
    const socket = net.connect(6379, '127.0.0.1');
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

async function postgresAnswers() {
  const { Client } = createRequire(import.meta.url)('pg');
  const client = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const env = { ...process.env };
const found = [];
if (!env.REDIS_URL && (await redisAnswers())) {
  env.REDIS_URL = REDIS_URL;
  found.push(`REDIS_URL=${REDIS_URL}`);
}
if (!env.DATABASE_URL && (await postgresAnswers())) {
  env.DATABASE_URL = DATABASE_URL;
  found.push(`DATABASE_URL=${DATABASE_URL}`);
}
if (found.length > 0) console.log(`Local services answer; the tests use ${found.join(' and ')} (set them to choose others).`);

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: 'inherit', env, shell: process.platform === 'win32' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
