/**
 * A real HTTP server that speaks the LLM vendors' wire formats, so tests and benchmarks can point
 * the official SDKs at it by base URL and exercise every byte of the streaming path.
 *
 * Endpoints
 * - OpenAI (and OpenAI-compatible servers: Ollama, vLLM, llama.cpp):
 *     POST /v1/chat/completions   stream:true -> SSE `data: {chat.completion.chunk}` ... `data: [DONE]`;
 *                                 `stream_options.include_usage` adds a final chunk with `usage` and
 *                                 empty `choices`. stream:false -> one `chat.completion` JSON.
 *     GET  /v1/models             `{object:'list', data:[{id, object:'model', ...}]}`
 *     POST /v1/embeddings         `{object:'list', data:[{object:'embedding', index, embedding}], model, usage}`:
 *                                 deterministic vectors (`mockEmbedding`: a hashed bag of crudely
 *                                 stemmed words, L2-normalised, `embeddings.dimensions` long, 64 by
 *                                 default), as float arrays or, with `encoding_format: 'base64'` (what
 *                                 the openai SDK asks for), little-endian float32 in base64. Knobs
 *                                 `embeddings: {status, delayMs, hang, dimensions}` make it fail, slow
 *                                 or silent without touching chat completions.
 *     POST /v1/audio/transcriptions  multipart (`file`, `model`, optional `language`,
 *                                 `response_format`): the file must be audio (a WAV, WebM, Ogg, MP3,
 *                                 MP4 or FLAC header; 400 otherwise, as OpenAI answers); answers
 *                                 `{text}` with `transcription.text` ("how do I reset my password" by
 *                                 default). The record holds `audio` (format, bytes, file name, type,
 *                                 model, language). Knobs `transcription: {status, delayMs, text}`.
 *   Key: `Authorization: Bearer <key>`.
 * - Anthropic:
 *     POST /v1/messages           stream:true -> SSE events message_start, content_block_start, ping,
 *                                 content_block_delta (text_delta)..., content_block_stop,
 *                                 message_delta (stop_reason, usage.output_tokens), message_stop.
 *                                 stream:false -> one `message` JSON.
 *     GET  /v1/models             `{data:[{type:'model', id, ...}], has_more, first_id, last_id}`
 *   Key: `x-api-key` or `Authorization: Bearer` (SDK 1.x sends the key as a bearer). Like the real API it requires the
 *   `anthropic-version` header (any value; SDK 1.x sends 2026-10-21) and `max_tokens` (400).
 *   `GET /v1/models` is answered in Anthropic's shape when the request carries `anthropic-version`.
 * - Azure OpenAI:
 *     POST /openai/deployments/{deployment}/chat/completions?api-version=...  (OpenAI format; the
 *                                 reported model is the deployment; the first chunk carries
 *                                 `prompt_filter_results` and no choices, as Azure sends it)
 *     POST /openai/deployments/{deployment}/embeddings?api-version=...  (as /v1/embeddings)
 *     POST /openai/deployments/{deployment}/audio/transcriptions?api-version=...  (as above)
 *     GET  /openai/models?api-version=...
 *   Key: the `api-key` header is required (401 without it); `api-version` is required (404).
 *
 * Knobs (`MockScenario`), applied in this order, later ones winning:
 * 1. defaults (`DEFAULT_SCENARIO`: 8 tokens, no delay, usage reported);
 * 2. the server's configuration: `startMockLlmServer(partial)`, then `configure(partial)`;
 *    `reset()` returns to the configuration given at start;
 * 3. a per-request HTTP header `x-mock-scenario: {"status":429,"tokens":3}` (JSON, no functions);
 * 4. markers in the last user message, e.g. `[mock:429]`, `[mock:tokens=20;delay=5]`. Directives,
 *    separated by `;` inside one marker (several markers may appear):
 *      `429`, `500`, any 3-digit status  -> answer with that HTTP error (vendor error JSON;
 *                                          429 carries `retry-after`)
 *      `hang`                            -> read the request, never answer until the client leaves
 *      `hang-after=N`                    -> stream N tokens, then stall until the client leaves
 *      `malformed`                       -> stream half the tokens, then a broken JSON data line,
 *                                          then end the response
 *      `no-usage`                        -> omit usage (OpenAI: no usage chunk/field;
 *                                          Anthropic: no usage in message_start/message_delta)
 *      `tokens=N`, `delay=MS`, `first-delay=MS`, `retry-after=S`
 *      `reply=TEXT`                      -> reply with TEXT (up to the closing bracket)
 *      `tool=NAME`                       -> after the reply, a call of the tool NAME (tool_calls / tool_use)
 *
 * Question rewrites: a chat request whose system message asks to rewrite the user's question (it
 * says "Rewrite the user's question", as src/retrieval/question-rewrite.ts does) is answered with
 * `rewrites[question]` when that is set, else with the question unchanged, instead of the usual
 * reply: a deterministic translator for known questions.
 *
 * The reply: `reply` when given (a string, or in `configure` a function of the request record),
 * split into word pieces each carrying its leading whitespace; otherwise `tokens` pieces
 * "tok0", " tok1", " tok2", ... Each piece is one delta and counts as one completion token.
 * Prompt tokens are the whitespace-separated words of all messages and the system prompt plus
 * 3 per message (`record.usage` holds what was reported, so tests need not recompute it).
 *
 * `validKeys`: when set, any other key (or none) gets 401 in the vendor's shape. The OpenAI-shaped
 * 401 deliberately echoes the rejected key in its message so tests can prove that adapters never
 * pass vendor error text through to visitors.
 *
 * Every request is recorded (`requests`, `MockRequestRecord`): path, query, all headers, the key,
 * the parsed body and its main fields, the scenario applied, the status sent, the usage reported,
 * and when the connection closed (`closedAt`) and whether the response had completed by then
 * (`completed`). `waitForRequests(n)` and `waitForClose(record)` let tests await both.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type MockVendor = 'openai' | 'anthropic' | 'azure';

/** What the mock does for a request. Every field can be set per server and per request. */
export interface MockScenario {
  /** Number of pieces of the derived reply ("tok0 tok1 ..."). Ignored when `reply` is set. */
  tokens: number;
  /** Delay between two pieces, in ms. */
  delayMs: number;
  /** Delay between the response headers and the first piece, in ms. */
  firstTokenDelayMs: number;
  /** A fixed reply (or, through `configure`, a function of the request) instead of "tok0 tok1 ...". */
  reply?: string | ((request: MockRequestRecord) => string);
  /** Answer with this HTTP error status instead of a reply (429, 500, 401, 503, 529, ...). */
  status?: number;
  /** `retry-after` seconds sent with a 429. */
  retryAfterSeconds: number;
  /** Read the request and never answer; the connection stays open until the client closes it. */
  hang: boolean;
  /** Stream this many pieces, then stall until the client closes the connection. */
  hangAfterTokens?: number;
  /** Stream half the pieces, then a data line holding broken JSON, then end the response. */
  malformed: boolean;
  /** Report no usage at all. */
  omitUsage: boolean;
  /** Only these keys are accepted; others (and none) get 401. Unset: any key is accepted. */
  validKeys?: string[];
  /** Model ids returned by the models endpoints. Unset: a few of the vendor's usual ids. */
  models?: string[];
  /** Call this tool (by name) after the reply's pieces, as the vendor streams a tool call (`[mock:tool=request_human]`). */
  toolCall?: string;
  /** Question rewrite requests (see above): the rewrite of each known question. */
  rewrites?: Record<string, string>;
  /** The embeddings endpoints: fail with `status`, answer after `delayMs`, never answer (`hang`), vector length. */
  embeddings?: { status?: number; delayMs?: number; hang?: boolean; dimensions?: number };
  /** The transcription endpoints: fail with `status`, answer after `delayMs`, answer `text`. */
  transcription?: { status?: number; delayMs?: number; text?: string };
}

