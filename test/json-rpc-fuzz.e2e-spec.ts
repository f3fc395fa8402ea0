/**
 * Fuzzing the JSON-RPC endpoints (/a2a and /mcp) with fast-check: malformed JSON, any JSON value,
 * envelopes with wrong or missing members, unknown methods, wrong params, huge parts and batch
 * arrays, with and without A2A-Version. Every answer is below 500; a JSON answer is a JSON-RPC
 * response (jsonrpc "2.0", an error with an integer code and a message, or a result; never an
 * internal error, -32603, for what the caller sent), an error to
 * a request whose id was valid carries that id, and the endpoints still answer a valid request
 * afterwards.
 */
import fc from 'fast-check';
import { adminAgent } from './support/admin-session';
import { startTestApp, type TestApp } from './support/test-app';

const A2A_METHODS = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'message/send', 'tasks/get', 'tasks/cancel'];
const MCP_METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'notifications/initialized'];
/** Over the JSON-RPC body limit (the gate answers 413 before parsing). */
const HUGE = 'x'.repeat(2_200_000);

interface Sent {
  body: string;
  /** The id of a single request object whose id is a valid JSON-RPC id. */
  id?: string | number;
}

function envelope(methods: string[]): fc.Arbitrary<Record<string, unknown>> {
  const message = fc.record(
    {
      messageId: fc.oneof(fc.uuid(), fc.string(), fc.integer()),
      role: fc.oneof(fc.constantFrom('ROLE_USER', 'user', 'agent', 'ROLE_AGENT'), fc.string(), fc.integer()),
      parts: fc.oneof(
        fc.array(fc.record({ text: fc.oneof(fc.string({ maxLength: 200 }), fc.constant('How do I reset my password?')) }), { maxLength: 3 }),
        fc.array(fc.record({ kind: fc.constant('text'), text: fc.string() })),
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      contextId: fc.oneof(fc.uuid(), fc.string({ maxLength: 50 })),
      metadata: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  );
  const params = fc.oneof(
    fc.record({ message, configuration: fc.jsonValue({ maxDepth: 2 }), metadata: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
    fc.record({ id: fc.oneof(fc.uuid(), fc.string(), fc.integer()), name: fc.oneof(fc.constantFrom('search_knowledge', 'get_article', 'ask_assistant', 'nope'), fc.string()), arguments: fc.jsonValue({ maxDepth: 2 }), uri: fc.oneof(fc.constant('kb://articles/1'), fc.string()) }, { requiredKeys: [] }),
    fc.record({ protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', '1999-01-01'), capabilities: fc.jsonValue({ maxDepth: 1 }), clientInfo: fc.record({ name: fc.string(), version: fc.string() }) }, { requiredKeys: [] }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  return fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), fc.constant('1.0'), fc.integer()),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.double(), fc.jsonValue({ maxDepth: 1 })),
      method: fc.oneof(fc.constantFrom(...methods), fc.constantFrom(...methods), fc.string({ maxLength: 30 }), fc.integer()),
      params,
    },
    { requiredKeys: [] },
  );
}

/** Requests a client that follows the protocol would send, with odd values inside. */
function wellFormed(methods: string[]): fc.Arbitrary<Sent> {
  const text = fc.oneof(fc.constantFrom('How do I reset my password?', 'What is the refund policy?', '', ' '), fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 50 }));
  const params: Record<string, fc.Arbitrary<unknown>> = {
    SendMessage: fc.record({ message: fc.record({ messageId: fc.uuid(), role: fc.constant('ROLE_USER'), parts: fc.array(fc.record({ text }), { minLength: 1, maxLength: 2 }) }) }),
    GetTask: fc.record({ id: fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })) }),
    CancelTask: fc.record({ id: fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })) }),
    ListTasks: fc.record({ pageSize: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constant(10)), contextId: fc.oneof(fc.uuid(), fc.constant('')), pageToken: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
    'tools/list': fc.constant({}),
    'resources/list': fc.constant({}),
    'tools/call': fc.record({
      name: fc.constantFrom('search_knowledge', 'get_article', 'ask_assistant'),
      arguments: fc.record({ query: text, question: text, id: fc.string({ maxLength: 40 }), vertical: fc.constantFrom('customer-service', 'hr', 'legal', 'sales', 'nope'), limit: fc.integer({ min: -1, max: 50 }) }, { requiredKeys: [] }),
    }),
    'resources/read': fc.record({ uri: fc.oneof(fc.constant('kb://articles/1'), fc.constantFrom('kb://articles/%', 'kb://articles/%zz', 'kb://articles/%E0%A4%A'), fc.string({ maxLength: 40 }).map((id) => `kb://articles/${id}`)) }),
  };
  const known = methods.filter((method) => params[method]);
  return fc
    .constantFrom(...known)
    .chain((method) => params[method].map((p) => ({ method, params: p })))
    .chain(({ method, params: p }) => fc.integer({ min: 1, max: 1_000_000 }).map((id) => ({ body: JSON.stringify({ jsonrpc: '2.0', id, method, params: p }), id })));
}

