/**
 * Usage events are stored before the visitor gets the end of the reply, so
 * a reply id the visitor holds is always rateable and an unknown one is refused at once (defect
 * 9); during a database outage they go to a journal that a later start replays.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import type { ReplyData } from '../src/shared/contracts/chat';
import { queuedWrite } from '../src/database/write-queue';
import { chatOverSocket, connectClient, distributed, eventually, startTestApp, TestApp, visitorCookieOf } from './support/test-app';

async function storedIds(t: TestApp, ids: string[]): Promise<Set<string>> {
  const rows: { id: string }[] = await t.dataSource.query('SELECT id FROM usage_events');
  return new Set(rows.map((r) => r.id).filter((id) => ids.includes(id)));
}

/** What this server's usage journal holds now (a write slower than JOURNAL_AFTER_MS is journaled before the reply ends). */
function journalText(t: TestApp): string {
  const dir = path.join(t.config.dataDir, 'usage-journal');
  if (!fs.existsSync(dir)) return '';
  return fs.readdirSync(dir).map((f) => {
    try {
      return fs.readFileSync(path.join(dir, f), 'utf8');
    } catch {
      return ''; // emptied meanwhile: the write landed
    }
  }).join('');
}

/** The ids durable now: in the database, or journaled while their write runs. */
async function durableIds(t: TestApp, ids: string[]): Promise<Set<string>> {
  const journaled = journalText(t);
  const stored = await storedIds(t, ids);
  for (const id of ids) if (journaled.includes(id)) stored.add(id);
  return stored;
}

describe('usage events are stored before the reply ends', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A flush interval no chat would wait for: an event must not depend on it to be stored.
    t = await startTestApp({ usageFlushMs: 60_000 });
  });

  afterAll(async () => {
    await t?.close();
  });

  // In the database, or (a write slower than JOURNAL_AFTER_MS on a busy machine) in the journal a restart replays.
  it('has the usage event of every reply stored when chat:done or the /interact reply arrives', async () => {
    const socket = await connectClient(t.url);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const result = await chatOverSocket(socket, { vertical: 'hr', query: `How many vacation days do I get? (${i})` });
        const replyId = result.done!.replyId!;
        // Read right at chat:done, before anything else happens.
        expect(await durableIds(t, [replyId])).toEqual(new Set([replyId]));
        ids.push(replyId);
        const res = await request(t.url).post('/interact').send({ vertical: 'sales', query: `How do I handle a price objection? (${i})` }).expect(200);
        const restId = (res.body.data as ReplyData).replyId!;
        expect(await durableIds(t, [restId])).toEqual(new Set([restId]));
        ids.push(restId);
      }
      // Concurrent chats (one group commit may carry several; 4 is the most one socket may run).
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => chatOverSocket(socket, { vertical: 'customer-service', query: `How long does shipping take? ${i}` })));
      const concurrent = results.map((r) => r.done!.replyId!);
      expect(await durableIds(t, concurrent)).toEqual(new Set(concurrent));
      await eventually(async () => (await storedIds(t, [...ids, ...concurrent])).size === ids.length + concurrent.length, 5000, 'every event in the database');
    } finally {
      socket.close();
    }
  });

  it('does not hold a reply behind a long write: the event is journaled after JOURNAL_AFTER_MS, lands when the write ends, and the journal empties', async () => {
    const { JOURNAL_AFTER_MS } = await import('../src/analytics/usage-recorder.service');
    const HOLD_MS = 1500;
    // Hold the usage table for 1.5 s, as a 10 MB knowledge write holds SQLite's one writer.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: Promise<unknown>;
    const locked = new Promise<void>((resolve) => {
      holding = t.dataSource.driver.options.type === 'postgres'
        ? t.dataSource.transaction(async (m) => {
            await m.query('LOCK TABLE usage_events IN ACCESS EXCLUSIVE MODE');
            resolve();
            await held;
          })
        : queuedWrite(t.dataSource, async () => {
            resolve();
            await held;
          });
    });
    await locked;
    const releaseTimer = setTimeout(release, HOLD_MS);
    try {
      const started = performance.now();
      const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get? (held)' }).expect(200);
      const took = performance.now() - started;
      const replyId = (res.body.data as ReplyData).replyId!;
      // Answered long before the write could run, with the event in the journal meanwhile.
      expect(took).toBeLessThan(HOLD_MS - 300);
      expect(journalText(t)).toContain(replyId);
      expect(await durableIds(t, [replyId])).toEqual(new Set([replyId]));
      await holding;
      await eventually(async () => (await storedIds(t, [replyId])).size === 1, 5000, 'the held write landed');
      await eventually(async () => journalText(t) === '', 5000, 'the journal emptied');
      expect(JOURNAL_AFTER_MS).toBeLessThan(HOLD_MS / 3);
    } finally {
      clearTimeout(releaseTimer);
      release();
      await holding;
    }
  });

  it('rates a reply right after it arrives, and refuses an unknown reply id after one lookup', async () => {
    const res = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'Can I carry over unused vacation days?' }).expect(200);
    const visitor = visitorCookieOf(res.headers['set-cookie'])!;
    await request(t.url).post('/api/feedback').set('Cookie', visitor).send({ replyId: res.body.data.replyId, vote: 'up' }).expect(200);

    const lookups: string[] = [];
    const query = t.dataSource.query.bind(t.dataSource);
    const spy = jest.spyOn(t.dataSource, 'query').mockImplementation((sql: string, params?: unknown[]) => {
      if (/FROM usage_events WHERE id/.test(sql)) lookups.push(sql);
      return query(sql, params);
    });
    try {
      const unknown = await request(t.url).post('/api/feedback').set('Cookie', visitor).send({ replyId: '01900000-0000-7000-8000-000000000000', vote: 'up' }).expect(404);
      expect(unknown.body).toMatchObject({ success: false, error: { code: 'not_found' } });
      // The old code flushed and polled the table for 2 s (about 20 lookups).
      expect(lookups).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});

