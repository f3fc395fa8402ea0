/**
 * Retention: the daily purge job deletes conversations whose last message is older than
 * the retention setting, and nothing newer. The conversations clock is controlled: conversations
 * are written "days ago", and the purge runs "today".
 */
import request from 'supertest';
import { PURGE_JOB } from '../src/conversations/conversation-retention.service';
import { ConversationsClock } from '../src/conversations/conversations-clock';
import { portableSql } from '../src/database/sql';
import { JOB_QUEUE, type JobQueue } from '../src/jobs/job-queue';
import { adminAgent } from './support/admin-session';
import { chatOverSocket, connectClient, eventually, newVisitorCookie, startTestApp, TestApp } from './support/test-app';

const DAY = 86_400_000;

describe('conversation retention', () => {
  let t: TestApp;
  let now: number;

  beforeAll(async () => {
    t = await startTestApp();
    const clock = t.app.get(ConversationsClock);
    now = Date.UTC(2030, 0, 15, 12);
    let at = now;
    clock.now = () => at;
    (t as TestApp & { setClock: (ms: number) => void }).setClock = (ms) => (at = ms);
  });

  afterAll(async () => {
    await t?.close();
  });

  const setClock = (ms: number) => (t as TestApp & { setClock: (ms: number) => void }).setClock(ms);

  async function conversationAt(when: number, vertical: 'customer-service' | 'hr' | 'sales' | 'legal', cookie: string): Promise<string> {
    setClock(when);
    const socket = await connectClient(t.url, { cookie });
    try {
      const result = await chatOverSocket(socket, { vertical, query: 'How do I reset my password?', ...(vertical === 'legal' ? { jurisdiction: 'JP' } : {}) });
      const id = result.done!.conversationId!;
      // Stored (with this time) before the clock moves on.
      await eventually(async () => {
        const rows: { status: string }[] = await t.dataSource.query(portableSql(t.dataSource, 'SELECT status FROM conversation_messages WHERE id = $1'), [result.done!.replyId]);
        return rows[0]?.status === 'complete';
      }, 5000, 'the stored reply');
      return id;
    } finally {
      socket.close();
    }
  }

  async function remaining(): Promise<string[]> {
    const rows: { id: string }[] = await t.dataSource.query('SELECT id FROM conversations');
    return rows.map((r) => r.id).sort();
  }

  /** The daily job, run now through the job port (in process, or BullMQ with REDIS_URL). */
  async function runPurgeJob(): Promise<void> {
    await t.app.get<JobQueue>(JOB_QUEUE).enqueue(PURGE_JOB, {});
  }

  it('deletes conversations past the retention period (default 90 days) and nothing newer; a shorter setting applies at the next run', async () => {
    const cookie = await newVisitorCookie(t.url);
    const old = await conversationAt(now - 91 * DAY, 'customer-service', cookie);
    const edge = await conversationAt(now - 90 * DAY + 60_000, 'hr', cookie);
    const recent = await conversationAt(now - 10 * DAY, 'sales', cookie);
    const today = await conversationAt(now, 'legal', cookie);
    const messages = async (id: string) => Number((await t.dataSource.query(portableSql(t.dataSource, 'SELECT COUNT(*) AS n FROM conversation_messages WHERE conversation_id = $1'), [id]))[0].n);
    expect(await messages(old)).toBe(2);

    setClock(now);
    await runPurgeJob();
    await eventually(async () => !(await remaining()).includes(old), 5000, 'the old conversation to go');
    expect(await remaining()).toEqual([edge, recent, today].sort());
    expect(await messages(old)).toBe(0);

    // The setting: 7 days now.
    const admin = await adminAgent(t);
    await admin.put('/api/config/global').send({ conversationRetentionDays: 7 }).expect(200);
    await runPurgeJob();
    await eventually(async () => (await remaining()).length === 1, 5000, 'the purge with 7 days');
    expect(await remaining()).toEqual([today]);

    // The visitor's page shows what is left.
    const res = await request(t.url).get('/api/visitor/conversations').set('Cookie', cookie).expect(200);
    expect(res.body.data.conversations.map((c: { id: string }) => c.id)).toEqual([today]);
  });

  it('refuses a retention setting outside 1 to 3650 days', async () => {
    const admin = await adminAgent(t);
    const res = await admin.put('/api/config/global').send({ conversationRetentionDays: 0 }).expect(400);
    expect(res.body.error.message).toBe('Conversation retention (days) must be a whole number from 1 to 3,650');
  });
});