/** What the transcription endpoints answer by default. */
export const MOCK_TRANSCRIPT = 'how do I reset my password';

/** A transcription upload as the mock read it. */
export interface MockAudioUpload {
  /** The container by its header bytes; undefined when the file was no audio. */
  format?: 'wav' | 'webm' | 'ogg' | 'mp3' | 'mp4' | 'flac';
  bytes: number;
  /** The file's bytes. */
  data?: Buffer;
  fileName?: string;
  contentType?: string;
  /** WAV only: the header's sample rate and channels, and the length of its data in seconds. */
  wav?: { sampleRate: number; channels: number; seconds: number };
  language?: string;
  responseFormat?: string;
}

/** The scenario as applied to one request (`reply` resolved to text). */
export type AppliedScenario = Omit<MockScenario, 'reply'> & { reply?: string };

export const DEFAULT_SCENARIO: Readonly<MockScenario> = Object.freeze({
  tokens: 8,
  delayMs: 0,
  firstTokenDelayMs: 0,
  retryAfterSeconds: 1,
  hang: false,
  malformed: false,
  omitUsage: false,
});

/** One request as the mock saw it. */
export interface MockRequestRecord {
  /** 1-based, in arrival order. */
  id: number;
  vendor: MockVendor;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** Every request header, names lower-cased. */
  headers: Record<string, string>;
  /** The key from `authorization: Bearer`, `x-api-key` or `api-key`. */
  apiKey?: string;
  /** The parsed JSON body (undefined for GET or an unparseable body). */
  body?: unknown;
  model?: string;
  /** Azure: the deployment named in the path. */
  deployment?: string;
  /** Azure: the `api-version` query parameter. */
  apiVersion?: string;
  messages?: Array<{ role: string; content: unknown }>;
  /** Anthropic: the top-level `system` field. */
  system?: unknown;
  temperature?: number;
  /** `max_tokens`, or OpenAI's `max_completion_tokens`. */
  maxTokens?: number;
  stream: boolean;
  /** OpenAI: whether `stream_options.include_usage` was set. */
  includeUsage: boolean;
  scenario: AppliedScenario;
  /** The HTTP status sent; undefined while the request hangs unanswered. */
  status?: number;
  /** What the request was for. */
  kind: 'chat' | 'models' | 'embeddings' | 'rewrite' | 'transcription';
  /** Transcription requests: the uploaded file as read. */
  audio?: MockAudioUpload;
  /** Embeddings requests: the texts to embed. */
  input?: string[];
  /** The full reply the mock meant to send (chat requests only). */
  replyText?: string;
  /** How many reply pieces were written. */
  tokensSent: number;
  /** The usage the mock reported, if it reported any. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Epoch ms when the request was received. */
  receivedAt: number;
  /** Epoch ms when the connection for this response closed (after the end or by the client). */
  closedAt?: number;
  /** Whether the mock had finished writing the response when the connection closed. */
  completed: boolean;
}