function requests(methods: string[]): fc.Arbitrary<Sent> {
  const withId = (value: Record<string, unknown>): Sent => {
    const id = value.id;
    const valid = value.jsonrpc === '2.0' && typeof value.method === 'string' && (typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)));
    return { body: JSON.stringify(value), ...(valid ? { id: id as string | number } : {}) };
  };
  return fc.oneof(
    { weight: 4, arbitrary: wellFormed(methods) },
    { weight: 5, arbitrary: envelope(methods).map(withId) },
    { weight: 2, arbitrary: fc.array(envelope(methods), { maxLength: 4 }).map((batch) => ({ body: JSON.stringify(batch) })) },
    // Well-formed requests of unknown methods: enough of them that a run always sees -32601 (half
    // the /mcp requests go without the Accept it needs, and the envelopes above rarely name one).
    {
      weight: 2,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 30 })
        .filter((method) => !methods.includes(method))
        .map((method) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: {} }), id: 9 })),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ body: JSON.stringify(value) })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 100 }).map((text) => ({ body: text })) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"jsonrpc":"2.0",', '[', 'null', '""', '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"parts":[{"text":"\\ud800"}]}}}').map((body) => ({ body })) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...methods).map((method) => ({
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: HUGE }] } } }),
        id: 7,
      })),
    },
  );
}

async function post(t: TestApp, path: string, key: string, sent: Sent, headers: Record<string, string>): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: sent.body,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** A JSON-RPC response object: jsonrpc "2.0", and either a result or an error with an integer code and a message. */
function expectResponseObject(value: unknown): void {
  expect(value).toEqual(expect.objectContaining({ jsonrpc: '2.0' }));
  const { error, result } = value as { error?: { code: unknown; message: unknown }; result?: unknown };
  if (error) {
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
  } else {
    expect(result).toBeDefined();
  }
}

/** What the answers were, by status and JSON-RPC error code ('result' for a success), to show the fuzz reached past the gate. */
const seen = new Map<string, number>();
function tally(key: string): void {
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

function check(sent: Sent, answer: { status: number; type: string; text: string }): void {
  expect(answer.status).toBeLessThan(500);
  tally(`${answer.status} ${answer.type.includes('event-stream') ? 'stream' : ''}`.trim());
  // 202: a notification or a batch of them, answered with no body.
  if (answer.status === 202 || answer.text === '') return;
  if (answer.type.includes('text/event-stream')) {
    expect(answer.text).toMatch(/^(event|data|id|:)/m);
    return;
  }
  expect(answer.type).toContain('application/json');
  const body = JSON.parse(answer.text) as unknown;
  for (const item of Array.isArray(body) ? body : [body]) {
    const error = (item as { error?: { code?: unknown; message?: unknown } }).error;
    tally(error ? `error ${String(error.code)}` : 'result');
    // An internal error is the server's fault: bad input is an invalid request or invalid params.
    if (error?.code === -32603) throw new Error(`internal error for ${sent.body.slice(0, 300)}: ${String(error.message)}`);
  }
  if (Array.isArray(body)) body.forEach(expectResponseObject);
  else {
    expectResponseObject(body);
    const error = (body as { error?: unknown; id?: unknown }).error;
    if (error && sent.id !== undefined && answer.status !== 401 && answer.status !== 403 && answer.status !== 413 && answer.status !== 429) expect((body as { id: unknown }).id).toEqual(sent.id);
  }
}

describe('JSON-RPC endpoints under fuzzing (A2A and MCP)', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({}, { chatLimits: 'lifted' });
    const admin = await adminAgent(t);
    key = (await admin.post('/api/api-keys').send({ name: 'fuzz', scopes: ['a2a', 'mcp'] }).expect(201)).body.data.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  beforeEach(() => seen.clear());
  afterEach(() => console.log([...seen].map(([key, n]) => `${key}: ${n}`).join(', ')));

  it('/a2a: any body, any envelope, with or without A2A-Version: a JSON-RPC answer below 500', async () => {
    await fc.assert(
      fc.asyncProperty(requests(A2A_METHODS), fc.boolean(), async (sent, versioned) => {
        check(sent, await post(t, '/a2a', key, sent, versioned ? { 'a2a-version': '1.0', accept: 'application/json, text/event-stream' } : {}));
      }),
      { numRuns: 150 },
    );
    // Past the gate: the SDK answered methods it knows with results and errors of its own.
    expect(seen.get('result') ?? 0).toBeGreaterThan(0);
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['error -32700', 'error -32600', 'error -32601']));
    const ok = await post(t, '/a2a', key, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'ok', role: 'ROLE_USER', parts: [{ text: 'How do I reset my password?' }] } } }) }, { 'a2a-version': '1.0' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).result).toBeDefined();
  }, 300_000);

  it('/mcp: any body, any envelope, either Accept: a JSON-RPC answer below 500', async () => {
    await fc.assert(
      fc.asyncProperty(requests(MCP_METHODS), fc.boolean(), async (sent, accepts) => {
        check(sent, await post(t, '/mcp', key, sent, accepts ? { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' } : {}));
      }),
      { numRuns: 150 },
    );
    expect(seen.get('result') ?? 0).toBeGreaterThan(0);
    expect([...seen.keys()]).toEqual(expect.arrayContaining(['error -32700', 'error -32600', 'error -32601']));
    const ok = await post(t, '/mcp', key, { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) }, { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('search_knowledge');
  }, 300_000);
});
