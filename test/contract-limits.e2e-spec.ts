/**
 * The limits the OpenAPI document states are the limits the server enforces: both come from the
 * zod contracts and the one table of body sizes. The test reads the published document (not the
 * schemas in memory), walks the main request bodies, and for each stated limit sends a value at
 * the limit (accepted) and one just over it (refused, with a message about that limit). It also
 * covers how sizes are refused: a file too large is 413, a field too long is 400 naming it, a
 * body too large is 413 with its size stated right, and a body that is JSON but not an object
 * (`null`) is a 400 that says so.
 */
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';
import { adminAgent, AdminAgent } from './support/admin-session';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  maxLength?: number;
  maxItems?: number;
  maximum?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
};
type Doc = { paths: Record<string, Record<string, { requestBody?: { 'x-max-body-bytes'?: number; description?: string; content: Record<string, { schema: Schema }> }; responses: Record<string, unknown> }>>; components: { schemas: Record<string, Schema> } };

/** A stated limit of one field: where it is, what kind, and the number. */
interface Limit {
  path: string[];
  kind: 'maxLength' | 'maxItems' | 'maximum';
  value: number;
}

/** A JSON pointer `#/components/schemas/X` of the document, followed. */
function deref(doc: Doc, schema: Schema): Schema {
  return schema.$ref ? deref(doc, doc.components.schemas[schema.$ref.split('/').pop()!]) : schema;
}

/**
 * Every maxLength, maxItems and maximum in a body schema, by field path ('[]' for "each item").
 * Branches with a pattern (dates as text) are left out: no value can be made from the length alone.
 */
function limitsOf(doc: Doc, schema: Schema, path: string[] = []): Limit[] {
  const s = deref(doc, schema);
  const found: Limit[] = [];
  for (const branch of s.anyOf ?? []) found.push(...limitsOf(doc, branch, path));
  if (s.pattern !== undefined || s.enum !== undefined || s.const !== undefined) return found;
  for (const kind of ['maxLength', 'maxItems', 'maximum'] as const) if (typeof s[kind] === 'number') found.push({ path, kind, value: s[kind]! });
  for (const [name, property] of Object.entries(s.properties ?? {})) found.push(...limitsOf(doc, property, [...path, name]));
  if (s.items) found.push(...limitsOf(doc, s.items, [...path, '[]']));
  return found;
}

/** Item n of a list field, valid on its own. */
const ITEMS: Record<string, (n: number) => unknown> = {
  conversationHistory: (n) => ({ type: n % 2 ? 'agent' : 'user', content: `Earlier message ${n}` }),
  attachments: (n) => ({ name: `note-${n}.txt`, content: `Note ${n}` }),
  tags: (n) => `tag-${n}`,
};

/** Text of `length` characters that is valid for the field apart from its length. */
const TEXTS: Record<string, (length: number) => string> = {
  name: (length) => `${'n'.repeat(length - 4)}.txt`,
  // A page's address (knowledge items imported from a website).
  url: (length) => `https://example.com/${'p'.repeat(length - 20)}`,
};

/**
 * Fields whose values follow another rule besides their length (one of a list, a stored id, the
 * file's own type): at the limit they may be refused for that rule, never for their length.
 */
const OTHER_RULES: Record<string, string> = {
  preferredLanguage: 'a language of the list',
  detectedLanguage: 'a language of the list',
  'context.preferredLanguage': 'a language of the list',
  'attachments.[].id': 'a stored attachment of the item',
  'attachments.[].type': 'the MIME type of the file’s extension',
  jurisdiction: 'a jurisdiction code of the list (knowledge items)',
  subRegion: 'a sub-region of the chosen jurisdiction',
};

/** The body with the field at `path` set to a value at `size` (characters, items or the number). */
function withValue(base: Record<string, unknown>, limit: Limit, size: number): Record<string, unknown> {
  const body = structuredClone(base);
  const [first, ...rest] = limit.path;
  const leaf = limit.path[limit.path.length - 1];
  const value =
    limit.kind === 'maxItems'
      ? Array.from({ length: size }, (_, n) => ITEMS[leaf]?.(n) ?? `value-${n}`)
      : limit.kind === 'maximum'
        ? size
        : (TEXTS[leaf] ?? ((length: number) => 'a'.repeat(length)))(size);
  if (rest.length === 0) return { ...body, [first]: value };
  // A field inside the items of a list (attachments[].size) or inside an object (context.legalSystem).
  if (rest[0] === '[]') {
    if (rest.length === 1) return { ...body, [first]: [value] };
    return { ...body, [first]: [{ ...(ITEMS[first](0) as object), [rest[1]]: value }] };
  }
  return { ...body, [first]: { ...((body[first] as object) ?? {}), [rest[0]]: value } };
}