// The journal is per server process and holds what the database refused; the SQLite variant can
// make the database refuse usage writes without stopping it (test/faults covers a Postgres outage).
// It runs on SQLite in every run, CI's (which sets DATABASE_URL and REDIS_URL) included.
const SQLITE_ONLY = { databaseUrl: undefined, redisUrl: undefined } as const;
describe('usage journal (SQLite; the Postgres outage is in test/faults)', () => {
  it('journals events the database refused, answers the visitor, and a later start stores them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-journal-'));
    try {
      const first = await startTestApp({ ...SQLITE_ONLY, dataDir, usageFlushMs: 60_000 });
      // Usage writes fail from now on (the table is gone for the insert), everything else works.
      await first.dataSource.query('ALTER TABLE usage_events RENAME TO usage_events_away');
      const res = await request(first.url).post('/interact').send({ vertical: 'hr', query: 'How many vacation days do I get?' }).expect(200);
      const replyId = (res.body.data as ReplyData).replyId!;
      const journalDir = path.join(dataDir, 'usage-journal');
      const journaled = fs.readdirSync(journalDir).map((f) => fs.readFileSync(path.join(journalDir, f), 'utf8')).join('');
      expect(journaled).toContain(replyId);
      await first.dataSource.query('ALTER TABLE usage_events_away RENAME TO usage_events');
      // Stop as a crash would leave it: the journal file stays, its owner is gone (a later life
      // of this pid with another start time counts as gone too).
      const recorder = first.app.get((await import('../src/analytics/usage-recorder.service')).UsageRecorderService, { strict: false });
      (recorder as unknown as { retry: unknown[] }).retry = [];
      await first.close({ keepData: true });
      expect(fs.readdirSync(journalDir).length).toBe(1);

      const second = await startTestApp({ ...SQLITE_ONLY, dataDir });
      try {
        await eventually(async () => (await storedIds(second, [replyId])).size === 1, 5000, 'the journaled event stored');
        expect(fs.readdirSync(journalDir)).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
