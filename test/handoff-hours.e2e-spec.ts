/**
 * Business hours and notifications of a handoff: outside hours (a controlled clock) the visitor is
 * told the next opening in their language and time zone and leaves a message that waits in the
 * inbox; the members on duty get a mail; the webhook receiver (on 127.0.0.1, allowed by the
 * setting) gets a correctly signed call that is retried after failures; a webhook URL on a private
 * address is refused unless allowed (checked without connecting anywhere); a visitor who left an
 * address and has no page open gets a person's reply by mail.
 */
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { HandoffClock } from '../src/handoff/handoff-clock';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { mailsTo } from './support/outbox-mail';
import { eventually, newVisitorCookie, startTestApp, type TestApp } from './support/test-app';

const VERTICAL = 'customer-service';
const SECRET = 'whsec-test-0123456789';
const PARIS_WEEKDAYS = { timeZone: 'Europe/Paris', weekly: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ open: '09:00', close: '17:00' }]])), holidays: ['2026-12-25'] };

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  answeredWith: number;
}

describe('Handoff hours, webhook and mail', () => {
  let t: TestApp;
  let owner: AdminAgent;
  let receiver: http.Server;
  let hookUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    owner = await adminAgent(t);
    await t.app.get(AdminUsersService).create({ email: 'duty@example.com', name: 'Dee Duty', password: 'correct horse battery staple', role: 'agent' });
    // Fails each delivery twice, then succeeds.
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const delivery = req.headers['x-handoff-delivery'];
        const status = received.filter((r) => r.headers['x-handoff-delivery'] === delivery).length < 2 ? 500 : 204;
        received.push({ headers: req.headers, body, answeredWith: status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('refuses a webhook URL on a private or loopback address unless allowed', async () => {
    for (const url of [hookUrl, 'http://10.1.2.3/hook', 'http://[::1]:8080/', 'http://192.168.1.10/x', 'http://[::ffff:127.0.0.1]/']) {
      const res = await owner.put('/api/config/handoff').send({ webhook: { url, secret: SECRET } }).expect(400);
      expect(res.body.error.message).toMatch(/webhook URL is refused/);
    }
    await owner.put('/api/config/handoff').send({ webhook: { url: 'ftp://example.com/x' } }).expect(400);
    // Cloud metadata stays refused even when private addresses are allowed.
    await owner.put('/api/config/handoff').send({ webhook: { url: 'http://169.254.169.254/latest', allowPrivateAddresses: true } }).expect(400);
    expect((await owner.get('/api/config/handoff').expect(200)).body.data.webhook).toEqual({ url: '', secretSet: false, allowPrivateAddresses: false });

    const saved = await owner.put('/api/config/handoff').send({ webhook: { url: hookUrl, secret: SECRET, allowPrivateAddresses: true } }).expect(200);
    expect(saved.body.data.webhook).toEqual({ url: hookUrl, secretSet: true, allowPrivateAddresses: true });
    expect(JSON.stringify(saved.body)).not.toContain(SECRET);
    // Business hours: bad ones are refused.
    await owner.put('/api/config/handoff').send({ hours: { [VERTICAL]: { ...PARIS_WEEKDAYS, timeZone: 'Mars/Olympus' } } }).expect(400);
    await owner.put('/api/config/handoff').send({ hours: { [VERTICAL]: { ...PARIS_WEEKDAYS, weekly: { mon: [{ open: '17:00', close: '09:00' }] } } } }).expect(400);
    await owner.put('/api/config/handoff').send({ hours: { [VERTICAL]: { ...PARIS_WEEKDAYS, holidays: ['25/12/2026'] } } }).expect(400);
    const hours = await owner.put('/api/config/handoff').send({ hours: { [VERTICAL]: PARIS_WEEKDAYS } }).expect(200);
    expect(hours.body.data.hours[VERTICAL]).toMatchObject({ timeZone: 'Europe/Paris' });
    // What was left out stays.
    expect(hours.body.data.webhook.url).toBe(hookUrl);
  });

  it('outside hours: the next opening in the visitor language and zone, a message left in the inbox, a signed webhook retried, mail to the members on duty', async () => {
    // Sunday 29 November 2026, 03:00 in Paris: the next opening is Monday 09:00 Paris (08:00 UTC).
    t.app.get(HandoffClock).now = () => Date.UTC(2026, 10, 29, 2, 0);
    const cookie = await newVisitorCookie(t.url);
    const asked = await request(t.url)
      .post('/api/visitor/conversations/handoff')
      .set('Cookie', cookie)
      .send({ vertical: VERTICAL, email: 'leo@example.com', message: 'Mon colis est perdu, rappelez-moi', language: 'fr', timeZone: 'America/New_York' })
      .expect(200);
    expect(asked.body.data).toMatchObject({ withinHours: false, nextOpening: '2026-11-30T08:00:00.000Z', handoff: { state: 'waiting' } });
    // In French, at 03:00 New York time.
    expect(asked.body.data.message).toMatch(/Personne de notre équipe/);
    expect(asked.body.data.message).toMatch(/lundi 30 novembre/);
    expect(asked.body.data.message).toMatch(/03:00/);

    const ada = request.agent(t.url);
    await ada.post('/api/auth/login-password').send({ email: 'duty@example.com', password: 'correct horse battery staple' }).expect(200);
    const inbox = (await ada.get('/api/inbox').expect(200)).body.data;
    const item = inbox.waiting.find((i: { conversationId: string }) => i.conversationId === asked.body.data.conversationId);
    expect(item).toMatchObject({ withinHours: false, visitorEmail: 'leo@example.com', title: 'Mon colis est perdu, rappelez-moi' });
    const transcript = (await ada.get(`/api/inbox/${item.conversationId}`).expect(200)).body.data.messages;
    expect(transcript).toEqual([expect.objectContaining({ role: 'user', content: 'Mon colis est perdu, rappelez-moi' })]);

    // Within hours (Monday 10:00 Paris) another visitor is told their place in the queue.
    t.app.get(HandoffClock).now = () => Date.UTC(2026, 10, 30, 9, 0);
    const open = await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', await newVisitorCookie(t.url)).send({ vertical: VERTICAL, message: 'hi' }).expect(200);
    expect(open.body.data).toMatchObject({ withinHours: true, nextOpening: null });
    // Christmas is a holiday: closed, next opening on the 28th (the 26th and 27th are a weekend).
    t.app.get(HandoffClock).now = () => Date.UTC(2026, 11, 25, 10, 0);
    const holiday = await request(t.url).post('/api/visitor/conversations/handoff').set('Cookie', await newVisitorCookie(t.url)).send({ vertical: VERTICAL, message: 'hi', language: 'en' }).expect(200);
    expect(holiday.body.data).toMatchObject({ withinHours: false, nextOpening: '2026-12-28T08:00:00.000Z' });

    // The webhook: three tries of one delivery, the third answered 204, each correctly signed.
    const ofAsked = () => received.filter((r) => JSON.parse(r.body).conversation.conversationId === asked.body.data.conversationId);
    const tries = await eventually(() => (ofAsked().length >= 3 ? ofAsked() : undefined), 20_000, 'three webhook tries');
    const [first] = tries;
    expect(tries.map((r) => r.answeredWith)).toEqual([500, 500, 204]);
    expect(new Set(tries.map((r) => r.headers['x-handoff-delivery'])).size).toBe(1);
    for (const attempt of tries) {
      const timestamp = String(attempt.headers['x-handoff-timestamp']);
      const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${attempt.body}`).digest('hex')}`;
      expect(attempt.headers['x-handoff-signature']).toBe(expected);
      expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
    }
    expect(JSON.parse(first.body)).toMatchObject({ event: 'handoff.requested', conversation: { vertical: VERTICAL, reason: 'visitor', withinHours: false, visitorLeftEmail: true } });
    // A body altered in transit does not match its signature.
    const tampered = first.body.replace('handoff.requested', 'handoff.requesteD');
    expect(`sha256=${createHmac('sha256', SECRET).update(`${first.headers['x-handoff-timestamp']}.${tampered}`).digest('hex')}`).not.toBe(first.headers['x-handoff-signature']);

    // The members on duty got a mail.
    await eventually(() => mailsTo(t.config.dataDir, 'duty@example.com').length > 0, 10_000, 'the on-duty mail');
    expect(mailsTo(t.config.dataDir, 'duty@example.com')[0]).toMatch(/asked for a person/);

    // The visitor has no page open: the person's reply reaches them by mail.
    await ada.post(`/api/inbox/${item.conversationId}/messages`).send({ text: 'Bonjour Léo, je regarde votre colis.' }).expect(201);
    await eventually(() => mailsTo(t.config.dataDir, 'leo@example.com').length > 0, 10_000, "the visitor's mail");
    expect(mailsTo(t.config.dataDir, 'leo@example.com')[0]).toMatch(/je regarde votre colis/);
  });
});
