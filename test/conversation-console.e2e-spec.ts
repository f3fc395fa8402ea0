/**
 * The console's side of kept conversations: the Conversations list (filters, full-text
 * search, pages), transcripts and their export, knowledge gaps, the vote kept on the message, and
 * the conversation figures of Analytics. The real app with the offline knowledge responder on the
 * sample knowledge; SQLite, or Postgres with DATABASE_URL (the search then runs on its tsvector
 * index instead of FTS5).
 */
import request from 'supertest';
import type { ReplyData } from '../src/shared/contracts/chat';
import type { ConversationExport, ConversationPage, ConversationTranscript, GapPage, KnowledgeGap } from '../src/shared/contracts/conversations';
import { AdminAgent, adminAgent } from './support/admin-session';
import { eventually, newVisitorCookie, startTestApp, TestApp } from './support/test-app';

describe('conversations in the console', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let alice: string;
  let bob: string;
  let returnsReply: ReplyData;
  let vacationReply: ReplyData;

  async function ask(cookie: string, vertical: string, query: string, preferredLanguage = 'English'): Promise<ReplyData> {
    const res = await request(t.url).post('/interact').set('Cookie', cookie).send({ vertical, query, preferredLanguage }).expect(200);
    return res.body.data as ReplyData;
  }

  async function page(query: Record<string, string | number> = {}): Promise<ConversationPage> {
    const res = await admin.get('/api/conversations').query(query).expect(200);
    return res.body.data as ConversationPage;
  }

  async function gaps(query: Record<string, string> = {}): Promise<KnowledgeGap[]> {
    const res = await admin.get('/api/knowledge-gaps').query(query).expect(200);
    return (res.body.data as GapPage).items;
  }

  const gapOf = async (question: RegExp) => (await gaps({ status: 'all' })).find((g) => question.test(g.question) || g.examples.some((e) => question.test(e)));

  beforeAll(async () => {
    t = await startTestApp();
    admin = await adminAgent(t);
    alice = await newVisitorCookie(t.url);
    bob = await newVisitorCookie(t.url);
    returnsReply = await ask(alice, 'customer-service', "What's your return policy?");
    vacationReply = await ask(alice, 'customer-service', 'How many vacation days do I get?');
    await ask(bob, 'sales', 'How do I handle a price objection?', 'Spanish');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists conversations newest first, with their counters, and only to an admin', async () => {
    await request(t.url).get('/api/conversations').expect(401);
    await request(t.url).get('/api/knowledge-gaps').expect(401);
    const { items, total } = await page();
    expect(total).toBe(2);
    expect(items.map((c) => c.vertical)).toEqual(['sales', 'customer-service']);
    const cs = items[1];
    expect(cs).toMatchObject({ title: "What's your return policy?", messageCount: 4, unanswered: 1, open: true, channel: 'rest', match: null });
    expect(items[0].language).toBe('es');
  });

  it('keeps a visitor vote on the reply and in the conversation, and filters by it', async () => {
    await request(t.url).post('/api/feedback').set('Cookie', alice).send({ replyId: returnsReply.replyId, vote: 'down' }).expect(200);
    expect((await page({ feedback: 'down' })).items.map((c) => c.vertical)).toEqual(['customer-service']);
    expect((await page({ feedback: 'none' })).items.map((c) => c.vertical)).toEqual(['sales']);
    // Changed to up: the counters follow.
    await request(t.url).post('/api/feedback').set('Cookie', alice).send({ replyId: returnsReply.replyId, vote: 'up' }).expect(200);
    expect((await page({ feedback: 'down' })).total).toBe(0);
    expect((await page({ feedback: 'up' })).items[0].feedback).toEqual({ up: 1, down: 0 });
    await request(t.url).post('/api/feedback').set('Cookie', alice).send({ replyId: returnsReply.replyId, vote: 'down' }).expect(200);
    // The chat page reads the vote back after a reload.
    const mine = await request(t.url).get('/api/visitor/conversations').set('Cookie', alice).expect(200);
    const reply = mine.body.data.conversations[0].messages.find((m: { id: string }) => m.id === returnsReply.replyId);
    expect(reply.feedback).toBe('down');
  });

  it('filters by vertical, language, answered or not and date', async () => {
    expect((await page({ vertical: 'sales' })).items.map((c) => c.vertical)).toEqual(['sales']);
    expect((await page({ language: 'es' })).items.map((c) => c.vertical)).toEqual(['sales']);
    expect((await page({ answered: 'no' })).items.map((c) => c.vertical)).toEqual(['customer-service']);
    expect((await page({ answered: 'yes' })).items.map((c) => c.vertical)).toEqual(['sales']);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await page({ from: today, to: today })).total).toBe(2);
    expect((await page({ to: yesterday })).total).toBe(0);
    expect((await page({ from: new Date(Date.now() + 60_000).toISOString() })).total).toBe(0);
  });

  it('searches the messages: every word, each also as the start of a longer one, with the matching message', async () => {
    const found = await page({ search: 'vacation' });
    expect(found.items.map((c) => c.vertical)).toEqual(['customer-service']);
    expect(found.items[0].match).toContain('vacation');
    expect((await page({ search: 'VACAT days' })).total).toBe(1);
    expect((await page({ search: 'vacation objection' })).total).toBe(0);
    expect((await page({ search: 'objection', vertical: 'customer-service' })).total).toBe(0);
    expect((await page({ search: 'objection' })).items.map((c) => c.vertical)).toEqual(['sales']);
    // Words of the replies are searched too.
    expect((await page({ search: returnsReply.response.split(/\W+/).find((w) => w.length > 6)! })).total).toBeGreaterThanOrEqual(1);
    // Operators of the index are plain text here.
    expect((await page({ search: '"vacation*" (' })).total).toBe(1);
    expect((await page({ search: 'vacation OR objection' })).total).toBe(0);
    expect((await page({ search: '?!' })).total).toBe(0);
  });

  it('pages: 12 more conversations over pages of 10, no duplicates, none missing', async () => {
    for (let i = 0; i < 12; i++) await ask(await newVisitorCookie(t.url), 'hr', `Question number ${i} about parking permits`);
    const first = await page({ pageSize: 10 });
    const second = await page({ pageSize: 10, page: 2 });
    expect(first.total).toBe(14);
    expect(first.items).toHaveLength(10);
    expect(second.items).toHaveLength(4);
    const ids = [...first.items, ...second.items].map((c) => c.id);
    expect(new Set(ids).size).toBe(14);
    const times = [...first.items, ...second.items].map((c) => Date.parse(c.updatedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(first.items[0].title).toBe('Question number 11 about parking permits');
    expect((await page({ pageSize: 10, page: 3 })).items).toEqual([]);
  });

  it('refuses bad filters with a 400 that says what to fix', async () => {
    for (const [query, message] of [
      [{ pageSize: '7' }, /page size must be one of 10, 20, 50, 100/],
      [{ page: '0' }, /page must be a whole number/],
      [{ feedback: 'maybe' }, /feedback must be one of up, down, none/],
      [{ answered: 'perhaps' }, /Answered must be one of yes, no/],
      [{ from: 'yesterday' }, /From must be a date/],
      [{ vertical: 'space' }, /vertical must be one of/],
    ] as const) {
      const res = await admin.get('/api/conversations').query(query).expect(400);
      expect(res.body.error.message).toMatch(message);
    }
    await admin.get('/api/conversations/not-an-id').expect(404);
    await admin.get('/api/conversations/00000000-0000-4000-8000-000000000000').expect(404);
  });

  it('shows a transcript with the sources, confidence, vote and timings of each reply, and exports it as JSON', async () => {
    const cs = (await page({ vertical: 'customer-service' })).items[0];
    const res = await admin.get(`/api/conversations/${cs.id}`).expect(200);
    const transcript = res.body.data as ConversationTranscript;
    expect(transcript.messages.map((m) => m.role)).toEqual(['user', 'agent', 'user', 'agent']);
    const [question, answer, , notFound] = transcript.messages;
    expect(question.content).toBe("What's your return policy?");
    expect(answer).toMatchObject({ id: returnsReply.replyId, status: 'complete', answered: true, feedback: 'down', content: returnsReply.response, confidence: returnsReply.confidence });
    expect(answer.sources.map((s) => s.title)).toEqual(returnsReply.sources.map((s) => s.title));
    expect(answer.sources[0].title).toBe('Returns and refunds');
    expect(answer.executionTime).toEqual(expect.any(Number));
    expect(notFound).toMatchObject({ id: vacationReply.replyId, answered: false, sources: [] });

    const file = await admin.get(`/api/conversations/${cs.id}/export`).expect(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="conversation-${cs.id}.json"`);
    const exported = file.body as ConversationExport;
    expect(exported.format).toBe('support-assistant-conversation');
    expect(exported.conversation).toEqual(transcript);
  });

  it('groups failed questions into knowledge gaps: not found and thumbs-down, rewordings together, with counts', async () => {
    const vacation = await eventually(() => gapOf(/vacation/i), 5000, 'the vacation gap');
    expect(vacation).toMatchObject({ vertical: 'customer-service', count: 1, reasons: { notFound: 1, lowConfidence: 0, thumbsDown: 0 }, status: 'open' });
    const returns = await eventually(() => gapOf(/return policy/i), 5000, 'the thumbs-down gap');
    expect(returns.reasons.thumbsDown).toBe(1);
    // A reworded question joins the group.
    const again = await ask(alice, 'customer-service', 'Vacation days: how many do I get per year?');
    expect(again.answered).toBe(false);
    const grouped = await eventually(async () => {
      const g = await gapOf(/vacation/i);
      return g && g.count === 2 ? g : undefined;
    }, 5000, 'the rewording to join the group');
    expect(grouped.id).toBe(vacation.id);
    expect(grouped.question).toBe('Vacation days: how many do I get per year?');
    expect(grouped.examples).toEqual(['How many vacation days do I get?']);
    expect(Date.parse(grouped.lastAskedAt)).toBeGreaterThanOrEqual(Date.parse(vacation.lastAskedAt));
    // A thumbs-down on a reply already counted adds a reason, not a question.
    await request(t.url).post('/api/feedback').set('Cookie', alice).send({ replyId: again.replyId, vote: 'down' }).expect(200);
    const voted = await eventually(async () => {
      const g = await gapOf(/vacation/i);
      return g && g.reasons.thumbsDown === 1 ? g : undefined;
    }, 5000, 'the thumbs-down reason');
    expect(voted.count).toBe(2);
    // Other verticals' gaps are apart, and the list filters by vertical and status.
    expect((await gaps({ vertical: 'sales' })).length).toBe(0);
    expect((await gaps()).length).toBeGreaterThanOrEqual(2);
  });

  it('a resolved gap stays resolved while the question is answered, and opens again when new knowledge fails it', async () => {
    const gap = (await gapOf(/vacation/i))!;
    await admin.put(`/api/knowledge-gaps/${gap.id}`).send({ status: 'nope' }).expect(400);
    await admin.put('/api/knowledge-gaps/00000000-0000-4000-8000-000000000000').send({ status: 'resolved' }).expect(404);
    const resolved = (await admin.put(`/api/knowledge-gaps/${gap.id}`).send({ status: 'resolved' }).expect(200)).body.data as KnowledgeGap;
    expect(resolved.status).toBe('resolved');
    expect(resolved.resolvedAt).not.toBeNull();
    expect((await gaps()).map((g) => g.id)).not.toContain(gap.id);
    expect((await gaps({ status: 'resolved' })).map((g) => g.id)).toEqual([gap.id]);

    // Knowledge added in the vertical: the question is answered, the gap stays resolved.
    await admin
      .post('/api/knowledge')
      .send({ title: 'Vacation days for customers', content: 'Customers ask how many vacation days our staff get: our support team takes its vacation days in rotation, so support is open every day.', category: 'FAQ', vertical: 'customer-service', tags: [] })
      .expect(201);
    const answered = await eventually(async () => {
      const data = await ask(alice, 'customer-service', 'How many vacation days do I get?');
      return data.answered ? data : undefined;
    }, 5000, 'the question to be answered');
    expect(answered.sources[0].title).toBe('Vacation days for customers');
    await t.app.get((await import('../src/conversations/knowledge-gaps.service')).KnowledgeGapsService).settled();
    expect((await gapOf(/vacation/i))!).toMatchObject({ status: 'resolved', count: 2 });

    // The knowledge fails the same question again (a thumbs-down): the gap opens again.
    await request(t.url).post('/api/feedback').set('Cookie', alice).send({ replyId: answered.replyId, vote: 'down' }).expect(200);
    const reopened = await eventually(async () => {
      const g = await gapOf(/vacation/i);
      return g && g.status === 'open' ? g : undefined;
    }, 5000, 'the gap to open again');
    expect(reopened).toMatchObject({ id: gap.id, count: 3 });
    expect(reopened.reopenedAt).not.toBeNull();
  });

  it('a thumbs-down taken back leaves its gap; a visitor deleting their conversations takes their wording out of the gaps', async () => {
    const gapsService = t.app.get((await import('../src/conversations/knowledge-gaps.service')).KnowledgeGapsService);
    const carol = await newVisitorCookie(t.url);
    // Answered (so only the vote makes it a gap), then voted down and taken back.
    const shipping = await ask(carol, 'customer-service', 'How long does shipping take?');
    expect(shipping.answered).toBe(true);
    await request(t.url).post('/api/feedback').set('Cookie', carol).send({ replyId: shipping.replyId, vote: 'down' }).expect(200);
    const down = await eventually(() => gapOf(/shipping take/i), 5000, 'the thumbs-down gap');
    expect(down.reasons.thumbsDown).toBe(1);
    await request(t.url).post('/api/feedback').set('Cookie', carol).send({ replyId: shipping.replyId, vote: 'up' }).expect(200);
    await gapsService.settled();
    expect(await gapOf(/shipping take/i)).toBeUndefined();

    // Not found and voted down, then taken back: still a gap (not found), no longer a thumbs-down.
    const unknown = await ask(carol, 'customer-service', 'Do you sell replacement quokka saddles?');
    expect(unknown.answered).toBe(false);
    await request(t.url).post('/api/feedback').set('Cookie', carol).send({ replyId: unknown.replyId, vote: 'down' }).expect(200);
    await eventually(async () => (await gapOf(/quokka saddles/i))?.reasons.thumbsDown === 1, 5000, 'the second reason');
    await request(t.url).post('/api/feedback').set('Cookie', carol).send({ replyId: unknown.replyId, vote: null }).expect(200);
    await gapsService.settled();
    expect(await gapOf(/quokka saddles/i)).toMatchObject({ count: 1, reasons: { notFound: 1, thumbsDown: 0 } });

    // Dave asks the same thing; Carol deletes her conversations: her wording leaves, Dave's stays.
    const dave = await newVisitorCookie(t.url);
    await ask(dave, 'customer-service', 'Are replacement quokka saddles for sale?');
    const both = await eventually(async () => {
      const g = await gapOf(/quokka saddles/i);
      return g && g.count === 2 ? g : undefined;
    }, 5000, 'both questions in one gap');
    expect([both.question, ...both.examples].sort()).toEqual(['Are replacement quokka saddles for sale?', 'Do you sell replacement quokka saddles?']);
    await request(t.url).delete('/api/visitor/conversations').set('Cookie', carol).expect(200);
    const after = (await gapOf(/quokka saddles/i))!;
    expect(after.id).toBe(both.id);
    expect([after.question, ...after.examples]).toEqual(['Are replacement quokka saddles for sale?']);
    // Dave deletes his too: nothing of the group is left to show, so it goes.
    await request(t.url).delete('/api/visitor/conversations').set('Cookie', dave).expect(200);
    expect(await gapOf(/quokka saddles/i)).toBeUndefined();
  });

  it('questions recorded at once (as by several servers) make one group, not one each', async () => {
    const gapsService = t.app.get((await import('../src/conversations/knowledge-gaps.service')).KnowledgeGapsService);
    const { newUsageEventId } = await import('../src/analytics/usage-event-id');
    // record() directly: on Postgres each runs in its own transaction at once, as on different servers.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        gapsService.record({ replyId: newUsageEventId(), vertical: 'sales', question: `Do you ship pallets of zebra ink to Iceland? (${i})`, askedAt: Date.now(), reason: 'notFound' }),
      ),
    );
    const groups = (await gaps({ status: 'all', vertical: 'sales' })).filter((g) => /zebra ink/.test(g.question));
    expect(groups.map((g) => g.count)).toEqual([8]);
  });

  it('Analytics counts the conversations of the window and their messages', async () => {
    const res = await admin.get('/api/analytics/system?hours=1').expect(200);
    const system = res.body.data as { conversations: number; messagesPerConversation: number | null };
    expect(system.conversations).toBe(14);
    // Alice's customer-service conversation: 4 questions and replies so far (8 messages); 13 others of 2.
    expect(system.messagesPerConversation).toBeCloseTo((8 + 13 * 2) / 14, 6);
  });
});