const TOO_LARGE_MESSAGE = /at most|larger than|too long|too large|between/i;

describe('the limits the OpenAPI document states', () => {
  let t: TestApp;
  let admin: AdminAgent;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
    doc = (await request(t.url).get('/api/openapi.json').expect(200)).body as Doc;
  });

  afterAll(async () => {
    await t?.close();
  });

  const MAIN_BODIES = [
    { route: '/interact', method: 'post' as const, base: { query: 'How long is the warranty?', vertical: 'customer-service' }, admin: false, ok: 200 },
    { route: '/api/knowledge', method: 'post' as const, base: { title: 'Limits', vertical: 'hr', content: 'Limits.' }, admin: true, ok: 201 },
  ];

  it.each(MAIN_BODIES.map((b) => [b.route, b]))('%s: every stated maxLength, maxItems and maximum is accepted at the limit and refused just over it', async (_route, b) => {
    const schema = doc.paths[b.route][b.method].requestBody!.content['application/json'].schema;
    const limits = limitsOf(doc, schema);
    // The limits the bug report named are stated: 20 tags, 1 MB of content, 10 MB files, 4,000-character questions.
    const stated = Object.fromEntries(limits.map((l) => [`${l.path.join('.')} ${l.kind}`, l.value]));
    if (b.route === '/api/knowledge') {
      expect(stated).toMatchObject({ 'tags maxItems': 20, 'content maxLength': 1024 * 1024, 'attachments.[].size maximum': 10 * 1024 * 1024, 'attachments maxItems': 20 });
    } else {
      expect(stated).toMatchObject({ 'query maxLength': 4000, 'conversationHistory maxItems': 500 });
    }
    const client = b.admin ? admin : request(t.url);
    for (const limit of limits) {
      const field = limit.path.join('.');
      const atLimit = await client[b.method](b.route).send(withValue(b.base, limit, limit.value));
      if (OTHER_RULES[field]) {
        expect({ field, status: atLimit.status, tooLarge: TOO_LARGE_MESSAGE.test(atLimit.body.error?.message ?? '') }).toMatchObject({ field, tooLarge: false });
      } else {
        expect({ field, at: limit.value, status: atLimit.status, error: atLimit.body.error }).toEqual({ field, at: limit.value, status: b.ok, error: undefined });
      }
      const over = await client[b.method](b.route).send(withValue(b.base, limit, limit.value + 1));
      expect({ field, over: limit.value + 1, status: over.status === 400 || over.status === 413 }).toEqual({ field, over: limit.value + 1, status: true });
      if (!OTHER_RULES[field]) expect({ field, message: over.body.error.message }).toEqual({ field, message: expect.stringMatching(TOO_LARGE_MESSAGE) });
    }
  });

  it.each(MAIN_BODIES.map((b) => [b.route, b]))('%s: the stated body size (x-max-body-bytes) is accepted to the byte and refused one byte over with 413', async (_route, b) => {
    const stated = doc.paths[b.route][b.method].requestBody!['x-max-body-bytes']!;
    expect(stated).toBe(b.route === '/api/knowledge' ? 32 * 1024 * 1024 : 1024 * 1024);
    expect(doc.paths[b.route][b.method].responses['413']).toBeDefined();
    const json = JSON.stringify(b.base);
    // JSON allows white space after the value: the same body, padded to the exact size.
    const padded = (bytes: number) => json + ' '.repeat(bytes - Buffer.byteLength(json));
    const client = b.admin ? admin : request(t.url);
    const atLimit = await client[b.method](b.route).set('Content-Type', 'application/json').send(padded(stated));
    expect({ status: atLimit.status, error: atLimit.body.error }).toEqual({ status: b.ok, error: undefined });
    const over = await client[b.method](b.route).set('Content-Type', 'application/json').send(padded(stated + 1));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('payload_too_large');
  });

  it('states a body limit on every route that reads a body, from the one table', () => {
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.requestBody) continue;
        const bytes = operation.requestBody['x-max-body-bytes'];
        expect({ route, method, bytes }).toEqual({ route, method, bytes: route === '/api/knowledge' || route.startsWith('/api/knowledge/') ? 32 * 1024 * 1024 : 1024 * 1024 });
        expect(operation.requestBody.description).toContain(`(${bytes!.toLocaleString('en-US')} bytes)`);
      }
    }
  });
});

