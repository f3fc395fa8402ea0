import { HistoryMirror, type HistoryRow } from './history-mirror';

const row = (id: string, role: 'user' | 'agent', content: string, status = 'complete', cid = 'c1'): HistoryRow => ({ cid, id, role, content, status });
const turn = (n: number, conversationId = 'c1') => ({ conversationId, userMessageId: `q${n}`, replyId: `a${n}`, question: `question ${n}` });
const answered = (n: number) => ({ status: 'complete', text: `answer ${n}` });

/** A read whose result the test hands over when it wants. */
function pendingRead(): { read: () => Promise<HistoryRow[]>; answer: (rows: HistoryRow[]) => void } {
  let answer!: (rows: HistoryRow[]) => void;
  const promise = new Promise<HistoryRow[]>((resolve) => (answer = resolve));
  return { read: () => promise, answer };
}

describe('HistoryMirror', () => {
  it('holds what a read returned, then each turn stored since in commit order (newest first, at most the read limit)', async () => {
    const mirror = new HistoryMirror(4);
    expect(mirror.get('s')).toBeUndefined();
    await mirror.read('s', 'v', async () => [row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);
    expect(mirror.get('s')).toEqual([row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);

    mirror.started('s', turn(2));
    expect(mirror.get('s')?.slice(0, 2)).toEqual([row('a2', 'agent', '', 'streaming'), row('q2', 'user', 'question 2')]);
    mirror.ended('s', 'a2', answered(2));
    mirror.started('s', turn(3));
    mirror.ended('s', 'a3', { status: 'error', text: 'partial' });
    expect(mirror.get('s')).toEqual([row('a3', 'agent', 'partial', 'error'), row('q3', 'user', 'question 3'), row('a2', 'agent', 'answer 2'), row('q2', 'user', 'question 2')]);
  });

  it('starts a conversation the read found empty (a new one, or one with no message yet)', async () => {
    const mirror = new HistoryMirror(10);
    await mirror.read('new', 'v', async () => []);
    mirror.started('new', turn(1, 'c9'));
    mirror.ended('new', 'a1', answered(1));
    expect(mirror.get('new')).toEqual([row('a1', 'agent', 'answer 1', 'complete', 'c9'), row('q1', 'user', 'question 1', 'complete', 'c9')]);

    await mirror.read('opened', 'v', async () => [{ cid: 'c5', id: null, role: null, content: null, status: null }]);
    mirror.started('opened', turn(1, 'c5'));
    expect(mirror.get('opened')?.map((r) => r.id)).toEqual(['a1', 'q1']);
  });

  it('completes in place a reply the read saw streaming, and does not add a start it saw twice', async () => {
    const mirror = new HistoryMirror(10);
    await mirror.read('s', 'v', async () => [row('a2', 'agent', '', 'streaming'), row('q2', 'user', 'question 2'), row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);
    mirror.started('s', turn(2));
    mirror.ended('s', 'a2', answered(2));
    expect(mirror.get('s')).toEqual([row('a2', 'agent', 'answer 2'), row('q2', 'user', 'question 2'), row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);
  });

  it('keeps nothing of a read during which a write of the scope was stored (the read may have missed it)', async () => {
    const mirror = new HistoryMirror(10);
    const first = pendingRead();
    const reading = mirror.read('s', 'v', first.read);
    mirror.started('s', turn(1));
    first.answer([]);
    await expect(reading).resolves.toEqual([]);
    expect(mirror.get('s')).toBeUndefined();

    const ended = pendingRead();
    const again = mirror.read('s', 'v', ended.read);
    mirror.ended('s', 'a1', answered(1));
    ended.answer([row('a1', 'agent', '', 'streaming'), row('q1', 'user', 'question 1')]);
    await again;
    expect(mirror.get('s')).toBeUndefined();

    // A write of another scope does not matter.
    const other = pendingRead();
    const third = mirror.read('s', 'v', other.read);
    mirror.started('elsewhere', turn(5));
    other.answer([row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);
    await third;
    expect(mirror.get('s')?.map((r) => r.id)).toEqual(['a1', 'q1']);
  });

  it('forgets a scope when it cannot tell what the database holds', async () => {
    const mirror = new HistoryMirror(2);
    const fill = (scope: string, visitor = 'v') => mirror.read(scope, visitor, async () => [row('a1', 'agent', 'answer 1'), row('q1', 'user', 'question 1')]);

    // A turn stored in another conversation (the scope's was closed meanwhile).
    await fill('s');
    mirror.started('s', turn(2, 'c2'));
    expect(mirror.get('s')).toBeUndefined();

    // The end of a reply whose row is not held (beyond the limit).
    await fill('s');
    mirror.started('s', turn(2));
    mirror.started('s', turn(3));
    mirror.ended('s', 'a2', answered(2));
    expect(mirror.get('s')).toBeUndefined();

    await fill('s');
    mirror.forget('s');
    expect(mirror.get('s')).toBeUndefined();

    await fill('a', 'visitor-1');
    await fill('b', 'visitor-1');
    await fill('c', 'visitor-2');
    mirror.forgetVisitor('visitor-1');
    expect([mirror.get('a'), mirror.get('b')]).toEqual([undefined, undefined]);
    expect(mirror.get('c')).toBeDefined();

    mirror.clear();
    expect(mirror.size).toBe(0);
  });

  it('a visitor delete or a purge during a read keeps nothing of it', async () => {
    const mirror = new HistoryMirror(10);
    const deleted = pendingRead();
    const reading = mirror.read('s', 'v', deleted.read);
    mirror.forgetVisitor('v');
    deleted.answer([row('a1', 'agent', 'answer 1')]);
    await reading;
    expect(mirror.get('s')).toBeUndefined();

    const purged = pendingRead();
    const again = mirror.read('s', 'v', purged.read);
    mirror.clear();
    purged.answer([row('a1', 'agent', 'answer 1')]);
    await again;
    expect(mirror.get('s')).toBeUndefined();
  });

  it('keeps at most so many scopes and so much text, the least recently used going first', async () => {
    const mirror = new HistoryMirror(10, { maxEntries: 3, maxBytes: 10_000 });
    for (const scope of ['a', 'b', 'c']) await mirror.read(scope, 'v', async () => [row('a1', 'agent', 'short')]);
    mirror.get('a');
    await mirror.read('d', 'v', async () => [row('a1', 'agent', 'short')]);
    expect(['a', 'b', 'c', 'd'].map((scope) => mirror.get(scope) !== undefined)).toEqual([true, false, true, true]);

    // A long reply pushes the others out to stay under the bytes bound.
    mirror.started('d', turn(2));
    mirror.ended('d', 'a2', { status: 'complete', text: 'x'.repeat(4_000) });
    expect(mirror.heldBytes).toBeLessThanOrEqual(10_000);
    mirror.started('c', turn(2));
    mirror.ended('c', 'a2', { status: 'complete', text: 'y'.repeat(4_000) });
    expect(mirror.heldBytes).toBeLessThanOrEqual(10_000);
    expect(mirror.get('c')?.[0].content).toHaveLength(4_000);
    expect(mirror.size).toBeLessThan(3);
  });

  it('reads again after ten minutes, whatever happened', async () => {
    let now = 0;
    const mirror = new HistoryMirror(10, { now: () => now });
    await mirror.read('s', 'v', async () => []);
    now = 10 * 60_000;
    expect(mirror.get('s')).toEqual([]);
    now += 1;
    expect(mirror.get('s')).toBeUndefined();
  });
});
