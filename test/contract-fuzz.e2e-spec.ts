/**
 * Property-based: for every write endpoint and every socket event, 500 generated bodies that the
 * contract refuses (random JSON, and valid bodies with one field replaced by a hostile value:
 * huge or fractional numbers, NUL characters, long text, wrong types, nested junk). Every answer
 * must be a 4xx error envelope (never a 5xx), and no row may be written.
 */
import fc from 'fast-check';
import request from 'supertest';
import type { z } from 'zod';
import { TOTP, Secret } from 'otpauth';
import { ApiKeyCreateSchema } from '../src/shared/contracts/api-keys';
import { EmailRequestSchema, PasswordLoginSchema, SecondFactorCodeSchema, SecurityPolicyUpdateSchema, TotpCodeSchema, VerifyOtpSchema } from '../src/shared/contracts/auth';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { FeedbackRequestSchema } from '../src/shared/contracts/analytics';
import { InteractRequestSchema } from '../src/shared/contracts/chat';
import { AgentCreateSchema, AgentUpdateSchema, GlobalSettingsUpdateSchema, KeyTestRequestSchema } from '../src/shared/contracts/config';
import { ChatResumePayloadSchema, GapUpdateSchema, NewChatRequestSchema } from '../src/shared/contracts/conversations';
import { EmbeddingKeyTestRequestSchema, EmbeddingSettingsUpdateSchema } from '../src/shared/contracts/embeddings';
import { AuditSettingsUpdateSchema } from '../src/shared/contracts/audit';
import { SpeechSettingsUpdateSchema } from '../src/shared/contracts/speech';
import { KnowledgeItemInputSchema } from '../src/shared/contracts/knowledge';
import { SiteImportRequestSchema } from '../src/shared/contracts/knowledge-import';
import { InvitationAcceptSchema, InvitationCreateSchema, MemberUpdateSchema } from '../src/shared/contracts/team';
import { ChatCancelPayloadSchema, ChatSendPayloadSchema, type ChatResumeAck, type ChatSendAck } from '../src/shared/contracts/socket';
import { statusForCode } from '../src/common/app-error';
import { isErrorCode } from '../src/shared/contracts/http';
import { adminAgent, AdminAgent } from './support/admin-session';
import { dbSnapshot } from './support/db-snapshot';
import { ClientSocket, connectClient, startTestApp, TestApp } from './support/test-app';