type Waiter = { check: () => boolean; resolve: () => void };

/** Starts a mock on 127.0.0.1 and an OS-chosen port. */
export async function startMockLlmServer(config: Partial<MockScenario> = {}): Promise<MockLlmServer> {
  const server = new MockLlmServer(config);
  await server.listen();
  return server;
}

export class MockLlmServer {
  /** Every request received since start or the last `reset()`, in arrival order. */
  readonly requests: MockRequestRecord[] = [];

  private readonly initialConfig: Partial<MockScenario>;
  private config: Partial<MockScenario>;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private waiters: Waiter[] = [];
  private nextId = 1;
  private baseUrl = '';

  constructor(config: Partial<MockScenario> = {}) {
    this.initialConfig = { ...config };
    this.config = { ...config };
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`mock-llm-server failure: ${String(error)}`);
        }
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  get url(): string {
    return this.baseUrl;
  }

  /** Base URL for the OpenAI SDK and OpenAI-compatible clients (`url` + '/v1'). */
  get openaiBaseUrl(): string {
    return `${this.baseUrl}/v1`;
  }

  /** Base URL for the Anthropic SDK (it appends /v1 itself). */
  get anthropicBaseUrl(): string {
    return this.baseUrl;
  }

  /** Endpoint for the Azure OpenAI client (it appends /openai itself). */
  get azureEndpoint(): string {
    return this.baseUrl;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  /** Merges `partial` into the server's configuration (a field set to undefined is cleared). */
  configure(partial: Partial<MockScenario>): this {
    this.config = { ...this.config, ...partial };
    return this;
  }

  /** Forgets recorded requests and returns to the configuration given at start. */
  reset(): void {
    this.requests.length = 0;
    this.config = { ...this.initialConfig };
  }

  /** Resolves with the first `n` records once at least `n` requests have arrived. */
  waitForRequests(n: number, timeoutMs = 5000): Promise<MockRequestRecord[]> {
    return this.waitFor(
      () => this.requests.length >= n,
      timeoutMs,
      () => `expected ${n} request(s), saw ${this.requests.length}`,
    ).then(() => this.requests.slice(0, n));
  }

  /** Resolves with the record once its connection has closed. */
  waitForClose(record: MockRequestRecord, timeoutMs = 5000): Promise<MockRequestRecord> {
    return this.waitFor(
      () => record.closedAt !== undefined,
      timeoutMs,
      () => `request ${record.id} (${record.path}) still open`,
    ).then(() => record);
  }

  /** Stops listening and destroys every open connection, hanging ones included. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private waitFor(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`mock-llm-server: timed out after ${timeoutMs} ms: ${describe()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => w.check());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }

  // ---------------------------------------------------------------------------------------------
  // Routing

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://mock.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const headers = lowerCaseHeaders(req);
    const rawBytes = await readBodyBytes(req);
    const rawBody = rawBytes.toString('utf8');
    const body = parseJson(rawBody);

    const azureChat = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
    const azureEmbeddings = /^\/openai\/deployments\/([^/]+)\/embeddings$/.exec(path);
    const azureTranscription = /^\/openai\/deployments\/([^/]+)\/audio\/transcriptions$/.exec(path);
    const route: { vendor: MockVendor; kind: 'chat' | 'models' | 'embeddings' | 'transcription' } | undefined =
      req.method === 'POST' && path === '/v1/chat/completions' ? { vendor: 'openai', kind: 'chat' }
      : req.method === 'POST' && path === '/v1/audio/transcriptions' ? { vendor: 'openai', kind: 'transcription' }
      : req.method === 'POST' && azureTranscription ? { vendor: 'azure', kind: 'transcription' }
      : req.method === 'POST' && path === '/v1/embeddings' ? { vendor: 'openai', kind: 'embeddings' }
      : req.method === 'POST' && azureEmbeddings ? { vendor: 'azure', kind: 'embeddings' }
      : req.method === 'POST' && path === '/v1/messages' ? { vendor: 'anthropic', kind: 'chat' }
      : req.method === 'POST' && azureChat ? { vendor: 'azure', kind: 'chat' }
      : req.method === 'GET' && path === '/v1/models' ?
        { vendor: headers['anthropic-version'] ? 'anthropic' : 'openai', kind: 'models' }
      : req.method === 'GET' && path === '/openai/models' ? { vendor: 'azure', kind: 'models' }
      : undefined;

    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `mock-llm-server: no route for ${req.method} ${path}` } }));
      return;
    }

    const multipart = route.kind === 'transcription' ? parseMultipart(headers['content-type'] ?? '', rawBytes) : undefined;
    const fields = multipart ? Object.fromEntries(multipart.filter((p) => p.fileName === undefined).map((p) => [p.name, p.data.toString('utf8')])) : undefined;
    const record = this.record(req, res, route.vendor, path, url, headers, fields ?? body, azureChat?.[1] ?? azureEmbeddings?.[1] ?? azureTranscription?.[1], route.kind);
    if (multipart) {
      const file = multipart.find((p) => p.name === 'file');
      record.audio = file
        ? { ...audioOf(file.data), bytes: file.data.length, data: file.data, fileName: file.fileName, contentType: file.contentType, language: fields?.['language'], responseFormat: fields?.['response_format'] }
        : { bytes: 0 };
    }

    if (!this.authorize(record, res)) return;
    if (record.vendor === 'azure' && !record.apiVersion) {
      this.sendJson(record, res, 404, { error: { code: '404', message: 'Resource not found' } });
      return;
    }
    if (route.kind === 'embeddings') {
      await this.sendEmbeddings(record, res);
      return;
    }
    if (route.kind === 'transcription') {
      await this.sendTranscription(record, res);
      return;
    }
    if (record.scenario.hang) return; // Never answer; `closedAt` is set when the client leaves.
    if (record.scenario.status !== undefined && record.scenario.status >= 400) {
      this.sendError(record, res, record.scenario.status);
      return;
    }

    if (route.kind === 'models') {
      this.sendModels(record, res);
      return;
    }
    const invalid = this.validateChat(record);
    if (invalid) {
      this.sendError(record, res, 400, invalid);
      return;
    }

    const pieces = splitReply(record.replyText ?? '');
    const usage = { promptTokens: promptTokensOf(record), completionTokens: pieces.length };
    const closed = closedSignal(res);
    if (!record.stream) {
      await this.sendCompletion(record, res, pieces, usage, closed);
    } else if (record.vendor === 'anthropic') {
      await this.streamAnthropic(record, res, pieces, usage, closed);
    } else {
      await this.streamOpenAi(record, res, pieces, usage, closed);
    }
  }

  private record(
    req: IncomingMessage,
    res: ServerResponse,
    vendor: MockVendor,
    path: string,
    url: URL,
    headers: Record<string, string>,
    body: unknown,
    deployment: string | undefined,
    kind: 'chat' | 'models' | 'embeddings' | 'transcription',
  ): MockRequestRecord {
    const json = isObject(body) ? body : {};
    const bearer = /^Bearer\s+(.+)$/i.exec(headers['authorization'] ?? '')?.[1];
    const messages = Array.isArray(json['messages'])
      ? (json['messages'] as Array<{ role: string; content: unknown }>)
      : undefined;
    const streamOptions = isObject(json['stream_options']) ? json['stream_options'] : {};
    const record: MockRequestRecord = {
      id: this.nextId++,
      vendor,
      method: req.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      headers,
      apiKey: vendor === 'azure' ? headers['api-key'] : (headers['x-api-key'] ?? bearer ?? headers['api-key']),
      body,
      model: vendor === 'azure' && deployment ? deployment : asString(json['model']),
      deployment,
      apiVersion: url.searchParams.get('api-version') ?? undefined,
      messages,
      system: json['system'],
      temperature: asNumber(json['temperature']),
      maxTokens: asNumber(json['max_tokens']) ?? asNumber(json['max_completion_tokens']),
      stream: json['stream'] === true,
      includeUsage: streamOptions['include_usage'] === true,
      scenario: DEFAULT_SCENARIO as AppliedScenario,
      kind: kind === 'chat' && isRewriteRequest(messages) ? 'rewrite' : kind,
      ...(kind === 'embeddings' ? { input: typeof json['input'] === 'string' ? [json['input']] : Array.isArray(json['input']) ? json['input'].map(String) : [] } : {}),
      tokensSent: 0,
      receivedAt: Date.now(),
      completed: false,
    };
    record.scenario = this.scenarioFor(record, headers, messages);
    if (record.kind === 'rewrite') {
      const question = lastUserText(messages).trim();
      record.replyText = record.scenario.rewrites?.[question] ?? question;
    } else if (record.kind === 'chat') record.replyText = replyFor(record.scenario);

    res.on('close', () => {
      record.closedAt = Date.now();
      record.completed = res.writableFinished;
      this.notify();
    });
    this.requests.push(record);
    this.notify();
    return record;
  }

  private scenarioFor(
    record: MockRequestRecord,
    headers: Record<string, string>,
    messages: MockRequestRecord['messages'],
  ): AppliedScenario {
    const fromHeader = headers['x-mock-scenario'] ? parseJson(headers['x-mock-scenario']) : undefined;
    const merged: MockScenario = {
      ...DEFAULT_SCENARIO,
      ...this.config,
      ...(isObject(fromHeader) ? (fromHeader as Partial<MockScenario>) : {}),
      ...markersIn(lastUserText(messages)),
    };
    const reply = typeof merged.reply === 'function' ? merged.reply(record) : merged.reply;
    return { ...merged, reply };
  }

  // ---------------------------------------------------------------------------------------------
  // Checks and errors

  /** Applies the vendor's key rules; answers 401 and returns false when the key is refused. */
  private authorize(record: MockRequestRecord, res: ServerResponse): boolean {
    if (record.vendor === 'anthropic' && !record.headers['anthropic-version']) {
      this.sendError(record, res, 400, 'anthropic-version: header is required');
      return false;
    }
    const { validKeys } = record.scenario;
    const missingAzureKey = record.vendor === 'azure' && !record.apiKey;
    const refused = validKeys !== undefined && (!record.apiKey || !validKeys.includes(record.apiKey));
    if (missingAzureKey || refused) {
      this.sendError(record, res, 401);
      return false;
    }
    return true;
  }

  /** Returns a message when the body breaks a rule the real vendor enforces. */
  private validateChat(record: MockRequestRecord): string | undefined {
    if (record.vendor !== 'azure' && !record.model) return 'model: Field required';
    if (!record.messages || record.messages.length === 0) return 'messages: at least one message is required';
    if (record.vendor === 'anthropic' && record.maxTokens === undefined) return 'max_tokens: Field required';
    return undefined;
  }

  private sendError(record: MockRequestRecord, res: ServerResponse, status: number, detail?: string): void {
    const extraHeaders: Record<string, string> = {};
    if (status === 429) {
      extraHeaders['retry-after'] = String(record.scenario.retryAfterSeconds);
      if (record.vendor === 'azure') extraHeaders['retry-after-ms'] = String(record.scenario.retryAfterSeconds * 1000);
    }
    this.sendJson(record, res, status, errorBody(record, status, detail), extraHeaders);
  }

  private sendJson(
    record: MockRequestRecord,
    res: ServerResponse,
    status: number,
    payload: unknown,
    extraHeaders: Record<string, string> = {},
  ): void {
    record.status = status;
    res.writeHead(status, {
      'content-type': 'application/json',
      [record.vendor === 'anthropic' ? 'request-id' : 'x-request-id']: `req_mock_${record.id}`,
      ...extraHeaders,
    });
    res.end(JSON.stringify(payload));
  }

  // ---------------------------------------------------------------------------------------------
  // Successful answers

  /** POST /v1/embeddings (and Azure's): deterministic vectors, or the failure the `embeddings` knob asks for. */
  private async sendEmbeddings(record: MockRequestRecord, res: ServerResponse): Promise<void> {
    const knobs = record.scenario.embeddings ?? {};
    if (knobs.hang || record.scenario.hang) return;
    const closed = closedSignal(res);
    if (knobs.delayMs) await closed.sleep(knobs.delayMs);
    if (closed.isClosed) return;
    const status = knobs.status ?? record.scenario.status;
    if (status !== undefined && status >= 400) {
      this.sendError(record, res, status);
      return;
    }
    const input = record.input ?? [];
    if (input.length === 0 || (record.vendor !== 'azure' && !record.model)) {
      this.sendError(record, res, 400, input.length === 0 ? 'input: at least one text is required' : 'model: Field required');
      return;
    }
    const base64 = isObject(record.body) && record.body['encoding_format'] === 'base64';
    const dims = knobs.dimensions ?? 64;
    const tokens = input.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
    record.usage = { promptTokens: tokens, completionTokens: 0 };
    this.sendJson(record, res, 200, {
      object: 'list',
      model: record.model,
      data: input.map((text, index) => {
        const vector = mockEmbedding(text, dims);
        return { object: 'embedding', index, embedding: base64 ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64') : Array.from(vector) };
      }),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  /** POST /v1/audio/transcriptions (and Azure's): `{text}` for an audio file, 400 for anything else. */
  private async sendTranscription(record: MockRequestRecord, res: ServerResponse): Promise<void> {
    const knobs = record.scenario.transcription ?? {};
    if (record.scenario.hang) return;
    const closed = closedSignal(res);
    if (knobs.delayMs) await closed.sleep(knobs.delayMs);
    if (closed.isClosed) return;
    const status = knobs.status ?? record.scenario.status;
    if (status !== undefined && status >= 400) {
      this.sendError(record, res, status);
      return;
    }
    const audio = record.audio;
    if (!audio || audio.bytes === 0) {
      this.sendError(record, res, 400, "file: Field required (send the audio as multipart/form-data in 'file')");
      return;
    }
    if (!audio.format) {
      this.sendError(record, res, 400, 'Invalid file format. Supported formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm');
      return;
    }
    if (record.vendor !== 'azure' && !record.model) {
      this.sendError(record, res, 400, 'model: Field required');
      return;
    }
    const text = knobs.text ?? MOCK_TRANSCRIPT;
    if (audio.responseFormat === 'text') {
      record.status = 200;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    this.sendJson(record, res, 200, { text });
  }

  private sendModels(record: MockRequestRecord, res: ServerResponse): void {
    const ids = record.scenario.models ?? DEFAULT_MODELS[record.vendor];
    if (record.vendor === 'anthropic') {
      this.sendJson(record, res, 200, {
        data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
        has_more: false,
        first_id: ids[0] ?? null,
        last_id: ids[ids.length - 1] ?? null,
      });
      return;
    }
    this.sendJson(record, res, 200, {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'mock' })),
    });
  }

  /** stream:false: waits as long as streaming would have taken, then sends one JSON document. */
  private async sendCompletion(
    record: MockRequestRecord,
    res: ServerResponse,
    pieces: string[],
    usage: Usage,
    closed: ClosedSignal,
  ): Promise<void> {
    const { scenario } = record;
    if (scenario.hangAfterTokens !== undefined) return; // nothing to send before the end: just hang
    await closed.sleep(scenario.firstTokenDelayMs + scenario.delayMs * pieces.length);
    if (closed.isClosed) return;
    const text = pieces.join('');
    const reported = scenario.omitUsage ? undefined : usage;
    record.usage = reported;
    record.tokensSent = pieces.length;
    const payload =
      record.vendor === 'anthropic' ?
        {
          id: `msg_mock${record.id}`,
          type: 'message',
          role: 'assistant',
          model: record.model,
          content: [{ type: 'text', text }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          ...(reported ? { usage: { input_tokens: reported.promptTokens, output_tokens: reported.completionTokens } } : {}),
        }
      : {
          id: `chatcmpl-mock${record.id}`,
          object: 'chat.completion',
          created: nowSeconds(),
          model: record.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text, refusal: null },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          ...(reported ? { usage: openAiUsage(reported) } : {}),
        };
    if (scenario.malformed) {
      record.status = 200;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload).slice(0, 40));
      return;
    }
    this.sendJson(record, res, 200, payload);
  }

  private async streamOpenAi(
    record: MockRequestRecord,
    res: ServerResponse,
    pieces: string[],
    usage: Usage,
    closed: ClosedSignal,
  ): Promise<void> {
    const id = `chatcmpl-mock${record.id}`;
    const created = nowSeconds();
    const withUsageField = record.includeUsage && !record.scenario.omitUsage;
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
      sse(undefined, {
        id,
        object: 'chat.completion.chunk',
        created,
        model: record.model,
        system_fingerprint: 'fp_mock',
        choices,
        ...(withUsageField ? { usage: null } : {}),
        ...extra,
      });
    const delta = (content: string): unknown => ({
      index: 0,
      delta: { content },
      logprobs: null,
      finish_reason: null,
    });

    this.openStream(record, res);
    if (record.vendor === 'azure') {
      res.write(
        sse(undefined, {
          choices: [],
          created: 0,
          id: '',
          model: '',
          object: '',
          prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
        }),
      );
    }
    res.write(chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }]));

    const finished = await this.writePieces(record, res, pieces, closed, {
      piece: (text) => chunk([delta(text)]),
      broken: () => `data: {"id":"${id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tok\n\n`,
    });
    if (!finished) return;

    const tool = record.scenario.toolCall;
    if (tool) {
      res.write(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: `call_mock${record.id}`, type: 'function', function: { name: tool, arguments: '' } }] }, logprobs: null, finish_reason: null }]));
      res.write(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, logprobs: null, finish_reason: null }]));
    }
    res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: tool ? 'tool_calls' : 'stop' }]));
    if (withUsageField) {
      record.usage = usage;
      res.write(chunk([], { usage: openAiUsage(usage) }));
    }
    res.end('data: [DONE]\n\n');
  }

  private async streamAnthropic(
    record: MockRequestRecord,
    res: ServerResponse,
    pieces: string[],
    usage: Usage,
    closed: ClosedSignal,
  ): Promise<void> {
    const omit = record.scenario.omitUsage;
    this.openStream(record, res);
    res.write(
      sse('message_start', {
        type: 'message_start',
        message: {
          id: `msg_mock${record.id}`,
          type: 'message',
          role: 'assistant',
          model: record.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          ...(omit ? {} : { usage: { input_tokens: usage.promptTokens, output_tokens: 1 } }),
        },
      }),
    );
    res.write(sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    res.write(sse('ping', { type: 'ping' }));

    const finished = await this.writePieces(record, res, pieces, closed, {
      piece: (text) =>
        sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      broken: () => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok\n\n`,
    });
    if (!finished) return;

    res.write(sse('content_block_stop', { type: 'content_block_stop', index: 0 }));
    const tool = record.scenario.toolCall;
    if (tool) {
      res.write(sse('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: `toolu_mock${record.id}`, name: tool, input: {} } }));
      res.write(sse('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } }));
      res.write(sse('content_block_stop', { type: 'content_block_stop', index: 1 }));
    }
    res.write(
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null },
        ...(omit ? {} : { usage: { output_tokens: usage.completionTokens } }),
      }),
    );
    if (!omit) record.usage = usage;
    res.end(sse('message_stop', { type: 'message_stop' }));
  }

  private openStream(record: MockRequestRecord, res: ServerResponse): void {
    record.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      [record.vendor === 'anthropic' ? 'request-id' : 'x-request-id']: `req_mock_${record.id}`,
    });
    res.flushHeaders();
  }

  /**
   * Writes the reply pieces with the scenario's delays. Returns true when the caller should send
   * the closing events; false after a hang, a broken line, or the client leaving.
   */
  private async writePieces(
    record: MockRequestRecord,
    res: ServerResponse,
    pieces: string[],
    closed: ClosedSignal,
    format: { piece: (text: string) => string; broken: () => string },
  ): Promise<boolean> {
    const { scenario } = record;
    const breakAt = scenario.malformed ? Math.floor(pieces.length / 2) : -1;
    const stallAt = scenario.hangAfterTokens ?? -1;
    if (scenario.firstTokenDelayMs > 0) await closed.sleep(scenario.firstTokenDelayMs);
    for (let i = 0; i <= pieces.length; i++) {
      if (closed.isClosed) return false;
      if (i === breakAt) {
        res.end(format.broken());
        return false;
      }
      if (i === stallAt) return false; // stall; the connection stays open until the client leaves
      if (i === pieces.length) break;
      if (i > 0 && scenario.delayMs > 0) {
        await closed.sleep(scenario.delayMs);
        if (closed.isClosed) return false;
      }
      res.write(format.piece(pieces[i]));
      record.tokensSent++;
    }
    return !closed.isClosed;
  }
}

// -----------------------------------------------------------------------------------------------
// Helpers

type Usage = { promptTokens: number; completionTokens: number };

const DEFAULT_MODELS: Record<MockVendor, string[]> = {
  openai: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini'],
  anthropic: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
  azure: ['gpt-4o', 'gpt-4o-mini'],
};

interface ClosedSignal {
  readonly isClosed: boolean;
  /** Waits `ms`, or less if the connection closes first. */
  sleep(ms: number): Promise<void>;
}

function closedSignal(res: ServerResponse): ClosedSignal {
  let isClosed = res.destroyed;
  const wakers = new Set<() => void>();
  res.on('close', () => {
    isClosed = true;
    for (const wake of wakers) wake();
    wakers.clear();
  });
  return {
    get isClosed() {
      return isClosed;
    },
    sleep(ms: number) {
      if (isClosed || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          wakers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        wakers.add(wake);
      });
    },
  };
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

function openAiUsage(usage: Usage): Record<string, number> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function errorBody(record: MockRequestRecord, status: number, detail?: string): unknown {
  if (record.vendor === 'anthropic') {
    const type =
      status === 400 ? 'invalid_request_error'
      : status === 401 ? 'authentication_error'
      : status === 403 ? 'permission_error'
      : status === 404 ? 'not_found_error'
      : status === 413 ? 'request_too_large'
      : status === 429 ? 'rate_limit_error'
      : status === 529 ? 'overloaded_error'
      : 'api_error';
    const message =
      detail ??
      (status === 401 ? 'invalid x-api-key'
      : status === 429 ? 'Number of request tokens has exceeded your per-minute rate limit'
      : status === 529 ? 'Overloaded'
      : 'Internal server error');
    return { type: 'error', error: { type, message }, request_id: `req_mock_${record.id}` };
  }
  if (record.vendor === 'azure') {
    const message =
      detail ??
      (status === 401 ?
        'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.'
      : status === 429 ?
        `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version ${record.apiVersion} have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after ${record.scenario.retryAfterSeconds} second.`
      : 'The server had an error while processing your request. Sorry about that!');
    return { error: { code: status >= 500 ? 'InternalServerError' : String(status), message } };
  }
  const [type, code, message] =
    status === 401 ?
      [
        'invalid_request_error',
        'invalid_api_key',
        `Incorrect API key provided: ${record.apiKey ?? '(none)'}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      ]
    : status === 429 ? ['requests', 'rate_limit_exceeded', 'Rate limit reached for requests. Please try again in 1s.']
    : status === 404 ? ['invalid_request_error', 'model_not_found', `The model \`${record.model}\` does not exist.`]
    : status >= 500 ? ['server_error', null, 'The server had an error while processing your request. Sorry about that!']
    : ['invalid_request_error', null, 'Invalid request.'];
  return { error: { message: detail ?? message, type, param: null, code } };
}

function replyFor(scenario: AppliedScenario): string {
  if (scenario.reply !== undefined) return scenario.reply;
  return Array.from({ length: Math.max(0, scenario.tokens) }, (_, i) => `${i ? ' ' : ''}tok${i}`).join('');
}

/** Splits a reply into word pieces, each with its leading whitespace; joined they give the text back. */
export function splitReply(text: string): string[] {
  const pieces = text.match(/\s*\S+/g) ?? [];
  const covered = pieces.join('').length;
  if (covered < text.length) {
    if (pieces.length === 0) return [text];
    pieces[pieces.length - 1] += text.slice(covered);
  }
  return pieces;
}

function promptTokensOf(record: MockRequestRecord): number {
  const words = (value: unknown): number => textOf(value).split(/\s+/).filter(Boolean).length;
  const messages = record.messages ?? [];
  return messages.reduce((sum, m) => sum + words(m.content) + 3, 0) + (record.system ? words(record.system) + 3 : 0);
}

/** Text of a message content: a string, or an array of text parts/blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : '')).join(' ');
  }
  return '';
}

/** A question rewrite request (src/retrieval/question-rewrite.ts): its system message asks for one. */
function isRewriteRequest(messages: MockRequestRecord['messages']): boolean {
  const system = messages?.find((m) => m.role === 'system');
  return system !== undefined && /^Rewrite the user's question\b/.test(textOf(system.content));
}

/** A crude English stem, so "refunds" and "refund" hash alike (the mock is no linguist). */
function mockStem(word: string): string {
  return word.replace(/(?:ing|ed|es|s)$/, '').slice(0, 12) || word;
}

/**
 * The mock's embedding of a text: each word (lower case, crudely stemmed) adds 1 to the dimension
 * its FNV-1a hash picks; the vector is L2-normalised. Texts sharing words point the same way, so
 * the cosine behaves like a word-overlap score: enough to test the plumbing, no semantics.
 */
export function mockEmbedding(text: string, dims = 64): Float32Array {
  const vector = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let hash = 0x811c9dc5;
    for (const ch of mockStem(word)) {
      hash ^= ch.codePointAt(0)!;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    vector[hash % dims] += 1;
  }
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dims; i++) vector[i] /= norm;
  return vector;
}

function lastUserText(messages: MockRequestRecord['messages']): string {
  const last = [...(messages ?? [])].reverse().find((m) => m.role === 'user');
  return last ? textOf(last.content) : '';
}

/** Parses `[mock:...]` markers (see the file header) into scenario fields. */
export function markersIn(text: string): Partial<MockScenario> {
  const out: Partial<MockScenario> = {};
  for (const match of text.matchAll(/\[mock:([^\]]*)\]/g)) {
    for (const directive of match[1].split(';')) {
      const [rawKey, ...rest] = directive.split('=');
      const key = rawKey.trim();
      const value = rest.join('=');
      const n = Number(value);
      if (/^\d{3}$/.test(key)) out.status = Number(key);
      else if (key === 'hang') out.hang = true;
      else if (key === 'malformed') out.malformed = true;
      else if (key === 'no-usage') out.omitUsage = true;
      else if (key === 'hang-after') out.hangAfterTokens = n;
      else if (key === 'tokens') out.tokens = n;
      else if (key === 'delay') out.delayMs = n;
      else if (key === 'first-delay') out.firstTokenDelayMs = n;
      else if (key === 'retry-after') out.retryAfterSeconds = n;
      else if (key === 'reply') out.reply = value;
      else if (key === 'tool') out.toolCall = value;
    }
  }
  return out;
}

function lowerCaseHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = (): void => resolve(Buffer.concat(chunks));
    req.on('end', done);
    req.on('close', done); // a client that leaves mid-body must not leave this pending
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

interface MultipartPart {
  name: string;
  fileName?: string;
  contentType?: string;
  data: Buffer;
}

/** The parts of a multipart/form-data body (empty when the type or the body is not one). */
export function parseMultipart(contentType: string, body: Buffer): MultipartPart[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!/^multipart\/form-data/i.test(contentType) || !boundary) return [];
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: MultipartPart[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before the CRLF that precedes the next delimiter
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const head = part.subarray(0, headerEnd).toString('utf8');
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) {
        parts.push({
          name,
          fileName: /filename="([^"]*)"/i.exec(head)?.[1],
          contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim(),
          data: Buffer.from(part.subarray(headerEnd + 4)),
        });
      }
    }
    at = next;
  }
  return parts;
}

/** The container of an uploaded file by its header bytes (and a WAV's format), as a transcription service checks it. */
export function audioOf(data: Buffer): Pick<MockAudioUpload, 'format' | 'wav'> {
  const ascii = (start: number, end: number) => data.subarray(start, end).toString('latin1');
  if (data.length >= 44 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') {
    let sampleRate = 0;
    let channels = 0;
    let byteRate = 0;
    for (let at = 12; at + 8 <= data.length; ) {
      const id = ascii(at, at + 4);
      const size = data.readUInt32LE(at + 4);
      if (id === 'fmt ') {
        channels = data.readUInt16LE(at + 10);
        sampleRate = data.readUInt32LE(at + 12);
        byteRate = data.readUInt32LE(at + 16);
      }
      if (id === 'data') {
        if (!sampleRate || !byteRate) return {};
        return { format: 'wav', wav: { sampleRate, channels, seconds: Math.min(size, data.length - at - 8) / byteRate } };
      }
      at += 8 + size + (size % 2);
    }
    return {};
  }
  if (data.length >= 4 && data[0] === 0x1a && data[1] === 0x45 && data[2] === 0xdf && data[3] === 0xa3) return { format: 'webm' };
  if (data.length >= 28 && ascii(0, 4) === 'OggS') return { format: 'ogg' };
  if (data.length >= 4 && ascii(0, 4) === 'fLaC') return { format: 'flac' };
  if (data.length >= 12 && ascii(4, 8) === 'ftyp') return { format: 'mp4' };
  if (data.length >= 3 && (ascii(0, 3) === 'ID3' || (data[0] === 0xff && (data[1] & 0xe0) === 0xe0))) return { format: 'mp3' };
  return {};
}
