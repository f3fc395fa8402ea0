/**
 * Fault matrix: `kill -9` during 200 chats. Every chat whose reply reached the visitor
 * (`chat:done` with its reply id) has its usage event after the restart.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../../src/config/app-config';
import { dropPostgresSchema, openDataSource } from '../../src/database/data-source';
import { chatOverSocket, ClientSocket, connectClient, distributed, uniqueSchema } from '../support/test-app';
import { startServerProcess } from './support/server-process';

const CHATS = 200;
const SOCKETS = 20;

describe('kill -9 during 200 chats', () => {
  const schema = distributed.databaseUrl ? uniqueSchema() : undefined;
  let dataDir: string;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-kill9-'));
  });

  afterAll(async () => {
    if (schema && distributed.databaseUrl) await dropPostgresSchema(distributed.databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the usage event of every chat that reached the visitor', async () => {
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: distributed.databaseUrl,
      DATABASE_SCHEMA: schema,
      REDIS_URL: '',
      // ~30 word groups 15 ms apart: each reply streams for a few hundred ms.
      LOCAL_RESPONDER_DELAY_MS: '15',
    };
    const server = await startServerProcess(env);
    const sockets: ClientSocket[] = await Promise.all(Array.from({ length: SOCKETS }, () => connectClient(server.url)));
    const completed: string[] = [];
    let failed = 0;
    let killedAt = 0;
    const questions = ['How many vacation days do I get?', 'How do I reset my password?', 'How long does shipping take?'];
    try {
      const runs = sockets.map(async (socket, s) => {
        for (let i = s; i < CHATS; i += SOCKETS) {
          if (killedAt) {
            failed += 1;
            continue;
          }
          try {
            const r = await chatOverSocket(socket, { vertical: i % 3 === 0 ? 'hr' : 'customer-service', query: questions[i % 3] }, 15_000);
            if (r.done?.replyId) completed.push(r.done.replyId);
            else failed += 1;
          } catch {
            failed += 1;
          }
        }
      });
      // SIGKILL once about half the chats are done: many replies are streaming at that moment.
      const killer = (async () => {
        while (completed.length < CHATS / 2) await new Promise((r) => setTimeout(r, 5));
        killedAt = Date.now();
        server.kill('SIGKILL');
      })();
      await Promise.all([...runs, killer]);
      await server.exited;
    } finally {
      sockets.forEach((s) => s.close());
      server.kill();
    }

    // Restart on the same data (a server that starts replays what a killed one journaled).
    const again = await startServerProcess(env);
    let stored: Set<string>;
    try {
      const ds = await openDataSource(loadConfig({}, { dataDir, databaseUrl: distributed.databaseUrl, databaseSchema: schema }));
      try {
        const rows: { id: string }[] = await ds.query('SELECT id FROM usage_events');
        stored = new Set(rows.map((r) => r.id));
      } finally {
        await ds.destroy();
      }
    } finally {
      again.kill('SIGTERM');
      await again.exited;
    }
    const missing = completed.filter((id) => !stored.has(id));
    console.log(
      `kill -9 during ${CHATS} chats: ${completed.length} completed before the kill, ${failed} cut off or not sent; ` +
        `after the restart ${completed.length - missing.length}/${completed.length} completed chats have their usage event (${stored.size} events in all)`,
    );
    expect(completed.length).toBeGreaterThanOrEqual(CHATS / 2);
    expect(missing).toEqual([]);
  }, 120_000);
});
