/**
 * The embedded mode's history in memory (src/conversations/history-mirror.ts) against the
 * database it stands for: random interleavings of turns (overlapping ones in one scope included),
 * replies that end or fail, New chat and deletes, through the real ConversationsService on SQLite.
 * Whenever everything queued is written, each scope the memory holds must read exactly as the
 * database does, and each new turn must get the history a database read gives.
 */
import { randomUUID } from 'node:crypto';
import { ConversationsService, type Turn } from '../src/conversations/conversations.service';
import { trimHistory } from '../src/conversations/history';
import type { HistoryMirror, HistoryRow } from '../src/conversations/history-mirror';
import { startTestApp, TestApp } from './support/test-app';

/** A small deterministic PRNG (mulberry32), so that a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('history in memory (embedded mode) against the database', () => {
  let t: TestApp;
  let conversations: ConversationsService;
  let mirror: HistoryMirror;

  beforeAll(async () => {
    t = await startTestApp({ databaseUrl: undefined, redisUrl: undefined });
    conversations = t.app.get(ConversationsService);
    mirror = (conversations as unknown as { mirror: HistoryMirror }).mirror;
  });

  afterAll(async () => {
    await t?.close();
  });

  const VERTICALS = ['sales', 'hr'] as const;
  const scopeKey = (visitorKey: string, vertical: string) => `${visitorKey}\u0000${vertical}\u0000`;

  /** What openTurn's history read returns now, from the database. */
  const databaseRows = (visitorKey: string, vertical: string): Promise<HistoryRow[]> =>
    t.dataSource.query(
      `SELECT c.id AS cid, m.id, m.role, m.content, m.status
         FROM conversations c LEFT JOIN conversation_messages m ON m.conversation_id = c.id
        WHERE c.visitor_key = ? AND c.vertical = ? AND c.scope = '' AND c.closed_at IS NULL
        ORDER BY m.seq DESC LIMIT 40`,
      [visitorKey, vertical],
    );

  it.each([1, 2, 3])('holds what the database holds through random turns, New chats and deletes (seed %i)', async (seed) => {
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const visitors = Array.from({ length: 3 }, () => ({ key: randomUUID(), returning: true }));
    const running: Turn[] = [];
    let compared = 0;
    let held = 0;

    const checkpoint = async () => {
      await conversations.writer.flush();
      for (const visitor of visitors) {
        for (const vertical of VERTICALS) {
          const inMemory = mirror.get(scopeKey(visitor.key, vertical));
          if (!inMemory) continue;
          held += 1;
          expect(inMemory).toEqual(await databaseRows(visitor.key, vertical));
        }
      }
    };

    for (let step = 0; step < 160; step++) {
      const roll = random();
      if (roll < 0.4 || running.length === 0) {
        // A question: its history must be the one a database read gives (with what is queued merged in).
        const visitor = pick(visitors);
        const vertical = pick(VERTICALS);
        const turn = await conversations.openTurn(visitor, { vertical }, {
          replyId: randomUUID(),
          requestId: randomUUID(),
          channel: 'socket',
          language: 'en',
          question: `Question ${seed}.${step}`,
          claimedHistory: [],
        });
        running.push(turn);
        if (random() < 0.7) conversations.saveStart(turn);
      } else if (roll < 0.8) {
        // A reply ends (in any order): answered, failed or stopped.
        const turn = running.splice(Math.floor(random() * running.length), 1)[0];
        const status = pick(['complete', 'complete', 'complete', 'error', 'stopped'] as const);
        await conversations.saveEnd(turn, { status, text: status === 'error' ? '' : `Answer to ${turn.question}`, answered: true, executionMs: 5, ttftMs: 1 }, random() < 0.5 ? 2000 : 0);
      } else if (roll < 0.88) {
        await conversations.newChat(pick(visitors).key, { vertical: pick(VERTICALS), jurisdiction: undefined, subJurisdiction: undefined });
      } else if (roll < 0.92) {
        const visitor = pick(visitors);
        await conversations.deleteForVisitor(visitor.key);
        for (let i = running.length - 1; i >= 0; i--) if (running[i].visitorKey === visitor.key) running.splice(i, 1);
      } else {
        await checkpoint();
        compared += 1;
      }
      // Now and then, with nothing running, a new turn's history is compared with the database's.
      if (running.length === 0 && random() < 0.5) {
        await conversations.writer.flush();
        const visitor = pick(visitors);
        const vertical = pick(VERTICALS);
        const expected = trimHistory(
          (await databaseRows(visitor.key, vertical))
            .filter((r) => r.role !== null && r.status !== 'error' && r.status !== 'streaming' && (r.content ?? '').trim() !== '')
            .reverse()
            .map((r) => ({ role: r.role === 'user' ? ('user' as const) : ('assistant' as const), content: r.content ?? '' })),
        );
        const turn = await conversations.openTurn(visitor, { vertical }, { replyId: randomUUID(), requestId: randomUUID(), channel: 'socket', language: 'en', question: `Probe ${step}`, claimedHistory: [] });
        expect(turn.history).toEqual(expected);
        running.push(turn);
        compared += 1;
      }
    }
    for (const turn of running.splice(0)) await conversations.saveEnd(turn, { status: 'complete', text: `Answer to ${turn.question}`, answered: true, executionMs: 5, ttftMs: 1 });
    await checkpoint();
    // The comparisons ran, and the memory held scopes while they did (else this proves nothing).
    expect(compared).toBeGreaterThan(5);
    expect(held).toBeGreaterThan(0);
  });
});