const BODIES_PER_TARGET = 500;
const SEED = 20261123;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values that have broken servers before: out-of-range dates, unsafe integers, NUL, long text. */
const hostile: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(8640000000000001, 9007199254740993, -1e20, 1e308, -0, 0.5, -1, 2 ** 31, '', ' ', '\u0000', 'a\u0000b', '8640000000000001', '+275760-09-13T00:00:00.001Z', 'NaN', [], {}, [null], true, null),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant('x'.repeat(5000)),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Every path to a value inside `value` (objects and arrays), the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => paths.push(...pathsOf(v, [...prefix, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths.push(...pathsOf(v, [...prefix, k]));
  return paths;
}

function replaced(value: Json, path: (string | number)[], by: Json | undefined): Json {
  if (path.length === 0) return by === undefined ? null : by;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, Json>;
  const [head, ...rest] = path;
  if (rest.length === 0 && by === undefined) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy as Json;
}

/** Bodies the schema refuses: one field of a valid body replaced or removed, an extra hostile field, or random JSON. */
function invalidBodies(valid: Json, schema: z.ZodType): Json[] {
  const paths = pathsOf(valid);
  const mutated = fc.tuple(fc.constantFrom(...paths), fc.option(hostile, { nil: undefined, freq: 6 })).map(([path, by]) => replaced(valid, path, by));
  const twice = fc.tuple(mutated, fc.constantFrom(...paths), hostile).map(([body, path, by]) => replaced(body, path, by));
  const arbitrary = fc.oneof({ weight: 5, arbitrary: mutated }, { weight: 2, arbitrary: twice }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> });
  // What the server receives is the JSON text: refused means refused after a round trip.
  const refused = arbitrary.map((body) => JSON.parse(JSON.stringify(body)) as Json).filter((body) => !schema.safeParse(body).success);
  return fc.sample(refused, { numRuns: BODIES_PER_TARGET, seed: SEED });
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

describe('contract fuzzing: invalid bodies get a 4xx envelope and write nothing', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let itemId: string;
  let memberId: string;
  const totpUser = { email: 'fuzz-totp@example.com', password: 'fuzz totp password' };

  /** A sign-in waiting for its authenticator code (a session that opens only verify-totp). */
  async function halfSignedIn(): Promise<AdminAgent> {
    const agent = request.agent(t.url);
    const res = await agent.post('/api/auth/login-password').send(totpUser).expect(200);
    expect(res.body.secondFactor).toBe('totp');
    return agent;
  }

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false, signInIpLimit: 100_000 });
    admin = await adminAgent(t);
    itemId = (await admin.post('/api/knowledge').send({ title: 'Returns', content: 'Thirty days.', vertical: 'customer-service' }).expect(201)).body.data.id;
    await t.app.get(AdminUsersService).create(totpUser);
    const enrolling = request.agent(t.url);
    await enrolling.post('/api/auth/login-password').send(totpUser).expect(200);
    const { secret } = (await enrolling.post('/api/auth/totp/enrol').expect(200)).body.data;
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    await enrolling.post('/api/auth/totp/confirm').send({ code }).expect(200);
    const members = (await admin.get('/api/team/members').expect(200)).body.data.members as Array<{ id: string; email: string }>;
    memberId = members.find((m) => m.email === totpUser.email)!.id;
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const ITEM: Json = {
    title: 'Warranty',
    content: 'Two years.',
    category: 'Products',
    vertical: 'customer-service',
    tags: ['warranty'],
    attachments: [
      { name: 'receipt.txt', type: 'text/plain', size: 17, content: 'Keep the receipt.', uploadedAt: '2025-01-01T00:00:00Z' },
      { name: 'photo.png', type: 'image/png', content: PNG, uploadedAt: 1735689600000 },
    ],
  };
  const AGENT: Json = {
    agentId: 'fuzz-agent',
    agentName: 'Fuzz',
    vertical: 'hr',
    enabled: true,
    systemPrompt: 'Be brief.',
    timeout: 30000,
    llmConfig: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-test-1234567890', temperature: 0.5, maxTokens: 1000, endpoint: null, baseUrl: 'https://example.com/v1', apiVersion: null },
  };
  const CHAT: Json = {
    query: 'Can I break my lease?',
    vertical: 'legal',
    userId: 'demo-user',
    conversationHistory: [{ type: 'user', content: 'Hello', timestamp: '2025-01-01T00:00:00Z' }, { type: 'agent', content: 'Hi!' }],
    preferredLanguage: 'English',
    detectedLanguage: 'en',
    jurisdiction: 'US',
    subJurisdiction: 'California',
    context: { preferredLanguage: 'English', skipTranslation: true, jurisdictionName: 'United States', legalSystem: 'Common Law' },
  };

  const targets: Array<{ name: string; method: 'post' | 'put' | 'patch' | 'delete'; path: () => string; schema: z.ZodType; valid: Json; asAdmin: boolean | 'half-signed-in' }> = [
    { name: 'POST /interact', method: 'post', path: () => '/interact', schema: InteractRequestSchema, valid: CHAT, asAdmin: false },
    { name: 'POST /api/knowledge', method: 'post', path: () => '/api/knowledge', schema: KnowledgeItemInputSchema, valid: ITEM, asAdmin: true },
    { name: 'PUT /api/knowledge/{id}', method: 'put', path: () => `/api/knowledge/${itemId}`, schema: KnowledgeItemInputSchema, valid: ITEM, asAdmin: true },
    { name: 'POST /api/config/agents', method: 'post', path: () => '/api/config/agents', schema: AgentCreateSchema, valid: AGENT, asAdmin: true },
    { name: 'PUT /api/config/agents/{id}', method: 'put', path: () => '/api/config/agents/hr-agent', schema: AgentUpdateSchema, valid: AGENT, asAdmin: true },
    {
      name: 'PUT /api/config/global',
      method: 'put',
      path: () => '/api/config/global',
      schema: GlobalSettingsUpdateSchema,
      valid: { responseTemperature: 0.7, maxResponseLength: 500, defaultLanguage: 'en', verticals: { hr: true, legal: true }, enableAnalytics: true, debugMode: false },
      asAdmin: true,
    },
    { name: 'POST /api/config/test-api-key', method: 'post', path: () => '/api/config/test-api-key', schema: KeyTestRequestSchema, valid: { provider: 'openai', apiKey: 'sk-test', model: 'gpt-4o-mini', baseUrl: 'https://example.com/v1' }, asAdmin: true },
    { name: 'POST /api/auth/check-methods', method: 'post', path: () => '/api/auth/check-methods', schema: EmailRequestSchema, valid: { email: 'test-admin@example.com' }, asAdmin: false },
    { name: 'POST /api/auth/request-otp', method: 'post', path: () => '/api/auth/request-otp', schema: EmailRequestSchema, valid: { email: 'test-admin@example.com' }, asAdmin: false },
    { name: 'POST /api/auth/login-password', method: 'post', path: () => '/api/auth/login-password', schema: PasswordLoginSchema, valid: { email: 'test-admin@example.com', password: 'correct horse battery staple' }, asAdmin: false },
    { name: 'POST /api/auth/verify-otp', method: 'post', path: () => '/api/auth/verify-otp', schema: VerifyOtpSchema, valid: { email: 'test-admin@example.com', otp: '123456' }, asAdmin: false },
    { name: 'POST /api/feedback', method: 'post', path: () => '/api/feedback', schema: FeedbackRequestSchema, valid: { replyId: '00000000-0000-4000-8000-000000000000', vote: 'up' }, asAdmin: false },
    { name: 'PUT /api/knowledge-gaps/{id}', method: 'put', path: () => '/api/knowledge-gaps/00000000-0000-4000-8000-000000000000', schema: GapUpdateSchema, valid: { status: 'resolved' }, asAdmin: true },
    { name: 'PUT /api/config/embeddings', method: 'put', path: () => '/api/config/embeddings', schema: EmbeddingSettingsUpdateSchema, valid: { enabled: false, provider: 'openai', model: 'text-embedding-3-small' }, asAdmin: true },
    {
      name: 'POST /api/config/embeddings/test',
      method: 'post',
      path: () => '/api/config/embeddings/test',
      schema: EmbeddingKeyTestRequestSchema,
      valid: { provider: 'openai', model: 'text-embedding-3-small', baseUrl: 'https://example.com/v1', apiKey: 'sk-test' },
      asAdmin: true,
    },
    { name: 'PUT /api/config/speech', method: 'put', path: () => '/api/config/speech', schema: SpeechSettingsUpdateSchema, valid: { enabled: false, provider: 'openai', model: 'whisper-1', apiKey: 'sk-test' }, asAdmin: true },
    { name: 'POST /api/auth/verify-totp', method: 'post', path: () => '/api/auth/verify-totp', schema: SecondFactorCodeSchema, valid: { code: '123 456' }, asAdmin: 'half-signed-in' },
    { name: 'POST /api/auth/totp/confirm', method: 'post', path: () => '/api/auth/totp/confirm', schema: TotpCodeSchema, valid: { code: '123456' }, asAdmin: true },
    { name: 'POST /api/auth/totp/recovery-codes', method: 'post', path: () => '/api/auth/totp/recovery-codes', schema: TotpCodeSchema, valid: { code: '123456' }, asAdmin: true },
    { name: 'DELETE /api/auth/totp', method: 'delete', path: () => '/api/auth/totp', schema: SecondFactorCodeSchema, valid: { recoveryCode: 'abcde-23456' }, asAdmin: true },
    { name: 'PUT /api/auth/security', method: 'put', path: () => '/api/auth/security', schema: SecurityPolicyUpdateSchema, valid: { requireSecondFactor: false }, asAdmin: true },
    {
      name: 'POST /api/api-keys',
      method: 'post',
      path: () => '/api/api-keys',
      schema: ApiKeyCreateSchema,
      valid: { name: 'Fuzz bot', scopes: ['chat', 'knowledge:read'], expiresAt: '2030-01-01T00:00:00Z', rateLimitPerMinute: 60 },
      asAdmin: true,
    },
    // Only refused bodies are sent, so no fetch is ever made (the address is checked after the contract).
    {
      name: 'POST /api/knowledge/import/site',
      method: 'post',
      path: () => '/api/knowledge/import/site',
      schema: SiteImportRequestSchema,
      valid: { url: 'http://127.0.0.1:9/help/', vertical: 'customer-service', category: 'Help', maxPages: 10, maxDepth: 2, resyncHours: 0 },
      asAdmin: true,
    },
    // Only refused bodies are sent: no invitation mail goes out and no member changes.
    { name: 'POST /api/team/invitations', method: 'post', path: () => '/api/team/invitations', schema: InvitationCreateSchema, valid: { email: 'fuzz-invitee@example.com', role: 'agent' }, asAdmin: true },
    { name: 'PATCH /api/team/members/{id}', method: 'patch', path: () => `/api/team/members/${memberId}`, schema: MemberUpdateSchema, valid: { role: 'viewer', disabled: false, name: 'Fuzz Member' }, asAdmin: true },
    {
      name: 'POST /api/team/invitations/{token}/accept',
      method: 'post',
      path: () => '/api/team/invitations/not-a-real-invitation-token/accept',
      schema: InvitationAcceptSchema,
      valid: { name: 'Fuzz Invitee', password: 'a long enough passphrase' },
      asAdmin: false,
    },
    { name: 'PUT /api/audit/settings', method: 'put', path: () => '/api/audit/settings', schema: AuditSettingsUpdateSchema, valid: { retentionDays: 365 }, asAdmin: true },
    { name: 'POST /api/visitor/conversations/new', method: 'post', path: () => '/api/visitor/conversations/new', schema: NewChatRequestSchema, valid: { vertical: 'legal', jurisdiction: 'US', subJurisdiction: 'Texas' }, asAdmin: false },
  ];

  it.each(targets.map((target) => [target.name, target]))('%s', async (_name, target) => {
    const bodies = invalidBodies(target.valid, target.schema);
    expect(bodies).toHaveLength(BODIES_PER_TARGET);
    const halfSignedInAgent = target.asAdmin === 'half-signed-in' ? await halfSignedIn() : undefined;
    const before = await dbSnapshot(t);
    const wrong: unknown[] = [];
    await eachLimited(bodies, 6, async (body) => {
      const client = halfSignedInAgent ?? (target.asAdmin ? admin : request(t.url));
      const res = await client[target.method](target.path()).set('Content-Type', 'application/json').send(JSON.stringify(body));
      const envelope = res.body as { success?: unknown; error?: { code?: unknown; message?: unknown }; requestId?: unknown };
      const ok =
        res.status >= 400 &&
        res.status < 500 &&
        envelope.success === false &&
        typeof envelope.error?.code === 'string' &&
        typeof envelope.error?.message === 'string' &&
        envelope.error.message.length > 0 &&
        typeof envelope.requestId === 'string';
      if (!ok) wrong.push({ body: JSON.stringify(body).slice(0, 300), status: res.status, answer: JSON.stringify(res.body).slice(0, 300) });
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(await dbSnapshot(t)).toBe(before);
    // The server is still well.
    await admin.get('/api/knowledge').expect(200);
  }, 120_000);

  it('POST /api/voice/transcriptions: random files, field names, types and languages get a 4xx envelope and write nothing', async () => {
    const uploads = fc.sample(
      fc.record({
        bytes: fc.oneof(fc.uint8Array({ maxLength: 2000 }), fc.constant(new Uint8Array(0)), fc.string({ maxLength: 200 }).map((text) => new TextEncoder().encode(text)), fc.uint8Array({ maxLength: 64 }).map((tail) => Uint8Array.from([0x52, 0x49, 0x46, 0x46, 1, 0, 0, 0, 0x57, 0x41, 0x56, 0x45, ...tail]))),
        field: fc.constantFrom('file', 'file', 'audio', ''),
        name: fc.oneof(fc.constantFrom('recording.webm', 'a.wav', 'x'), fc.string({ maxLength: 40 })),
        type: fc.constantFrom('audio/webm', 'audio/wav', 'application/octet-stream', 'text/plain', 'image/png'),
        language: fc.option(fc.oneof(fc.constantFrom('en', 'EN', 'eng', '', '\u0000', 'x'.repeat(3000)), fc.string({ maxLength: 10 })), { nil: undefined }),
      }),
      { numRuns: 150, seed: SEED },
    );
    const before = await dbSnapshot(t);
    const wrong: unknown[] = [];
    await eachLimited(uploads, 4, async (u) => {
      const req = request(t.url).post('/api/voice/transcriptions');
      if (u.language !== undefined) req.query({ language: u.language });
      const res = await req.attach(u.field || 'file', Buffer.from(u.bytes), { filename: u.name.replace(/["\r\n]/g, '') || 'x', contentType: u.type });
      const ok = res.status >= 400 && res.status < 500 && res.body?.success === false && typeof res.body?.error?.message === 'string' && res.body.error.message.length > 0;
      if (!ok) wrong.push({ upload: { ...u, bytes: u.bytes.length }, status: res.status, answer: JSON.stringify(res.body).slice(0, 200) });
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(await dbSnapshot(t)).toBe(before);
  }, 120_000);

  it('path and query parameters of the team, session, second-factor, audit, API key and website import routes: hostile values get a 4xx envelope', async () => {
    const values = fc.sample(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('x'.repeat(3000), '%00', '..', '00000000-0000-4000-8000-000000000000', 'all', 'mine')), { numRuns: 150, seed: SEED });
    const before = await dbSnapshot(t);
    const wrong: unknown[] = [];
    await eachLimited(values, 6, async (value) => {
      const id = encodeURIComponent(value);
      for (const [method, path] of [
        ['delete', `/api/auth/sessions/${id}`],
        ['delete', `/api/api-keys/${id}`],
        ['delete', `/api/team/members/${id}/totp`],
        ['delete', `/api/team/members/${id}`],
        ['patch', `/api/team/members/${id}`],
        ['delete', `/api/team/invitations/${id}`],
        ['get', `/api/team/invitations/${id}`],
        ['post', `/api/team/invitations/${id}/accept`],
        ['get', `/api/audit?member=${id}&action=${id}&target=${id}`],
        ['get', `/api/audit?search=${id}&from=${id}&to=${id}&page=${id}&pageSize=${id}`],
        ['get', `/api/audit/export?format=${id}&from=${id}`],
        ['get', `/api/auth/sessions?scope=${id}`],
        ['get', `/api/knowledge/import/site/${id}`],
        ['post', `/api/knowledge/import/site/${id}/cancel`],
        ['post', `/api/knowledge/import/site/${id}/resume`],
        ['post', `/api/knowledge/import/site/${id}/resync`],
      ] as const) {
        const res = await admin[method](path);
        const ok = (res.status === 200 && method === 'get') || (res.status >= 400 && res.status < 500 && res.body?.success === false && typeof res.body?.error?.message === 'string');
        if (!ok) wrong.push({ method, path: path.slice(0, 120), status: res.status, answer: JSON.stringify(res.body).slice(0, 200) });
      }
    });
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(await dbSnapshot(t)).toBe(before);
    await admin.get('/api/auth/me').expect(200);
  }, 120_000);

  describe('socket events', () => {
    let socket: ClientSocket;

    beforeAll(async () => {
      socket = await connectClient(t.url);
    });

    afterAll(() => {
      socket?.close();
    });

    it('chat:send: every refused payload is acknowledged {accepted:false, error} with a 4xx code', async () => {
      const payloads = invalidBodies({ ...(CHAT as object), requestId: 'fuzz-1' }, ChatSendPayloadSchema);
      expect(payloads).toHaveLength(BODIES_PER_TARGET);
      const before = await dbSnapshot(t);
      const wrong: unknown[] = [];
      for (const payload of payloads) {
        const ack = await new Promise<ChatSendAck>((resolve) => socket.emit('chat:send', payload as never, resolve));
        const status = ack.accepted === false && isErrorCode(ack.error.code) ? statusForCode(ack.error.code) : 0;
        const ok = ack.accepted === false && status >= 400 && status < 500 && typeof ack.error.message === 'string' && ack.error.message.length > 0;
        if (!ok) wrong.push({ payload: JSON.stringify(payload).slice(0, 300), ack });
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(await dbSnapshot(t)).toBe(before);
      expect(socket.connected).toBe(true);
    }, 120_000);

    it('chat:resume: every refused payload is acknowledged {accepted:false, error} with a 4xx code', async () => {
      const payloads = invalidBodies({ requestId: 'fuzz-3', replyId: '01900000-0000-7000-8000-000000000000', after: 3 }, ChatResumePayloadSchema);
      expect(payloads).toHaveLength(BODIES_PER_TARGET);
      const wrong: unknown[] = [];
      for (const payload of payloads) {
        const ack = await new Promise<ChatResumeAck>((resolve) => socket.emit('chat:resume', payload as never, resolve));
        const status = ack.accepted === false && isErrorCode(ack.error.code) ? statusForCode(ack.error.code) : 0;
        if (!(ack.accepted === false && status >= 400 && status < 500 && ack.error.message.length > 0)) wrong.push({ payload: JSON.stringify(payload).slice(0, 300), ack });
      }
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(socket.connected).toBe(true);
    }, 120_000);

    it('chat:cancel: refused payloads stop nothing and leave the socket working', async () => {
      const payloads = invalidBodies({ requestId: 'fuzz-2' }, ChatCancelPayloadSchema);
      expect(payloads).toHaveLength(BODIES_PER_TARGET);
      const before = await dbSnapshot(t);
      for (const payload of payloads) socket.emit('chat:cancel', payload as never);
      // The socket still answers (a round trip after every cancel was handled), and nothing was written.
      const ack = await new Promise<ChatSendAck>((resolve) => socket.emit('chat:send', { requestId: 'after-cancels', query: '', vertical: 'hr' }, resolve));
      expect(ack).toMatchObject({ accepted: false, error: { code: 'query_empty' } });
      expect(socket.connected).toBe(true);
      expect(await dbSnapshot(t)).toBe(before);
    }, 60_000);
  });
});
