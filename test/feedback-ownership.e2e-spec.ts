/**
 * Who may rate a reply: only the visitor it was given to (the visitor cookie of its
 * conversation), whether the reply came over POST /interact or the socket. Anyone else who
 * learns a reply id gets a 404 (no cookie: 403), the visitor's vote stays, and no knowledge gap
 * is opened by their thumbs-down. The real app (offline knowledge responder, sample knowledge).
 */
import request from 'supertest';
import type { AgentPerformanceRow } from '../src/shared/contracts/analytics';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { GapPage, KnowledgeGap, VisitorConversations } from '../src/shared/contracts/conversations';
import { KnowledgeGapsService } from '../src/conversations/knowledge-gaps.service';
import { AdminAgent, adminAgent } from './support/admin-session';
import { chatOverSocket, connectClient, newVisitorCookie, startTestApp, TestApp } from './support/test-app';

describe('POST /api/feedback: only the visitor the reply was given to may vote', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const vote = (replyId: string, v: 'up' | 'down' | null, cookie?: string) => {
    const req = request(t.url).post('/api/feedback').set('X-Forwarded-For', '203.0.113.9');
    return (cookie ? req.set('Cookie', cookie) : req).send({ replyId, vote: v });
  };

  async function gaps(): Promise<KnowledgeGap[]> {
    await t.app.get(KnowledgeGapsService).settled();
    const res = await admin.get('/api/knowledge-gaps').query({ status: 'all' }).expect(200);
    return (res.body.data as GapPage).items;
  }

  async function storedVote(cookie: string, replyId: string): Promise<string | null | undefined> {
    const res = await request(t.url).get('/api/visitor/conversations').set('Cookie', cookie).expect(200);
    const messages = (res.body.data as VisitorConversations).conversations.flatMap((c) => c.messages);
    return messages.find((m) => m.id === replyId)?.feedback;
  }

  it('over /interact: another visitor gets 404, a caller without the cookie 403, and neither changes the vote or opens a gap', async () => {
    const alice = await newVisitorCookie(t.url);
    const mallory = await newVisitorCookie(t.url);
    const res = await request(t.url).post('/interact').set('Cookie', alice).send({ vertical: 'customer-service', query: 'How long does shipping take?' }).expect(200);
    const reply = res.body.data as ReplyData;
    expect(reply.answered).toBe(true);
    await vote(reply.replyId!, 'up', alice).expect(200);

    const other = await vote(reply.replyId!, 'down', mallory).expect(404);
    expect(other.body.error).toMatchObject({ code: 'not_found', message: 'That reply was not found.' });
    const anonymous = await vote(reply.replyId!, 'down').expect(403);
    expect(anonymous.body.error.code).toBe('forbidden');
    expect(anonymous.body.error.message).toMatch(/only the visitor who got this reply/i);
    await vote(reply.replyId!, null, mallory).expect(404);

    expect(await storedVote(alice, reply.replyId!)).toBe('up');
    expect((await gaps()).filter((g) => /shipping take/i.test(g.question))).toEqual([]);
    const perf = await admin.get('/api/analytics/agents').expect(200);
    expect((perf.body.data as AgentPerformanceRow[]).map((row) => row.feedback)).toEqual([{ up: 1, down: 0 }]);

    // The visitor's own thumbs-down still counts, and opens the gap.
    await vote(reply.replyId!, 'down', alice).expect(200);
    expect(await storedVote(alice, reply.replyId!)).toBe('down');
    expect((await gaps()).find((g) => /shipping take/i.test(g.question))?.reasons.thumbsDown).toBe(1);
  });

  it('over the socket: the reply is the visitor of the handshake cookie, nobody else', async () => {
    const bob = await newVisitorCookie(t.url);
    const mallory = await newVisitorCookie(t.url);
    const socket = await connectClient(t.url, { cookie: bob });
    try {
      const result = await chatOverSocket(socket, { vertical: 'customer-service', query: 'How do I reset my password?' });
      const replyId = result.done!.replyId!;
      await vote(replyId, 'down', mallory).expect(404);
      await vote(replyId, 'down').expect(403);
      expect(await storedVote(bob, replyId)).toBeNull();
      expect((await gaps()).filter((g) => /reset my password/i.test(g.question))).toEqual([]);
      await vote(replyId, 'up', bob).expect(200);
      expect(await storedVote(bob, replyId)).toBe('up');
    } finally {
      socket.disconnect();
    }
  });
});
