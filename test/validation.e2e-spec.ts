import request from 'supertest';
import { chatOverSocket, ClientSocket, connectClient, startTestApp, TestApp } from './support/test-app';

/** Each bad request, the status it must get, and the error code in the envelope. */
const BAD_REQUESTS: { name: string; body: unknown; status: number; code: string }[] = [
  { name: 'the future vertical', body: { query: 'Hi', vertical: 'future' }, status: 400, code: 'vertical_disabled' },
  { name: 'an unknown vertical', body: { query: 'Hi', vertical: 'astrology' }, status: 400, code: 'unknown_vertical' },
  { name: 'no vertical', body: { query: 'Hi' }, status: 400, code: 'validation_failed' },
  { name: 'an empty query', body: { query: '', vertical: 'hr' }, status: 400, code: 'query_empty' },
  { name: 'a whitespace query', body: { query: ' \n\t  ', vertical: 'hr' }, status: 400, code: 'query_empty' },
  { name: 'a missing query', body: { vertical: 'hr' }, status: 400, code: 'query_empty' },
  { name: 'a 4,001-character query', body: { query: 'a'.repeat(4001), vertical: 'hr' }, status: 400, code: 'query_too_long' },
  { name: 'legal without a jurisdiction', body: { query: 'Can I break my lease?', vertical: 'legal' }, status: 400, code: 'jurisdiction_required' },
  { name: 'legal US without a state', body: { query: 'Can I break my lease?', vertical: 'legal', jurisdiction: 'US' }, status: 400, code: 'jurisdiction_required' },
  { name: 'legal with an unknown jurisdiction', body: { query: 'Lease?', vertical: 'legal', jurisdiction: 'XX' }, status: 400, code: 'unknown_jurisdiction' },
  { name: 'legal with a state that is not in the US', body: { query: 'Lease?', vertical: 'legal', jurisdiction: 'US', subJurisdiction: 'Bavaria' }, status: 400, code: 'unknown_jurisdiction' },
  { name: 'an unknown language', body: { query: 'Hi', vertical: 'hr', preferredLanguage: 'Klingon' }, status: 400, code: 'unknown_language' },
  { name: 'an unknown context language', body: { query: 'Hi', vertical: 'hr', context: { preferredLanguage: 'Elvish' } }, status: 400, code: 'unknown_language' },
  { name: 'a numeric query', body: { query: 42, vertical: 'hr' }, status: 400, code: 'validation_failed' },
  { name: 'a numeric vertical', body: { query: 'Hi', vertical: 7 }, status: 400, code: 'validation_failed' },
  { name: 'history that is not a list', body: { query: 'Hi', vertical: 'hr', conversationHistory: 'earlier' }, status: 400, code: 'validation_failed' },
  { name: 'a history entry of the wrong type', body: { query: 'Hi', vertical: 'hr', conversationHistory: [{ type: 'robot', content: 'x' }] }, status: 400, code: 'validation_failed' },
  { name: 'a context that is not an object', body: { query: 'Hi', vertical: 'hr', context: 'en' }, status: 400, code: 'validation_failed' },
  { name: 'skipTranslation that is not a boolean', body: { query: 'Hi', vertical: 'hr', context: { skipTranslation: 'yes' } }, status: 400, code: 'validation_failed' },
  { name: 'a JSON array body', body: [{ query: 'Hi', vertical: 'hr' }], status: 400, code: 'validation_failed' },
];

describe('chat request validation', () => {
  let t: TestApp;
  let socket: ClientSocket;

  beforeAll(async () => {
    t = await startTestApp();
    socket = await connectClient(t.url);
  });

  afterAll(async () => {
    socket?.close();
    await t?.close();
  });

  it.each(BAD_REQUESTS.map((c) => [c.name, c]))('POST /interact refuses %s with a 4xx envelope', async (_name, c) => {
    const res = await request(t.url).post('/interact').send(c.body as object);
    expect(res.status).toBe(c.status);
    expect(res.body).toEqual({ success: false, error: { code: c.code, message: expect.any(String) }, requestId: expect.any(String) });
    expect(res.body.error.message.length).toBeGreaterThan(0);
  });

  it.each(BAD_REQUESTS.filter((c) => !Array.isArray(c.body)).map((c) => [c.name, c]))('chat:send refuses %s in its acknowledgement', async (_name, c) => {
    const result = await chatOverSocket(socket, c.body as never);
    expect(result.ack).toEqual({ accepted: false, error: { code: c.code, message: expect.any(String) } });
  });

  it('refuses a body that is not JSON with 400', async () => {
    const res = await request(t.url).post('/interact').set('Content-Type', 'application/json').send('{"query": "Hi", vertical: ');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'validation_failed', message: 'The request body is not valid JSON.' } });
  });

  it('refuses a body that is not JSON at all with 415', async () => {
    const res = await request(t.url).post('/interact').set('Content-Type', 'text/plain').send('what is your refund policy');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('refuses a chat:send without a usable requestId', async () => {
    const ack = await new Promise((resolve) => socket.emit('chat:send', { query: 'Hi', vertical: 'hr' } as never, resolve));
    expect(ack).toMatchObject({ accepted: false, error: { code: 'validation_failed' } });
    const ack2 = await new Promise((resolve) => socket.emit('chat:send', 'not an object' as never, resolve));
    expect(ack2).toMatchObject({ accepted: false });
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const res = await request(t.url).get('/api/nothing-here').expect(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });

  it('keeps serving after every bad request', async () => {
    const res = await request(t.url).post('/interact').send({ query: 'How do I reset my password?', vertical: 'customer-service' }).expect(200);
    expect(res.body.success).toBe(true);
    const ok = await chatOverSocket(socket, { query: 'How do I reset my password?', vertical: 'customer-service' });
    expect(ok.done?.response.length).toBeGreaterThan(0);
  });
});
