/**
 * Embeddable widgets through the real API: the console's CRUD (owner/admin only, origins checked
 * with clear messages), the public settings read cross-origin by the loader, the iframe page's
 * frame-ancestors, the origin lock on the socket and /interact, per-widget limits and the
 * requests per widget, visitor tokens and identity verification (HMAC and JWT).
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SignJWT } from 'jose';
import { io } from 'socket.io-client';
import request from 'supertest';
import { adminAgent, AdminAgent } from './support/admin-session';
import { chatOverSocket, ClientSocket, startTestApp, TestApp } from './support/test-app';
import { WIDGET_HOST, widgetSettings } from './support/widgets';

const HOST = WIDGET_HOST;
const OTHER = 'http://127.0.0.1:4200';

function widgetSocket(url: string, auth: Record<string, unknown>, origin?: string): Promise<ClientSocket> {
  return new Promise((resolve, reject) => {
    const socket: ClientSocket = io(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth,
      query: { widget: String(auth.widget ?? '') },
      ...(origin ? { extraHeaders: { origin } } : {}),
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
}

describe('Widgets', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let clientDir: string;

  const create = async (overrides: Record<string, unknown> = {}) =>
    (await admin.post('/api/widgets').send(widgetSettings(overrides)).expect(201)).body.data as { widget: any; secret: string };

  beforeAll(async () => {
    clientDir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'sa-widget-client-'));
    fs.mkdirSync(path.join(clientDir, 'widget-frame'));
    fs.writeFileSync(path.join(clientDir, 'widget-frame', 'widget.html'), '<!doctype html><title>widget</title><div id="root"></div>');
    t = await startTestApp({ seedSampleKnowledge: true, clientDir });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
    fs.rmSync(clientDir, { recursive: true, force: true });
  });

  it('is made, listed, read, changed and deleted by an admin; the secret is shown once', async () => {
    const { widget, secret } = await create();
    expect(secret).toMatch(/^whs_[A-Za-z0-9_-]{43}$/);
    expect(widget).toMatchObject({ name: 'Help centre', allowedOrigins: [HOST, 'https://*.example.com'], color: '#1e3a8a', messagesPerMinute: null, requireIdentity: false });
    const listed = (await admin.get('/api/widgets').expect(200)).body.data;
    expect(listed.map((w: { id: string }) => w.id)).toContain(widget.id);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(4));
    const [row] = await t.dataSource.query(`SELECT * FROM widgets WHERE id = '${widget.id}'`);
    expect(JSON.stringify(row)).not.toContain(secret.slice(4));
    const changed = (await admin.put(`/api/widgets/${widget.id}`).send(widgetSettings({ name: 'Shop', launcherLabel: 'Questions?', messagesPerMinute: 5 })).expect(200)).body.data;
    expect(changed).toMatchObject({ id: widget.id, name: 'Shop', launcherLabel: 'Questions?', messagesPerMinute: 5 });
    expect((await admin.get(`/api/widgets/${widget.id}`).expect(200)).body.data.name).toBe('Shop');
    const rotated = (await admin.post(`/api/widgets/${widget.id}/secret`).expect(201)).body.data;
    expect(rotated.secret).not.toBe(secret);
    await admin.delete(`/api/widgets/${widget.id}`).expect(200);
    await admin.get(`/api/widgets/${widget.id}`).expect(404);
    await admin.delete(`/api/widgets/${widget.id}`).expect(404);
  });

  it('needs a session: strangers get 401', async () => {
    await request(t.url).get('/api/widgets').expect(401);
    await request(t.url).post('/api/widgets').send(widgetSettings()).expect(401);
  });

  it.each([
    ['javascript:alert(1)', /is not a web origin \(javascript: is not allowed\)/],
    ['*', /would let any site embed the widget/],
    ['https://example.com/help', /has a path or query \(\/help\): an origin is only the scheme, host and port, as in https:\/\/example.com/],
    ['example.com', /is not an origin: write the scheme and host/],
    ['https://*.com', /a wildcard needs a domain under it/],
    ['https://exa mple.com', /is not an origin|host name that is not valid/],
  ])('refuses the allowed origin %s with a clear message', async (origin, message) => {
    const res = await admin.post('/api/widgets').send(widgetSettings({ allowedOrigins: [origin] })).expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.message).toMatch(message);
  });

  it('refuses a default vertical it does not offer, and an unknown vertical', async () => {
    const res = await admin.post('/api/widgets').send(widgetSettings({ verticals: ['sales'], defaultVertical: 'hr' })).expect(400);
    expect(res.body.error.message).toBe('The default vertical must be one of the chosen verticals');
    const unknown = await admin.post('/api/widgets').send(widgetSettings({ verticals: ['nope'] })).expect(400);
    expect(unknown.body.error.message).toMatch(/Each vertical must be one of/);
  });

  it('gives the loader its settings cross-origin (CORS for allowed origins), 403 to others, 404 for unknown ids, and no cookie', async () => {
    const { widget } = await create();
    const ok = await request(t.url).get(`/api/public/widgets/${widget.id}`).set('Origin', HOST).expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe(HOST);
    expect(ok.headers['set-cookie']).toBeUndefined();
    expect(ok.body.data).toEqual({
      id: widget.id,
      verticals: ['customer-service', 'sales'],
      defaultVertical: 'customer-service',
      greeting: 'Hi! Ask us anything.',
      color: '#1e3a8a',
      textColor: '#ffffff',
      position: 'bottom-right',
      defaultLanguage: 'en',
      launcherLabel: 'Chat with us',
      requireIdentity: false,
    });
    await request(t.url).get(`/api/public/widgets/${widget.id}`).set('Origin', 'https://shop.example.com').expect(200);
    const foreign = await request(t.url).get(`/api/public/widgets/${widget.id}`).set('Origin', OTHER).expect(403);
    expect(foreign.body.error.message).toBe(`This widget may not be used on ${OTHER}: add it to the widget's allowed origins in the console.`);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    await request(t.url).get('/api/public/widgets/00000000-0000-0000-0000-000000000000').set('Origin', HOST).expect(404);
  });

  it('serves the iframe page with frame-ancestors of the allowed origins; unknown and deleted ids get a 404 page', async () => {
    const { widget } = await create();
    const page = await request(t.url).get(`/widget/${widget.id}`).expect(200);
    expect(page.headers['content-security-policy']).toBe(`frame-ancestors 'self' ${HOST} https://*.example.com`);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.text).toContain('<div id="root">');
    await admin.put(`/api/widgets/${widget.id}`).send(widgetSettings({ allowedOrigins: [OTHER] })).expect(200);
    expect((await request(t.url).get(`/widget/${widget.id}`)).headers['content-security-policy']).toBe(`frame-ancestors 'self' ${OTHER}`);
    await admin.put(`/api/widgets/${widget.id}`).send(widgetSettings({ allowedOrigins: [] })).expect(200);
    expect((await request(t.url).get(`/widget/${widget.id}`)).headers['content-security-policy']).toBe("frame-ancestors 'self'");

    const unknown = await request(t.url).get('/widget/not-a-widget').expect(404);
    expect(unknown.text).toContain('This chat is not available');
    await admin.delete(`/api/widgets/${widget.id}`).expect(200);
    const deleted = await request(t.url).get(`/widget/${widget.id}`).expect(404);
    expect(deleted.text).toContain('This chat is not available');
    expect(deleted.headers['content-type']).toMatch(/text\/html/);
  });

  it('locks /interact to the allowed origins: 403 from another origin, 404 for a deleted widget, counted per widget', async () => {
    const { widget } = await create();
    const ask = { query: 'How do I reset my password?', vertical: 'customer-service' };
    const ok = await request(t.url).post('/interact').set('X-Widget-Id', widget.id).set('Origin', HOST).send(ask).expect(200);
    expect(ok.body.data.response).toBeTruthy();
    // The iframe's own calls are same-origin.
    await request(t.url).post('/interact').set('X-Widget-Id', widget.id).set('Origin', t.url).set('Sec-Fetch-Site', 'same-origin').send(ask).expect(200);
    const foreign = await request(t.url).post('/interact').set('X-Widget-Id', widget.id).set('Origin', OTHER).send(ask).expect(403);
    expect(foreign.body.error.code).toBe('forbidden');
    const notOffered = await request(t.url).post('/interact').set('X-Widget-Id', widget.id).set('Origin', HOST).send({ ...ask, vertical: 'hr' }).expect(403);
    expect(notOffered.body.error.message).toBe('This widget does not offer hr.');
    const counts = async () => ((await admin.get('/api/analytics/widgets').expect(200)).body.data as Array<{ id: string; requests: number }>).find((w) => w.id === widget.id)?.requests;
    for (let i = 0; i < 40 && (await counts()) !== 2; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(await counts()).toBe(2);
    await admin.delete(`/api/widgets/${widget.id}`).expect(200);
    const gone = await request(t.url).post('/interact').set('X-Widget-Id', widget.id).set('Origin', HOST).send(ask).expect(404);
    expect(gone.body.error.message).toMatch(/No such widget/);
  });

  it('locks the socket to the allowed origins (403), refuses unknown widgets (404) and streams through an allowed one', async () => {
    const { widget } = await create();
    await expect(widgetSocket(t.url, { widget: widget.id }, OTHER)).rejects.toMatchObject({ data: { code: 'forbidden', status: 403 } });
    await expect(widgetSocket(t.url, { widget: 'f00' }, HOST)).rejects.toMatchObject({ data: { code: 'not_found', status: 404 } });
    const token = (await request(t.url).post(`/api/public/widgets/${widget.id}/visitor`).send({}).expect(201)).body.data.token;
    const socket = await widgetSocket(t.url, { widget: widget.id, visitorToken: token }, HOST);
    try {
      const result = await chatOverSocket(socket, { query: 'How do I reset my password?', vertical: 'customer-service' });
      expect(result.done?.sources.length).toBeGreaterThan(0);
      const refused = await chatOverSocket(socket, { query: 'How many vacation days?', vertical: 'hr' });
      expect(refused.ack).toEqual({ accepted: false, error: { code: 'forbidden', message: 'This widget does not offer hr.' } });
    } finally {
      socket.close();
    }
    // The conversation belongs to the token: read back with it, not without it.
    const mine = await request(t.url).get('/api/visitor/conversations').set('X-Visitor-Token', token).expect(200);
    expect(mine.body.data.conversations[0].messages.map((m: { content: string }) => m.content)).toContain('How do I reset my password?');
    expect(mine.headers['set-cookie']).toBeUndefined();
  });

  it("applies the widget's own message limit to all its visitors together (429 with Retry-After)", async () => {
    const { widget } = await create({ messagesPerMinute: 2 });
    const ask = { query: 'Where is my order?', vertical: 'customer-service' };
    await request(t.url).post('/interact').set('X-Widget-Id', widget.id).send(ask).expect(200);
    await request(t.url).post('/interact').set('X-Widget-Id', widget.id).send(ask).expect(200);
    const limited = await request(t.url).post('/interact').set('X-Widget-Id', widget.id).send(ask).expect(429);
    expect(limited.body.error.message).toMatch(/^This chat takes 2 messages a minute from all its visitors\. Try again in \d+ s\.$/);
  });

  it('ties a verified identity (HMAC or JWT) to one token on every device; a wrong signature is ignored, or refused when required', async () => {
    const { widget, secret } = await create();
    const visitor = (body: Record<string, unknown>) => request(t.url).post(`/api/public/widgets/${widget.id}/visitor`).send(body);
    const anonymous = (await visitor({}).expect(201)).body.data;
    expect(anonymous).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), identified: false });
    expect((await visitor({ token: anonymous.token }).expect(201)).body.data.token).toBe(anonymous.token);

    const hmac = createHmac('sha256', secret).update('user-42').digest('hex');
    const first = (await visitor({ token: anonymous.token, identity: { id: 'user-42', signature: hmac } }).expect(201)).body.data;
    const second = (await visitor({ identity: { id: 'user-42', name: 'Ada', signature: hmac } }).expect(201)).body.data;
    expect(first).toEqual({ token: second.token, identified: true });
    expect(first.token).not.toBe(anonymous.token);

    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-42').setExpirationTime('5m').sign(new TextEncoder().encode(secret));
    expect((await visitor({ identity: { id: 'user-42', signature: jwt } }).expect(201)).body.data.token).toBe(first.token);
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-42').setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(new TextEncoder().encode(secret));
    expect((await visitor({ identity: { id: 'user-42', signature: expired } }).expect(201)).body.data.identified).toBe(false);
    const noExpiry = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('user-42').sign(new TextEncoder().encode(secret));
    expect((await visitor({ identity: { id: 'user-42', signature: noExpiry } }).expect(201)).body.data.identified).toBe(false);

    const wrong = (await visitor({ identity: { id: 'user-42', signature: createHmac('sha256', 'other').update('user-42').digest('hex') } }).expect(201)).body.data;
    expect(wrong.identified).toBe(false);
    expect(wrong.token).not.toBe(first.token);
    expect((await visitor({ identity: { id: 'user-42' } }).expect(201)).body.data.identified).toBe(false);

    // Rotated: the old secret's signatures stop working.
    const rotated = (await admin.post(`/api/widgets/${widget.id}/secret`).expect(201)).body.data.secret;
    expect((await visitor({ identity: { id: 'user-42', signature: hmac } }).expect(201)).body.data.identified).toBe(false);
    const fresh = createHmac('sha256', rotated).update('user-42').digest('hex');
    expect((await visitor({ identity: { id: 'user-42', signature: fresh } }).expect(201)).body.data.token).toBe(first.token);

    await admin.put(`/api/widgets/${widget.id}`).send(widgetSettings({ requireIdentity: true })).expect(200);
    const refused = await visitor({ identity: { id: 'user-42', signature: hmac } }).expect(403);
    expect(refused.body.error.message).toBe('This widget accepts only a verified identity: the signature is missing or wrong.');
    expect((await visitor({ identity: { id: 'user-42', signature: fresh } }).expect(201)).body.data.identified).toBe(true);
  });
});
