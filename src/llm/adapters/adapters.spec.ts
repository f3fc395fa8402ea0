/**
 * Every vendor adapter, driven through its real SDK against the mock LLM server's wire formats:
 * streaming, usage (reported and counted), failure mapping, and cancellation reaching the socket.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import { startMockLlmServer, type MockLlmServer } from '../../../test/support/mock-llm-server';
import { LlmError, type LlmChunk, type LlmProvider, type LlmRequest, type ProviderConnection } from '../llm.types';
import { countMessageTokens, countTokens } from '../token-counter';
import { AnthropicAdapter } from './anthropic.adapter';
import { AzureAdapter } from './azure.adapter';
import { listModels } from './list-models';
import { OpenAiCompatibleAdapter } from './openai-compatible.adapter';
import { OpenAiAdapter } from './openai.adapter';
import { LLM_ERROR_MESSAGES } from './provider-errors';

const KEY = 'sk-test-secret-key-0123456789';

let mock: MockLlmServer;

beforeAll(async () => {
  mock = await startMockLlmServer();
});
afterEach(() => mock.reset());
afterAll(async () => {
  await mock.close();
});

interface AdapterCase {
  name: string;
  model: string;
  connection: (overrides?: Partial<ProviderConnection>) => ProviderConnection;
  make: (conn: ProviderConnection) => LlmProvider;
}

const cases: AdapterCase[] = [
  {
    name: 'openai',
    model: 'gpt-4o-mini',
    connection: (o) => ({ provider: 'openai', apiKey: KEY, baseUrl: mock.openaiBaseUrl, ...o }),
    make: (conn) => new OpenAiAdapter(conn),
  },
  {
    name: 'azure',
    model: 'support-gpt4o',
    connection: (o) => ({
      provider: 'azure',
      apiKey: KEY,
      endpoint: mock.azureEndpoint,
      apiVersion: '2024-10-21',
      ...o,
    }),
    make: (conn) => new AzureAdapter(conn),
  },
  {
    name: 'openai-compatible',
    model: 'llama3.1:8b',
    // No /v1: the adapter adds it, as users of Ollama often omit it.
    connection: (o) => ({ provider: 'openai-compatible', apiKey: KEY, baseUrl: mock.url, ...o }),
    make: (conn) => new OpenAiCompatibleAdapter(conn),
  },
  {
    name: 'anthropic',
    model: 'claude-haiku-4-5',
    connection: (o) => ({ provider: 'anthropic', apiKey: KEY, baseUrl: mock.anthropicBaseUrl, ...o }),
    make: (conn) => new AnthropicAdapter(conn),
  },
];

function requestFor(model: string, question = 'How do I reset my password?'): LlmRequest {
  return {
    model,
    messages: [
      { role: 'system', content: 'You are a helpful support assistant.' },
      { role: 'user', content: question },
    ],
    temperature: 0.2,
    maxTokens: 300,
  };
}

async function collect(stream: AsyncIterable<LlmChunk>): Promise<{ deltas: string[]; chunks: LlmChunk[] }> {
  const chunks: LlmChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const deltas = chunks.flatMap((c) => (c.type === 'delta' ? [c.text] : []));
  return { deltas, chunks };
}

async function failureOf(work: Promise<unknown> | AsyncIterable<LlmChunk>): Promise<LlmError> {
  try {
    if (Symbol.asyncIterator in work) await collect(work);
    else await work;
  } catch (error) {
    expect(error).toBeInstanceOf(LlmError);
    return error as LlmError;
  }
  throw new Error('expected the call to fail');
}

describe.each(cases)('$name adapter', ({ name, model, connection, make }) => {
  const adapter = (overrides?: Partial<ProviderConnection>): LlmProvider => make(connection(overrides));

  it('streams deltas that join to the reply, then one vendor-reported usage', async () => {
    mock.configure({ tokens: 12 });
    const { deltas, chunks } = await collect(adapter().stream(requestFor(model), new AbortController().signal));

    expect(deltas.join('')).toBe('tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7 tok8 tok9 tok10 tok11');
    expect(deltas.length).toBe(12);
    const usages = chunks.filter((c) => c.type === 'usage');
    expect(usages).toHaveLength(1);
    expect(chunks[chunks.length - 1].type).toBe('usage');

    const [record] = mock.requests;
    expect(record.usage).toBeDefined();
    expect(usages[0]).toEqual({
      type: 'usage',
      usage: { promptTokens: record.usage!.promptTokens, completionTokens: 12, reported: true },
    });
    expect(record.stream).toBe(true);
    expect(record.temperature).toBe(0.2);
    expect(record.maxTokens).toBe(300);
    expect(record.apiKey).toBe(KEY);
  });

  it(`${name === 'openai-compatible' ? 'also reads' : 'reads'} a tool call: offered tools go out in the vendor's format, a call comes back once`, async () => {
    mock.configure({ tokens: 2, toolCall: 'request_human' });
    const tools = [{ name: 'request_human', description: 'Hand the conversation to a person.', parameters: { type: 'object', properties: { reason: { type: 'string' } } } }];
    const { deltas, chunks } = await collect(adapter().stream({ ...requestFor(model), tools }, new AbortController().signal));
    expect(deltas.join('')).toBe('tok0 tok1');
    expect(chunks.filter((c) => c.type === 'tool')).toEqual([{ type: 'tool', name: 'request_human' }]);
    expect(chunks[chunks.length - 1].type).toBe('usage');
    const body = mock.requests[0].body as { tools?: unknown[] };
    expect(body.tools).toEqual([
      name === 'anthropic'
        ? { name: 'request_human', description: 'Hand the conversation to a person.', input_schema: { type: 'object', properties: { reason: { type: 'string' } } } }
        : { type: 'function', function: { name: 'request_human', description: 'Hand the conversation to a person.', parameters: { type: 'object', properties: { reason: { type: 'string' } } } } },
    ]);
  });

  it('sends no tools when none are offered', async () => {
    mock.configure({ tokens: 2 });
    await collect(adapter().stream(requestFor(model), new AbortController().signal));
    expect((mock.requests[0].body as { tools?: unknown }).tools).toBeUndefined();
  });

  it('streams a fixed reply exactly, whitespace included', async () => {
    const reply = 'Open Settings, then choose "Reset password".\n\nYou will get an e-mail within 5 minutes.';
    mock.configure({ reply });
    const { deltas } = await collect(adapter().stream(requestFor(model), new AbortController().signal));
    expect(deltas.join('')).toBe(reply);
  });

  it('counts usage itself when the provider reports none', async () => {
    mock.configure({ omitUsage: true, tokens: 5 });
    const request = requestFor(model);
    const { deltas, chunks } = await collect(adapter().stream(request, new AbortController().signal));

    expect(mock.requests[0].usage).toBeUndefined();
    expect(chunks[chunks.length - 1]).toEqual({
      type: 'usage',
      usage: {
        promptTokens: countMessageTokens(request.messages),
        completionTokens: countTokens(deltas.join('')),
        reported: false,
      },
    });
  });

  it('maps 429 to rate_limited', async () => {
    mock.configure({ status: 429 });
    const error = await failureOf(adapter().stream(requestFor(model), new AbortController().signal));
    expect(error.kind).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.message).toBe('The AI provider is rate limiting requests right now');
    expect(mock.requests).toHaveLength(1); // no SDK retries
  });

  it('maps a per-request [mock:500] marker to upstream_error with the status', async () => {
    const request = requestFor(model, 'Where is my parcel? [mock:500]');
    const error = await failureOf(adapter().stream(request, new AbortController().signal));
    expect(error.kind).toBe('upstream_error');
    expect(error.status).toBe(500);
    expect(error.message).toContain('500');
    expect(mock.requests).toHaveLength(1);
  });

  it('maps a malformed stream to bad_response', async () => {
    mock.configure({ malformed: true, tokens: 6 });
    const deltas: string[] = [];
    const error = await failureOf(
      (async function* () {
        for await (const chunk of adapter().stream(requestFor(model), new AbortController().signal)) {
          if (chunk.type === 'delta') deltas.push(chunk.text);
          yield chunk;
        }
      })(),
    );
    expect(error.kind).toBe('bad_response');
    expect(deltas.join('')).toBe('tok0 tok1 tok2'); // what arrived before the broken line
  });

  it('maps a refused key to auth without revealing the key', async () => {
    mock.configure({ validKeys: ['the-right-key'] });
    const error = await failureOf(adapter().stream(requestFor(model), new AbortController().signal));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('the-right-key');
  });

  it('cancels mid-stream, and the provider sees its connection closed within 1 s', async () => {
    mock.configure({ tokens: 500, delayMs: 20 });
    const controller = new AbortController();
    const deltas: string[] = [];
    let abortedAt = 0;
    const error = await failureOf(
      (async function* () {
        for await (const chunk of adapter().stream(requestFor(model), controller.signal)) {
          if (chunk.type === 'delta') deltas.push(chunk.text);
          if (deltas.length === 3 && !controller.signal.aborted) {
            abortedAt = Date.now();
            controller.abort();
          }
          yield chunk;
        }
      })(),
    );
    expect(error.kind).toBe('cancelled');
    expect(deltas.length).toBeLessThan(10);

    const record = await mock.waitForClose(mock.requests[0], 2000);
    expect(record.completed).toBe(false);
    expect(record.closedAt! - abortedAt).toBeLessThan(1000);
    expect(record.tokensSent).toBeLessThan(100);
  });

  it('cancels a request the provider never answers', async () => {
    mock.configure({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await failureOf(adapter().stream(requestFor(model), controller.signal));
    expect(error.kind).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(2000);

    const record = await mock.waitForClose(mock.requests[0], 2000);
    expect(record.status).toBeUndefined();
    expect(record.completed).toBe(false);
  });

  it('reports timeout when the signal aborts with a TimeoutError', async () => {
    mock.configure({ hangAfterTokens: 2 });
    const error = await failureOf(adapter().stream(requestFor(model), AbortSignal.timeout(300)));
    expect(error.kind).toBe('timeout');
    await mock.waitForClose(mock.requests[0], 2000);
  });

  it('does not call the provider when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failureOf(adapter().stream(requestFor(model), controller.signal));
    expect(error.kind).toBe('cancelled');
    expect(mock.requests).toHaveLength(0);
  });

  it('maps a refused connection to unreachable', async () => {
    const port = await closedPort();
    const address = `http://127.0.0.1:${port}`;
    const overrides: Partial<ProviderConnection> =
      name === 'azure' ? { endpoint: address } : { baseUrl: name === 'openai' ? `${address}/v1` : address };
    const error = await failureOf(adapter(overrides).stream(requestFor(model), new AbortController().signal));
    expect(error.kind).toBe('unreachable');
  });

  it('lists models, and maps a refused key to auth', async () => {
    mock.configure({ models: ['model-a', 'model-b'] });
    await expect(listModels(connection(), new AbortController().signal)).resolves.toEqual(['model-a', 'model-b']);

    mock.configure({ validKeys: ['another-key'] });
    const error = await failureOf(listModels(connection(), new AbortController().signal));
    expect(error.kind).toBe('auth');
    expect(error.message).not.toContain(KEY);
  });
});

describe('vendor specifics on the wire', () => {
  it('openai: bearer key, include_usage, max_completion_tokens', async () => {
    const conn: ProviderConnection = { provider: 'openai', apiKey: KEY, baseUrl: mock.openaiBaseUrl };
    await collect(new OpenAiAdapter(conn).stream(requestFor('gpt-4o-mini'), new AbortController().signal));
    const [record] = mock.requests;
    expect(record.path).toBe('/v1/chat/completions');
    expect(record.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(record.includeUsage).toBe(true);
    expect(record.body).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 300 });
    expect(record.messages?.[0]).toEqual({ role: 'system', content: 'You are a helpful support assistant.' });
  });

  it('azure: deployment path, api-version query and api-key header', async () => {
    const conn: ProviderConnection = {
      provider: 'azure',
      apiKey: KEY,
      endpoint: `${mock.azureEndpoint}/`,
      apiVersion: '2024-10-21',
    };
    const { deltas } = await collect(
      new AzureAdapter(conn).stream(requestFor('support-gpt4o'), new AbortController().signal),
    );
    expect(deltas.join('')).toBe('tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7');
    const [record] = mock.requests;
    expect(record.vendor).toBe('azure');
    expect(record.path).toBe('/openai/deployments/support-gpt4o/chat/completions');
    expect(record.deployment).toBe('support-gpt4o');
    expect(record.query['api-version']).toBe('2024-10-21');
    expect(record.headers['api-key']).toBe(KEY);
    expect(record.headers['authorization']).toBeUndefined();
  });

  it('azure: older API versions get max_tokens', async () => {
    const conn: ProviderConnection = {
      provider: 'azure',
      apiKey: KEY,
      endpoint: mock.azureEndpoint,
      apiVersion: '2024-06-01',
    };
    await collect(new AzureAdapter(conn).stream(requestFor('dep'), new AbortController().signal));
    expect(mock.requests[0].body).toMatchObject({ max_tokens: 300 });
    expect(mock.requests[0].query['api-version']).toBe('2024-06-01');
  });

  it('azure: lists models from /openai/models with the api-version', async () => {
    const conn: ProviderConnection = { provider: 'azure', apiKey: KEY, endpoint: mock.azureEndpoint, apiVersion: '2024-10-21' };
    await expect(listModels(conn, new AbortController().signal)).resolves.toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(mock.requests[0].path).toBe('/openai/models');
    expect(mock.requests[0].query['api-version']).toBe('2024-10-21');
  });

  it('anthropic: system prompt sent apart, key as bearer (SDK 1.x), max_tokens defaulted', async () => {
    const conn: ProviderConnection = { provider: 'anthropic', apiKey: KEY, baseUrl: `${mock.url}/v1` };
    const request: LlmRequest = {
      model: 'claude-haiku-4-5',
      messages: [
        { role: 'system', content: 'You are a helpful support assistant.' },
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Bonjour' },
        { role: 'assistant', content: 'Bonjour !' },
        { role: 'user', content: 'Mon colis ?' },
      ],
    };
    await collect(new AnthropicAdapter(conn).stream(request, new AbortController().signal));
    const [record] = mock.requests;
    expect(record.path).toBe('/v1/messages');
    // SDK 1.x sends the API key as `Authorization: Bearer`, no longer as `x-api-key`.
    expect(record.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(record.headers['anthropic-version']).toBeTruthy();
    expect(record.system).toBe('You are a helpful support assistant.\n\nAnswer in French.');
    expect(record.messages).toEqual([
      { role: 'user', content: 'Bonjour' },
      { role: 'assistant', content: 'Bonjour !' },
      { role: 'user', content: 'Mon colis ?' },
    ]);
    expect(record.maxTokens).toBe(1024);
    expect(record.temperature).toBeUndefined();
  });

  it('anthropic: 529 overloaded maps to upstream_error', async () => {
    mock.configure({ status: 529 });
    const conn: ProviderConnection = { provider: 'anthropic', apiKey: KEY, baseUrl: mock.anthropicBaseUrl };
    const error = await failureOf(new AnthropicAdapter(conn).stream(requestFor('claude-haiku-4-5'), new AbortController().signal));
    expect(error).toMatchObject({ kind: 'upstream_error', status: 529 });
  });

  it('openai-compatible: works without a key and sends max_tokens', async () => {
    const conn: ProviderConnection = { provider: 'openai-compatible', baseUrl: `${mock.url}/v1/` };
    const { chunks } = await collect(
      new OpenAiCompatibleAdapter(conn).stream(requestFor('llama3.1:8b'), new AbortController().signal),
    );
    expect(chunks.at(-1)).toMatchObject({ type: 'usage', usage: { reported: true } });
    expect(mock.requests[0].path).toBe('/v1/chat/completions');
    expect(mock.requests[0].body).toMatchObject({ max_tokens: 300 });
  });

  it('reports a missing key or address as a configuration problem, not a crash', async () => {
    const signal = new AbortController().signal;
    const missingKey = await failureOf(new OpenAiAdapter({ provider: 'openai' }).stream(requestFor('m'), signal));
    expect(missingKey).toMatchObject({ kind: 'auth', message: LLM_ERROR_MESSAGES.missingKey });
    const missingEndpoint = await failureOf(
      new AzureAdapter({ provider: 'azure', apiKey: KEY }).stream(requestFor('m'), signal),
    );
    expect(missingEndpoint.kind).toBe('unreachable');
    await expect(listModels({ provider: 'local' }, signal)).resolves.toEqual([]);
  });
});

describe('mock-llm-server knobs', () => {
  it('takes a per-request scenario from the x-mock-scenario header', async () => {
    const response = await fetch(`${mock.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-mock-scenario': JSON.stringify({ status: 429, retryAfterSeconds: 7 }) },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
  });

  it('answers stream:false with one completion and usage', async () => {
    const response = await fetch(`${mock.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi [mock:tokens=3]' }] }),
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }>; usage: unknown };
    expect(body.choices[0].message.content).toBe('tok0 tok1 tok2');
    expect(body.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  it('refuses Azure requests without an api-key header', async () => {
    const response = await fetch(`${mock.url}/openai/deployments/d/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(401);
  });

  it('close() ends hanging connections', async () => {
    const own = await startMockLlmServer({ hang: true });
    const pending = fetch(`${own.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    }).catch((error: unknown) => error);
    const [record] = await own.waitForRequests(1);
    await own.close();
    expect(String(await pending)).toMatch(/fetch failed/); // the socket was destroyed
    expect(record.closedAt).toBeDefined();
    expect(record.completed).toBe(false);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
