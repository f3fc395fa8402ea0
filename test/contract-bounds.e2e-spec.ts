/**
 * Dates and numbers out of range are refused with 400 before anything is written, on SQLite and,
 * when DATABASE_URL is set, on Postgres too. The case that started it: an attachment whose
 * uploadedAt was 8640000000000001 (one past the last moment a JavaScript Date can hold) was
 * stored, the answer failed with 500 after the commit, and from then on every GET /api/knowledge
 * failed with 500 until the row was deleted by hand.
 */
import request from 'supertest';
import { distributed, startTestApp, TestApp } from './support/test-app';
import { adminAgent, AdminAgent } from './support/admin-session';
import { dbSnapshot as snapshot } from './support/db-snapshot';

type Dialect = 'sqlite' | 'postgres';
const DIALECTS: Dialect[] = distributed.databaseUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** Sent as raw JSON text, so 9007199254740993 reaches the server as written (not rounded by JSON.stringify). */
const BAD_NUMBERS = ['8640000000000001', '9007199254740993', '-1e20', '1e308', '-0.5', '3.5'];
/** Bad dates also as text: past the JavaScript Date range, before 2000, after 2099, not a date. */
const BAD_DATE_TEXTS = ['"+275760-09-13T00:00:00.001Z"', '"1999-12-31T23:59:59Z"', '"2100-01-01T00:00:00Z"', '"soon"', '"2024-02-30T00:00:00Z"', '"2023-13-01T00:00:00Z"'];

const ITEM = '{"title":"Warranty","content":"Two years.","vertical":"customer-service","tags":[],"attachments":[%ATTACHMENTS%]}';
const attachment = (field: string, value: string) => `{"name":"notes.txt","type":"text/plain","content":"Keep the receipt."${field ? `,"${field}":${value}` : ''}}`;

