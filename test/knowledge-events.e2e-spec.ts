/**
 * `knowledge:changed` on the `/admin` namespace: every create, update and delete made through the
 * knowledge API is pushed to the admin consoles that are open (a real socket.io client with the
 * session cookie of a real sign-in), so they can reload their list. Refused writes push nothing.
 */
import { io, Socket } from 'socket.io-client';
import request from 'supertest';
import { SESSION_COOKIE } from '../src/auth/cookies';
import type { AdminServerToClientEvents, KnowledgeChangedPayload } from '../src/shared/contracts/socket';
import { adminAgent, AdminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

type AdminSocket = Socket<AdminServerToClientEvents>;

function makeItem(overrides: Record<string, unknown> = {}) {
  return { title: 'Return policy', content: 'Unused items can be returned within 30 days.', category: 'Policies', vertical: 'customer-service', tags: ['returns'], attachments: [], ...overrides };
}

/** The session cookie the agent's sign-in set, as a Cookie header value. */
async function sessionCookie(t: TestApp): Promise<string> {
  await adminAgent(t); // creates the test admin
  const res = await request(t.url).post('/api/auth/login-password').send({ email: 'test-admin@example.com', password: 'correct horse battery staple' }).expect(200);
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!header) throw new Error('no session cookie');
  return header.split(';')[0];
}

function connectAdmin(t: TestApp, cookie: string): Promise<AdminSocket> {
  return new Promise((resolve, reject) => {
    const socket: AdminSocket = io(`${t.url}/admin`, { transports: ['websocket'], reconnection: false, forceNew: true, extraHeaders: { Cookie: cookie } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

describe('knowledge:changed pushes to admin consoles', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let socket: AdminSocket;
  let received: KnowledgeChangedPayload[];

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
    socket = await connectAdmin(t, await sessionCookie(t));
    received = [];
    socket.on('knowledge:changed', (payload) => received.push(payload));
  });

  afterAll(async () => {
    socket?.close();
    await t?.close();
  });

  beforeEach(() => {
    received.length = 0;
  });

  const next = () =>
    new Promise<KnowledgeChangedPayload>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no knowledge:changed within 3 s')), 3000);
      socket.once('knowledge:changed', (payload) => {
        clearTimeout(timer);
        resolve(payload);
      });
    });

  it('pushes created, updated and deleted with the item id', async () => {
    let pushed = next();
    const created = await admin.post('/api/knowledge').send(makeItem()).expect(201);
    const id = created.body.data.id as string;
    await expect(pushed).resolves.toEqual({ id, action: 'created' });

    pushed = next();
    await admin.put(`/api/knowledge/${id}`).send({ ...created.body.data, title: 'Returns and refunds' }).expect(200);
    await expect(pushed).resolves.toEqual({ id, action: 'updated' });

    pushed = next();
    await admin.delete(`/api/knowledge/${id}`).expect(200);
    await expect(pushed).resolves.toEqual({ id, action: 'deleted' });
    expect(received).toEqual([
      { id, action: 'created' },
      { id, action: 'updated' },
      { id, action: 'deleted' },
    ]);
  });

  it('pushes nothing for refused writes (validation error, unknown id)', async () => {
    await admin.post('/api/knowledge').send(makeItem({ title: '' })).expect(400);
    await admin.put('/api/knowledge/00000000-0000-4000-8000-000000000000').send(makeItem()).expect(404);
    await admin.delete('/api/knowledge/00000000-0000-4000-8000-000000000000').expect(404);
    // A later successful write arrives first, so nothing was pushed for the refused ones.
    const pushed = next();
    const created = await admin.post('/api/knowledge').send(makeItem({ title: 'Store hours' })).expect(201);
    await expect(pushed).resolves.toEqual({ id: created.body.data.id, action: 'created' });
    expect(received).toEqual([{ id: created.body.data.id, action: 'created' }]);
  });
});
