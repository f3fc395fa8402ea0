/**
 * Handing a conversation to a person: the states and their transitions (audited), two members
 * taking one conversation at once (one 409), the assistant quiet while a person has the
 * conversation (a streaming reply stopped when a person is asked for), members' replies live on
 * the visitor's socket and in their conversation, internal notes never shown to the visitor, and
 * bad inputs refused with a clear 4xx.
 */
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { HandoffClock } from '../src/handoff/handoff-clock';
import { HandoffService } from '../src/handoff/handoff.service';
import type { Role } from '../src/shared/contracts/roles';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { startMockLlmServer } from './support/mock-llm-server';
import { connectClient, newVisitorCookie, startTestApp, type ClientSocket, type TestApp } from './support/test-app';

const VERTICAL = 'customer-service';
const PASSWORD = 'correct horse battery staple';

async function member(t: TestApp, email: string, name: string, role: Role): Promise<AdminAgent> {
  const users = t.app.get(AdminUsersService);
  if (!(await users.findByEmail(email))) await users.create({ email, name, password: PASSWORD, role });
  const agent = request.agent(t.url);
  await agent.post('/api/auth/login-password').send({ email, password: PASSWORD }).expect(200);
  return agent;
}

async function ask(t: TestApp, cookie: string, query: string) {
  const res = await request(t.url).post('/interact').set('Cookie', cookie).send({ query, vertical: VERTICAL }).expect(200);
  return res.body.data;
}

async function visitorConversation(t: TestApp, cookie: string) {
  const res = await request(t.url).get('/api/visitor/conversations').set('Cookie', cookie).expect(200);
  return res.body.data.conversations.find((c: { vertical: string }) => c.vertical === VERTICAL);
}