describe.each(DIALECTS)('out-of-range dates and numbers (%s)', (dialect) => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp(dialect === 'sqlite' ? { databaseUrl: undefined, seedSampleKnowledge: false } : { seedSampleKnowledge: false });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  const send = (method: 'post' | 'put', path: string, json: string) => admin[method](path).set('Content-Type', 'application/json').send(json);

  async function expectRefused(method: 'post' | 'put', path: string, json: string, status = 400): Promise<void> {
    const before = await snapshot(t);
    const res = await send(method, path, json);
    expect({ json, status: res.status }).toEqual({ json, status });
    const code = status === 413 ? 'payload_too_large' : 'validation_failed';
    expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) }, requestId: expect.any(String) });
    expect(res.body.error.message).not.toMatch(/uploadedAt|llmConfig|\[\d+\]/);
    expect(await snapshot(t)).toBe(before);
  }

  it('refuses the uploadedAt of the bug report (and its cousins) with 400, stores nothing, and the list still answers', async () => {
    await send('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('', ''))).expect(201);
    for (const value of [...BAD_NUMBERS, ...BAD_DATE_TEXTS]) {
      await expectRefused('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', value)));
      const list = await admin.get('/api/knowledge').expect(200);
      expect(list.body.data).toHaveLength(1);
    }
    const res = await send('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', '8640000000000001')));
    expect(res.body.error.message).toBe('The upload time must be a date between 2000 and 2099');
  });

  it('refuses the same values in an update, keeping the stored item as it was', async () => {
    const created = await send('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', '"2025-03-01T10:00:00Z"'))).expect(201);
    const { id } = created.body.data;
    expect(created.body.data.attachments[0].uploadedAt).toBe('2025-03-01T10:00:00.000Z');
    for (const value of [...BAD_NUMBERS, ...BAD_DATE_TEXTS]) {
      await expectRefused('put', `/api/knowledge/${id}`, ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', value)));
      // A whole number of bytes past 10 MB is a file too large (413); anything else is not a size (400).
      await expectRefused('put', `/api/knowledge/${id}`, ITEM.replace('%ATTACHMENTS%', attachment('size', value)), value === '8640000000000001' ? 413 : 400);
    }
    const read = await admin.get(`/api/knowledge/${id}`).expect(200);
    expect(read.body.data).toEqual(created.body.data);
    await admin.get('/api/knowledge').expect(200);
  });

  it('refuses them in every number of the agent and global settings bodies', async () => {
    const create = (field: string, value: string) =>
      field.startsWith('llm.')
        ? `{"agentId":"bounds-agent","agentName":"Bounds","vertical":"hr","llmConfig":{"provider":"openai","${field.slice(4)}":${value}}}`
        : `{"agentId":"bounds-agent","agentName":"Bounds","vertical":"hr","${field}":${value},"llmConfig":{"provider":"openai"}}`;
    const update = (field: string, value: string) => (field.startsWith('llm.') ? `{"llmConfig":{"${field.slice(4)}":${value}}}` : `{"${field}":${value}}`);
    for (const value of BAD_NUMBERS) {
      for (const field of ['timeout', 'llm.temperature', 'llm.maxTokens']) {
        await expectRefused('post', '/api/config/agents', create(field, value));
        await expectRefused('put', '/api/config/agents/hr-agent', update(field, value));
      }
      for (const field of ['responseTemperature', 'maxResponseLength']) await expectRefused('put', '/api/config/global', `{"${field}":${value}}`);
    }
    const agents = await admin.get('/api/config/agents').expect(200);
    expect(agents.body.data.map((a: { agentId: string }) => a.agentId)).not.toContain('bounds-agent');
  });

  it('refuses them in the chat history and in numbers given as query text, and keeps answering', async () => {
    for (const value of [...BAD_NUMBERS, ...BAD_DATE_TEXTS]) {
      const before = await snapshot(t);
      const json = `{"query":"How long is the warranty?","vertical":"customer-service","conversationHistory":[{"type":"user","content":"Hi","timestamp":${value}}]}`;
      const res = await request(t.url).post('/interact').set('Content-Type', 'application/json').send(json);
      expect({ value, status: res.status, code: res.body.error?.code }).toEqual({ value, status: 400, code: 'validation_failed' });
      expect(await snapshot(t)).toBe(before);
    }
    for (const hours of ['8640000000000001', '-1e20', '9007199254740993', '24.0']) {
      await admin.get('/api/analytics/system').query({ hours }).expect(400);
    }
    await request(t.url).post('/interact').send({ query: 'How long is the warranty?', vertical: 'customer-service' }).expect(200);
    await admin.get('/api/knowledge').expect(200);
  });

  it('refuses impossible calendar dates (2024-02-30) in every date field with 400 naming the field, storing nothing', async () => {
    const notReal = (label: string) => `${label} is not a real date: 2024-02-30 does not exist`;
    const expectNotReal = (res: request.Response, label: string) =>
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: { code: 'validation_failed', message: notReal(label) } });
    const before = await snapshot(t);
    expectNotReal(await send('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', '"2024-02-30T00:00:00Z"'))), 'The upload time');
    const history = `{"query":"How long is the warranty?","vertical":"customer-service","conversationHistory":[{"type":"user","content":"Hi","timestamp":"2024-02-30T00:00:00Z"}]}`;
    expectNotReal(await request(t.url).post('/interact').set('Content-Type', 'application/json').send(history), 'The time of an earlier message');
    expectNotReal(await admin.post('/api/api-keys').send({ name: 'Dates', scopes: ['chat'], expiresAt: '2024-02-30T00:00:00Z' }), 'The expiry date');
    expect(await snapshot(t)).toBe(before);
    for (const path of ['/api/conversations', '/api/audit']) {
      expectNotReal(await admin.get(path).query({ from: '2024-02-30' }), 'From');
      expectNotReal(await admin.get(path).query({ to: '2024-02-30T10:00:00Z' }), 'To');
    }
    // The last real day of February is still a date, in a leap year and at the end of a common one.
    const kept = await send('post', '/api/knowledge', ITEM.replace('%ATTACHMENTS%', attachment('uploadedAt', '"2024-02-29T23:59:59Z"'))).expect(201);
    expect(kept.body.data.attachments[0].uploadedAt).toBe('2024-02-29T23:59:59.000Z');
    await admin.get('/api/conversations').query({ from: '2023-02-28', to: '2023-03-01' }).expect(200);
  });
});