describe('how sizes and shapes are refused', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('an attachment of 10 MB + 1 byte is 413 payload_too_large, whether its size is declared or counted', async () => {
    const tenMb = 10 * 1024 * 1024;
    const item = (attachment: object) => ({ title: 'Manual', vertical: 'hr', attachments: [attachment] });
    const declared = await admin.post('/api/knowledge').send(item({ name: 'manual.txt', size: tenMb + 1, content: 'x' }));
    expect({ status: declared.status, error: declared.body.error }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: 'The file is larger than 10 MB, the most an attachment can be' },
    });
    const counted = await admin.post('/api/knowledge').send(item({ name: 'manual.txt', size: tenMb + 1, content: 'a'.repeat(tenMb + 1) }));
    expect({ status: counted.status, code: counted.body.error.code }).toEqual({ status: 413, code: 'payload_too_large' });
    const unsized = await admin.post('/api/knowledge').send(item({ name: 'manual.txt', content: 'a'.repeat(tenMb + 1) }));
    expect({ status: unsized.status, error: unsized.body.error }).toEqual({ status: 413, error: { code: 'payload_too_large', message: '"manual.txt" is larger than 10 MB' } });
    // Not a size at all is still a 400.
    const negative = await admin.post('/api/knowledge').send(item({ name: 'manual.txt', size: -1, content: 'x' }));
    expect({ status: negative.status, message: negative.body.error.message }).toEqual({ status: 400, message: 'The file size must be a whole number of bytes' });
    await admin.post('/api/knowledge').send(item({ name: 'manual.txt', size: tenMb, content: 'x' })).expect(201);
  });

  it('a body over the limit is refused with its size stated right (2,097,197 bytes is 2.0 MB)', async () => {
    const json = JSON.stringify({ query: 'Hi', vertical: 'hr' });
    const res = await request(t.url).post('/interact').set('Content-Type', 'application/json').send(json + ' '.repeat(2_097_197 - json.length));
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: 'The request body is too large (2.0 MB): at most 1 MB can be sent at once.' },
    });
    const knowledge = await admin.post('/api/knowledge').set('Content-Type', 'application/json').send(' '.repeat(33 * 1024 * 1024 + 512 * 1024));
    expect(knowledge.body.error.message).toBe('The request body is too large (33.5 MB): at most 32 MB can be sent at once.');
  });

  it('a 4,001-character question is 400 query_too_long naming the question (the field is too long, not the request)', async () => {
    const res = await request(t.url).post('/interact').send({ query: 'a'.repeat(4001), vertical: 'hr' });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: { code: 'query_too_long', message: 'The question can be at most 4,000 characters long.' } });
  });

  it.each(['null', '"a question"', '42', 'true'])('a body of %s (JSON, but not an object) to every route that reads a body is 400 saying it must be an object', async (json) => {
    const doc = (await request(t.url).get('/api/openapi.json').expect(200)).body as Doc;
    let routes = 0;
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // JSON bodies only (a file upload is multipart/form-data).
        if (!operation.requestBody?.content['application/json']) continue;
        const path = route.replace(/\{[^}]+\}/g, 'x');
        const res = await (admin as unknown as Record<string, (p: string) => request.Test>)[method](path).set('Content-Type', 'application/json').send(json);
        // Steps of a sign-in in progress (the second factor) refuse a full session before reading the body.
        if (res.status === 401) continue;
        routes += 1;
        expect({ route, method, status: res.status, code: res.body.error?.code }).toEqual({ route, method, status: 400, code: 'validation_failed' });
        expect({ route, method, message: res.body.error.message }).toEqual({ route, method, message: expect.stringMatching(/as a JSON object|must be a JSON object/) });
        expect(res.body.error.message).not.toMatch(/not valid JSON|expected object/i);
      }
    }
    expect(routes).toBeGreaterThanOrEqual(20);
  });
});