function nextEvent<T>(socket: ClientSocket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    (socket as any).once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

describe('Handoff to a person', () => {
  let t: TestApp;
  let ada: AdminAgent;
  let bob: AdminAgent;
  let viewer: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp();
    ada = await member(t, 'ada@example.com', 'Ada Agent', 'agent');
    bob = await member(t, 'bob@example.com', 'Bob Agent', 'agent');
    viewer = await member(t, 'vic@example.com', 'Vic Viewer', 'viewer');
  });

  afterAll(async () => {
    await t.close();
  });

  it('walks bot -> waiting -> open -> resolved -> bot, with the assistant quiet in between, each step audited', async () => {
    const cookie = await newVisitorCookie(t.url);
    const first = await ask(t, cookie, 'How do I reset my password?');
    expect(first.handoff).toBeUndefined();
    expect((await visitorConversation(t, cookie)).handoff).toMatchObject({ state: 'bot', version: 0 });

    const asked = await request(t.url)
      .post('/api/visitor/conversations/handoff')
      .set('Cookie', cookie)
      .send({ vertical: VERTICAL, email: 'Visitor@Example.com', language: 'fr' })
      .expect(200);
    expect(asked.body.data).toMatchObject({ conversationId: first.conversationId, withinHours: true, nextOpening: null, handoff: { state: 'waiting', version: 1, queuePosition: expect.any(Number) } });
    expect(asked.body.data.handoff.expectedWaitSeconds).toBeGreaterThan(0);
    expect(asked.body.data.message).toMatch(/file d'attente/);
    expect((await visitorConversation(t, cookie)).handoff).toMatchObject({ state: 'waiting', version: 1, queuePosition: asked.body.data.handoff.queuePosition });

    // Asking again changes nothing.
    const again = await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
    expect(again.body.data.handoff).toMatchObject({ state: 'waiting', version: 1 });

    const inbox = (await ada.get('/api/inbox').expect(200)).body.data;
    const item = inbox.waiting.find((i: { conversationId: string }) => i.conversationId === first.conversationId);
    expect(item).toMatchObject({ vertical: VERTICAL, reason: 'visitor', visitorEmail: 'visitor@example.com', handoff: { state: 'waiting' } });
    await viewer.get('/api/inbox').expect(403);

    // While waiting: stored, no reply.
    const held = await ask(t, cookie, 'Are you there?');
    expect(held).toMatchObject({ response: '', handoff: 'waiting', conversationId: first.conversationId });

    const taken = await ada.post(`/api/inbox/${first.conversationId}/take`).send({ version: 1 }).expect(200);
    expect(taken.body.data).toMatchObject({ state: 'open', version: 2, assignee: { name: 'Ada Agent' } });
    const heldOpen = await ask(t, cookie, 'Hello?');
    expect(heldOpen).toMatchObject({ response: '', handoff: 'open' });

    const transcript = (await ada.get(`/api/inbox/${first.conversationId}`).expect(200)).body.data;
    const roles = transcript.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`);
    expect(roles).toContain('user:Are you there?');
    expect(roles).toContain('user:Hello?');
    // No assistant reply after the handoff: the last agent message is the first answer.
    expect(transcript.messages.filter((m: { role: string }) => m.role === 'agent')).toHaveLength(1);
    expect(transcript.messages[1]).toMatchObject({ role: 'agent', sources: expect.any(Array) });

    const socket = await connectClient(t.url, { cookie });
    try {
      const live = nextEvent<{ conversationId: string; message: { content: string; author: { name: string } } }>(socket, 'chat:human');
      const reply = await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'Hi, Ada here. Let me look.' }).expect(201);
      expect(reply.body.data).toMatchObject({ role: 'human', author: { name: 'Ada Agent' } });
      expect(await live).toEqual({ conversationId: first.conversationId, message: expect.objectContaining({ content: 'Hi, Ada here. Let me look.', author: { name: 'Ada Agent' } }) });

      const stored = await request(t.url).get(`/interact/replies/${reply.body.data.id}`).set('Cookie', cookie).expect(200);
      expect(stored.body.data).toMatchObject({ status: 'complete', text: 'Hi, Ada here. Let me look.' });

      const typing = nextEvent<{ typing: boolean; author: { name: string } }>(socket, 'chat:human-typing');
      await ada.post(`/api/inbox/${first.conversationId}/typing`).send({ typing: true }).expect(200);
      expect(await typing).toMatchObject({ typing: true, author: { name: 'Ada Agent' } });
    } finally {
      socket.disconnect();
    }

    await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'Internal: VIP customer', internal: true }).expect(201);
    const seen = await visitorConversation(t, cookie);
    expect(seen.messages.map((m: { content: string }) => m.content)).not.toContain('Internal: VIP customer');
    expect(seen.messages).toContainEqual(expect.objectContaining({ role: 'human', content: 'Hi, Ada here. Let me look.', author: { name: 'Ada Agent' } }));
    expect((await ada.get(`/api/inbox/${first.conversationId}`).expect(200)).body.data.messages).toContainEqual(expect.objectContaining({ role: 'note', content: 'Internal: VIP customer' }));

    const resolved = await bob.post(`/api/inbox/${first.conversationId}/resolve`).send({}).expect(200);
    expect(resolved.body.data).toMatchObject({ state: 'resolved' });
    await bob.post(`/api/inbox/${first.conversationId}/resolve`).send({}).expect(409);
    const late = await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'One more thing' }).expect(409);
    expect(late.body.error.code).toBe('conflict');

    // After resolved: the next visitor message goes back to the assistant.
    const back = await ask(t, cookie, 'How do I reset my password?');
    expect(back.response).not.toBe('');
    expect(back.handoff).toBeUndefined();
    expect((await visitorConversation(t, cookie)).handoff).toMatchObject({ state: 'bot' });

    const owner = await adminAgent(t);
    const audit = (await owner.get('/api/audit').query({ action: 'handoff', target: `conversation:${first.conversationId}` }).expect(200)).body.data.entries;
    const actions = audit.map((e: { action: string }) => e.action).sort();
    expect(actions).toEqual(['handoff.note', 'handoff.reply', 'handoff.request', 'handoff.resolve', 'handoff.return', 'handoff.take'].sort());
    expect(audit.find((e: { action: string }) => e.action === 'handoff.take').actor).toMatchObject({ email: 'ada@example.com' });
  });

  it('two agents taking one conversation at once: one wins, the other gets 409', async () => {
    const cookie = await newVisitorCookie(t.url);
    const first = await ask(t, cookie, 'Where is my order?');
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
    for (let round = 0; round < 3; round++) {
      const version = (await ada.get(`/api/inbox/${first.conversationId}`).expect(200)).body.data.item.handoff.version;
      const [a, b] = await Promise.all([
        ada.post(`/api/inbox/${first.conversationId}/take`).send({ version }),
        bob.post(`/api/inbox/${first.conversationId}/take`).send({ version }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body.error.code).toBe('conflict');
      const winner = a.status === 200 ? 'Ada Agent' : 'Bob Agent';
      expect((await ada.get(`/api/inbox/${first.conversationId}`).expect(200)).body.data.item.handoff.assignee.name).toBe(winner);
      // Back to waiting for the next round.
      await ada.post(`/api/inbox/${first.conversationId}/resolve`).send({}).expect(200);
      await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
    }
    // Without a version, the second taker is told who has it.
    const [a, b] = await Promise.all([ada.post(`/api/inbox/${first.conversationId}/take`).send({}), bob.post(`/api/inbox/${first.conversationId}/take`).send({})]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
  });

  it('stops a reply that is streaming when a person is asked for, and stays quiet afterwards', async () => {
    const slow = await startTestApp({ localResponderDelayMs: 150 });
    try {
      const cookie = await newVisitorCookie(slow.url);
      // A stored conversation first, so the handoff finds it.
      await request(slow.url).post('/interact').set('Cookie', cookie).send({ query: 'hello', vertical: VERTICAL }).expect(200);
      const socket = await connectClient(slow.url, { cookie });
      try {
        const deltas: string[] = [];
        socket.on('chat:delta', (p) => deltas.push(p.text));
        const ended = new Promise<{ kind: string; code?: string; message?: string }>((resolve) => {
          socket.once('chat:done', () => resolve({ kind: 'done' }));
          socket.once('chat:error', (p) => resolve({ kind: 'error', code: p.code, message: p.message }));
        });
        const firstDelta = nextEvent(socket, 'chat:delta', 10_000);
        const ack = await socket.emitWithAck('chat:send', { requestId: 'r-stream', query: 'How do I reset my password and change my email address?', vertical: VERTICAL } as never);
        expect(ack).toMatchObject({ accepted: true });
        await firstDelta;
        const handoff = nextEvent<{ handoff: { state: string } }>(socket, 'chat:handoff');
        await request(slow.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
        const end = await ended;
        expect(end).toMatchObject({ kind: 'error', code: 'cancelled' });
        expect(end.message).toMatch(/person/);
        expect((await handoff).handoff.state).toBe('waiting');
        // What streamed stays, stopped; no complete assistant reply was stored for it.
        const conversation = (await request(slow.url).get('/api/visitor/conversations').set('Cookie', cookie).expect(200)).body.data.conversations[0];
        const last = conversation.messages[conversation.messages.length - 1];
        expect(last).toMatchObject({ role: 'agent', status: 'stopped' });
        expect(deltas.length).toBeGreaterThan(0);
        // A later message gets no reply.
        const quiet = await request(slow.url).post('/interact').set('Cookie', cookie).send({ query: 'Anyone?', vertical: VERTICAL }).expect(200);
        expect(quiet.body.data).toMatchObject({ response: '', handoff: 'waiting' });
      } finally {
        socket.disconnect();
      }
    } finally {
      await slow.close();
    }
  });

  it('hands over when the visitor asks in words, in several languages', async () => {
    for (const [query, language] of [
      ['I want to talk to a real person please', 'en'],
      ['Je voudrais parler à un humain', 'fr'],
      ['Ich möchte mit einem Menschen sprechen', 'de'],
      ['Quiero hablar con una persona', 'es'],
      ['人工客服', 'zh'],
    ] as const) {
      const cookie = await newVisitorCookie(t.url);
      const res = await request(t.url).post('/interact').set('Cookie', cookie).send({ query, vertical: VERTICAL, language }).expect(200);
      expect(res.body.data).toMatchObject({ handoff: 'waiting' });
      expect(res.body.data.response.length).toBeGreaterThan(0);
      const conversation = await visitorConversation(t, cookie);
      expect(conversation.handoff.state).toBe('waiting');
      expect(conversation.messages).toEqual([expect.objectContaining({ role: 'user', content: query })]);
    }
    // A question that only mentions people is answered.
    const cookie = await newVisitorCookie(t.url);
    const plain = await ask(t, cookie, 'How many people can share one account?');
    expect(plain.handoff).toBeUndefined();
  });

  it('hands nobody over for unanswered questions until the rule is set (a fresh install may have no one to answer)', async () => {
    const owner = await adminAgent(t);
    expect((await owner.get('/api/config/handoff').expect(200)).body.data.rules.unansweredInARow).toBe(0);
    const cookie = await newVisitorCookie(t.url);
    for (const question of ['zxqv blorft quantum marmalade?', 'florbish wuggle tangerine spaceship?', 'grumplewhisk ottoman zebra?', 'snorkfizzle lantern pudding?']) {
      const reply = await ask(t, cookie, question);
      expect(reply.answered).toBe(false);
      expect(reply.handoff).toBeUndefined();
    }
  });

  it('hands over after N unanswered questions in a row (a setting)', async () => {
    const owner = await adminAgent(t);
    await owner.put('/api/config/handoff').send({ rules: { unansweredInARow: 2 } }).expect(200);
    try {
      const cookie = await newVisitorCookie(t.url);
      const one = await ask(t, cookie, 'zxqv blorft quantum marmalade?');
      expect(one.answered).toBe(false);
      expect(one.handoff).toBeUndefined();
      const two = await ask(t, cookie, 'florbish wuggle tangerine spaceship?');
      expect(two).toMatchObject({ answered: false, handoff: 'waiting' });
      const item = (await ada.get(`/api/inbox/${two.conversationId}`).expect(200)).body.data.item;
      expect(item).toMatchObject({ reason: 'unanswered', question: 'florbish wuggle tangerine spaceship?' });
    } finally {
      await owner.put('/api/config/handoff').send({ rules: { unansweredInARow: 0 } }).expect(200);
    }
  });

  it('reopens instead of going back to the assistant when the setting says so', async () => {
    const owner = await adminAgent(t);
    await owner.put('/api/config/handoff').send({ rules: { reopenOnMessage: true } }).expect(200);
    try {
      const cookie = await newVisitorCookie(t.url);
      const first = await ask(t, cookie, 'Where is my order?');
      await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
      await ada.post(`/api/inbox/${first.conversationId}/resolve`).send({}).expect(200);
      const next = await ask(t, cookie, 'Still broken');
      expect(next).toMatchObject({ response: '', handoff: 'waiting' });
      expect((await ada.get(`/api/inbox/${first.conversationId}`).expect(200)).body.data.item.reason).toBe('message');
    } finally {
      await owner.put('/api/config/handoff').send({ rules: { reopenOnMessage: false } }).expect(200);
    }
  });

  it('refuses bad inputs with a clear 4xx', async () => {
    const unknown = '0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';
    expect((await ada.post(`/api/inbox/${unknown}/messages`).send({ text: 'hi' }).expect(404)).body.error.code).toBe('not_found');
    await ada.post('/api/inbox/not-an-id/take').send({}).expect(404);
    await ada.post(`/api/inbox/${unknown}/resolve`).send({}).expect(404);
    await ada.get(`/api/inbox/${unknown}`).expect(404);

    const cookie = await newVisitorCookie(t.url);
    const first = await ask(t, cookie, 'Where is my order?');
    // Nobody asked for a person: a reply is refused, a note is accepted.
    await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'hi' }).expect(409);
    await ada.post(`/api/inbox/${first.conversationId}/take`).send({}).expect(409);
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL }).expect(200);
    const long = await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'x'.repeat(4001), internal: true });
    expect([400, 413]).toContain(long.status);
    expect(long.body.error.message).toMatch(/at most 4,000/);
    await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: '   ' }).expect(400);
    await ada.post(`/api/inbox/${first.conversationId}/messages`).send({ text: 'hi', internal: 'yes' }).expect(400);
    await ada.post(`/api/inbox/${first.conversationId}/take`).send({ version: 999 }).expect(409);
    await ada.post(`/api/inbox/${first.conversationId}/take`).send({ assigneeId: 'nobody' }).expect(404);
    // An agent may not change the handoff settings; a viewer may not take.
    await ada.put('/api/config/handoff').send({ rules: { unansweredInARow: 1 } }).expect(403);
    await viewer.post(`/api/inbox/${first.conversationId}/take`).send({}).expect(403);
    // The visitor's request.
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: 'nope' }).expect(400);
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL, email: 'not-an-email' }).expect(400);
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send([1]).expect(400);
    // A legal conversation is kept per known jurisdiction: an unknown one (or sub-region) is refused, as in the chat.
    const unknownPlace = await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: 'legal', jurisdiction: 'ZZ' }).expect(400);
    expect(unknownPlace.body.error.code).toBe('unknown_jurisdiction');
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: 'legal', jurisdiction: 'US', subJurisdiction: 'Atlantis' }).expect(400);
    // Business hours: a date that does not exist, and a misspelt day (dropped, it would close that day), are refused.
    const owner = await adminAgent(t);
    const hours = (schedule: object) => ({ hours: { sales: { timeZone: 'Europe/Paris', weekly: { mon: [{ open: '09:00', close: '17:00' }] }, holidays: [], ...schedule } } });
    for (const [schedule, message] of [
      [{ holidays: ['2026-02-30'] }, 'A holiday must be a date that exists, such as 2026-12-25'],
      [{ holidays: ['2026-13-01'] }, 'A holiday must be a date that exists, such as 2026-12-25'],
      [{ weekly: { mon: [{ open: '09:00', close: '17:00' }], tues: [{ open: '09:00', close: '17:00' }] } }, "The weekly schedule's days are mon, tue, wed, thu, fri, sat, sun (got tues)"],
    ] as const) {
      const refused = await owner.put('/api/config/handoff').send(hours(schedule)).expect(400);
      expect(refused.body.error.message).toBe(message);
    }
    expect((await owner.get('/api/config/handoff').expect(200)).body.data.hours.sales).toBeUndefined();
    // Members on duty: an id nobody has, and a viewer (who cannot answer), are refused; nothing changes.
    const members = (await owner.get('/api/team/members').expect(200)).body.data.members as { id: string; email: string }[];
    const ids = Object.fromEntries(members.map((m) => [m.email, m.id]));
    const before = (await owner.get('/api/config/handoff').expect(200)).body.data.onDuty;
    expect((await owner.put('/api/config/handoff').send({ onDuty: ['no-such-member'] }).expect(400)).body.error.message).toBe('On duty: no member has the id no-such-member');
    expect((await owner.put('/api/config/handoff').send({ onDuty: [ids['ada@example.com'], ids['vic@example.com']] }).expect(400)).body.error.message).toBe('On duty: vic@example.com (viewer) cannot answer conversations');
    expect((await owner.get('/api/config/handoff').expect(200)).body.data.onDuty).toEqual(before);
    expect((await owner.put('/api/config/handoff').send({ onDuty: [ids['ada@example.com']] }).expect(200)).body.data.onDuty).toEqual([ids['ada@example.com']]);
    await owner.put('/api/config/handoff').send({ onDuty: before }).expect(200);
  });

  it('limits a visitor asking for a person 50 times a minute', async () => {
    const cookie = await newVisitorCookie(t.url);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: VERTICAL });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.error.code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(40);
    // One visitor's limit is not another's.
    await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', await newVisitorCookie(t.url)).send({ vertical: VERTICAL }).expect(200);
  });

  it('counts handoffs per vertical, time to the first human reply and to resolve, and the knowledge gaps that led to them', async () => {
    const clock = t.app.get(HandoffClock);
    const start = Date.now() - 3_600_000;
    const owner = await adminAgent(t);
    // Both readings at the same moment, so the window holds the same earlier handoffs.
    clock.now = () => start + 400_000;
    const before = (await owner.get('/api/analytics/handoffs').query({ hours: 24 }).expect(200)).body.data;
    try {
      // Two handoffs in hr: one after an unanswered question, answered 90 s and resolved 300 s after the request.
      const cookie = await newVisitorCookie(t.url);
      const gap = (await request(t.url).post('/interact').set('Cookie', cookie).send({ query: 'zorblat quantum pension wibble?', vertical: 'hr' }).expect(200)).body.data;
      expect(gap.answered).toBe(false);
      clock.now = () => start;
      await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', cookie).send({ vertical: 'hr' }).expect(200);
      clock.now = () => start + 60_000;
      await ada.post(`/api/inbox/${gap.conversationId}/take`).send({}).expect(200);
      clock.now = () => start + 90_000;
      await ada.post(`/api/inbox/${gap.conversationId}/messages`).send({ text: 'Let me check the pension rules.' }).expect(201);
      clock.now = () => start + 120_000;
      await ada.post(`/api/inbox/${gap.conversationId}/messages`).send({ text: 'Second reply does not move the first.' }).expect(201);
      clock.now = () => start + 300_000;
      await ada.post(`/api/inbox/${gap.conversationId}/resolve`).send({}).expect(200);

      const other = await newVisitorCookie(t.url);
      clock.now = () => start + 10_000;
      await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', other).send({ vertical: 'hr', message: 'I need help' }).expect(200);
      clock.now = () => start + 400_000;

      const after = (await owner.get('/api/analytics/handoffs').query({ hours: 24 }).expect(200)).body.data;
      expect(after.total - before.total).toBe(2);
      const hr = after.byVertical.find((v: { vertical: string }) => v.vertical === 'hr');
      expect(hr).toMatchObject({ handoffs: 2, resolved: 1, firstHumanReply: { count: 1, meanSeconds: 90, p50Seconds: 90 }, resolve: { count: 1, meanSeconds: 300 } });
      expect(after.gaps).toContainEqual(expect.objectContaining({ vertical: 'hr', question: 'zorblat quantum pension wibble?', handoffs: 1, gapId: expect.any(String) }));
      expect(after.byReason).toContainEqual(expect.objectContaining({ reason: 'visitor' }));
      // The visitor deletes their conversations: the handoff stays counted, its question goes.
      await request(t.url).delete('/api/visitor/conversations').set('Cookie', cookie).expect(200);
      const forgotten = (await owner.get('/api/analytics/handoffs').query({ hours: 24 }).expect(200)).body.data;
      expect(forgotten.total).toBe(after.total);
      expect(JSON.stringify(forgotten.gaps)).not.toContain('zorblat');
      await viewer.get('/api/analytics/handoffs').expect(200);
      await ada.get('/api/analytics/handoffs').expect(403);
      await owner.get('/api/analytics/handoffs').query({ hours: 5 }).expect(400);
    } finally {
      clock.now = () => Date.now();
    }
  });

  it("hands over when the LLM agent calls the request_human tool, and the LLM is not called again while a person has it", async () => {
    const mock = await startMockLlmServer({ tokens: 4 });
    const llm = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    try {
      const cookie = await newVisitorCookie(llm.url);
      const plain = (await request(llm.url).post('/interact').set('Cookie', cookie).send({ query: 'How do I reset my password?', vertical: VERTICAL }).expect(200)).body.data;
      expect(plain.handoff).toBeUndefined();
      expect((mock.requests[mock.requests.length - 1].body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name)).toEqual(['request_human']);

      const called = (await request(llm.url).post('/interact').set('Cookie', cookie).send({ query: 'This is urgent [mock:tool=request_human]', vertical: VERTICAL }).expect(200)).body.data;
      expect(called).toMatchObject({ handoff: 'waiting', conversationId: plain.conversationId });
      expect(called.response).toBe('tok0 tok1 tok2 tok3');
      const member = await adminAgent(llm);
      const item = (await member.get(`/api/inbox/${plain.conversationId}`).expect(200)).body.data.item;
      expect(item).toMatchObject({ reason: 'tool', handoff: { state: 'waiting' } });

      const calls = mock.requests.length;
      const quiet = (await request(llm.url).post('/interact').set('Cookie', cookie).send({ query: 'Hello?', vertical: VERTICAL }).expect(200)).body.data;
      expect(quiet).toMatchObject({ response: '', handoff: 'waiting' });
      expect(mock.requests.length).toBe(calls);
    } finally {
      await llm.close();
      await mock.close();
    }
  });

  it('keeps the service the one place state changes: an unknown conversation has no handoff', async () => {
    const info = await t.app.get(HandoffService).infoOf('0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee');
    expect(info).toMatchObject({ state: 'bot', version: 0 });
  });
});
