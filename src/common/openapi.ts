/**
 * The OpenAPI 3.1 document of the HTTP API, served at /api/openapi.json (public), and a
 * browsable reference at /api/docs (Swagger UI from the swagger-ui-dist package, served from
 * node_modules: nothing is loaded from another site).
 *
 * Paths, methods, path parameters and statuses come from the controllers (@nestjs/swagger reads
 * them); request and reply schemas from the zod contracts of each route's @Contract (zod's own
 * JSON Schema output, draft 2020-12, which is OpenAPI 3.1's dialect). The Socket.IO events are
 * described in the document's text from the same schemas (SOCKET_EVENTS).
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { z } from 'zod';
import { SESSION_COOKIE } from '../auth/cookies';
import { ROLES_EXTENSION } from '../auth/roles.decorator';
import { DEFAULT_ROLES, ROLES, type Role } from '../shared/contracts/roles';
import { bodyLimitFor, describeBytes, ErrorEnvelopeSchema } from '../shared/contracts/http';
import { ADMIN_EVENT_ROLES, SOCKET_EVENTS, type AdminServerToClientEvents } from '../shared/contracts/socket';
import { MCP_PROTOCOL_REVISIONS } from '../protocols/mcp-revisions';
import { CONTRACT_SCHEMAS } from './contract';

export const OPENAPI_JSON_PATH = '/api/openapi.json';
export const API_DOCS_PATH = '/api/docs';
const SCHEMA_REF = '#/components/schemas/';

type JsonSchema = Record<string, unknown>;

/** Every named schema (`.meta({ id })`) as a component: requests as sent (input), replies as returned. */
function componentSchemas(): Record<string, JsonSchema> {
  CONTRACT_SCHEMAS.replies.add(ErrorEnvelopeSchema);
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(z.globalRegistry, { io, target: 'draft-2020-12', unrepresentable: 'any', uri: (id) => `${SCHEMA_REF}${id}` }).schemas as Record<string, JsonSchema>;
  const inputs = convert('input');
  const outputs = convert('output');
  const result: Record<string, JsonSchema> = {};
  // Replies first; request schemas (and the named schemas they contain) in their input form.
  for (const [id, schema] of Object.entries(outputs)) result[id] = schema;
  const pending = [...CONTRACT_SCHEMAS.requests].map((s) => (s.meta() as { id: string }).id);
  const seen = new Set<string>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (seen.has(id) || !inputs[id]) continue;
    seen.add(id);
    result[id] = inputs[id];
    for (const match of JSON.stringify(inputs[id]).matchAll(/"\$ref":"#\/components\/schemas\/([^"/]+)"/g)) pending.push(match[1]);
  }
  for (const schema of Object.values(result)) {
    // zod names each component with $id = its reference; the document is its base instead.
    delete schema.$schema;
    delete schema.$id;
    delete schema.id;
  }
  return result;
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** The Socket.IO events, for the document's description (Markdown). */
function socketEventsText(): string {
  const lines = [
    '## Socket.IO',
    '',
    'Real-time chat and admin pushes use Socket.IO (path `/socket.io`) on the same port. Payload schemas are JSON Schema, generated from the same contracts as this document.',
  ];
  for (const [namespace, events] of Object.entries(SOCKET_EVENTS)) {
    lines.push('', `### Namespace \`${namespace}\`${namespace === '/admin' ? ' (admin session cookie required at the handshake; push only)' : ' (public)'}`);
    const all: Array<[string, string, { payload: z.ZodType; about: string; ack?: z.ZodType }]> = [
      ...Object.entries(events.clientToServer).map(([name, e]) => [name, 'client → server', e] as [string, string, { payload: z.ZodType; about: string; ack?: z.ZodType }]),
      ...Object.entries(events.serverToClient).map(([name, e]) => [name, 'server → client', e] as [string, string, { payload: z.ZodType; about: string }]),
    ];
    const block = (schema: z.ZodType) => ['  ```json', ...JSON.stringify(jsonSchemaOf(schema), null, 2).split('\n').map((line) => `  ${line}`), '  ```'];
    for (const [name, direction, event] of all) {
      const roles = namespace === '/admin' ? ` Roles: ${ADMIN_EVENT_ROLES[name as keyof AdminServerToClientEvents].join(', ')}.` : '';
      lines.push('', `- **\`${name}\`** (${direction}): ${event.about}${roles}`, '', ...block(event.payload));
      if (event.ack) lines.push('', '  Acknowledgement:', '', ...block(event.ack));
    }
  }
  return lines.join('\n');
}

const DESCRIPTION = [
  'The support assistant’s HTTP API. Every answer is JSON: `{ "success": true, "data": … }` on success (sign-in answers also carry `message` and `user`), and the error envelope `{ "success": false, "error": { "code", "message" }, "requestId" }` with a 4xx or 5xx status on failure. `error.code` is stable; `error.message` is written for people and may be shown as it is.',
  '',
  'Admin routes (`/api/knowledge`, `/api/config`, `/api/analytics`, `/api/team`, `/api/audit`, the signed-in auth routes, ...) need the HttpOnly session cookie that a successful sign-in sets; state-changing requests from another origin are refused with 403. Routes marked without a lock are public.',
  '',
  `Members have a role: ${ROLES.join(', ')}. Each admin route lists the roles that may use it in \`x-roles\` and in its description; a member with another role gets 403 \`forbidden\`.`,
  '',
  '`POST /interact` answers with the whole reply as JSON, or, with `Accept: text/event-stream`, streams it as server-sent events: `chat:delta` (`{requestId, text}`) frames, then one `chat:done` (`{requestId, data}`, data as in the JSON reply) or `chat:error` (`{requestId, code, message}`).',
].join('\n');

type OperationWithRoles = {
  security?: unknown[];
  responses?: Record<string, unknown>;
  description?: string;
  requestBody?: { description?: string; [BODY_LIMIT_EXTENSION]?: number };
  [ROLES_EXTENSION]?: Role[];
};

/** The request body's byte limit (from BODY_LIMITS, as the body parsers enforce it), on the body and in words. */
const BODY_LIMIT_EXTENSION = 'x-max-body-bytes';

function statesBodyLimit(route: string, operation: OperationWithRoles, envelope: object): void {
  const bytes = bodyLimitFor(route);
  operation.requestBody![BODY_LIMIT_EXTENSION] = bytes;
  const limit = `At most ${describeBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes) of JSON; a larger body is refused with 413 \`payload_too_large\` before it is read.`;
  operation.requestBody!.description = [operation.requestBody!.description, limit].filter(Boolean).join(' ');
  operation.responses!['413'] ??= { description: 'The request body, or a file in it, is too large.', ...envelope };
}

/** The document, built from the running app's controllers. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Support Assistant API')
    .setVersion(process.env.npm_package_version ?? '0.1.0')
    .setDescription(`${DESCRIPTION}\n\n${socketEventsText()}`)
    .addCookieAuth(SESSION_COOKIE, { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The admin session, set by a successful sign-in (HttpOnly, SameSite=Strict).' }, 'session')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key (issued in the console, API keys tab) as a bearer token: machine channels such as /interact.' }, 'apiKeyBearer')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same API key in the X-API-Key header.' }, 'apiKey')
    .addSecurityRequirements('session')
    .build();
  const document = SwaggerModule.createDocument(app, config, { autoTagControllers: true });
  document.components = { ...document.components, schemas: { ...(document.components?.schemas ?? {}), ...componentSchemas() } as never };
  // Routes under the document's session requirement answer 401 without a valid session, and 403
  // to a member whose role they do not accept (their roles: @Roles, or owners and admins).
  const envelope = { content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}ErrorEnvelope` } } } };
  for (const [route, operations] of Object.entries(document.paths)) {
    for (const operation of Object.values(operations) as Array<OperationWithRoles>) {
      if (typeof operation !== 'object' || !operation?.responses) continue;
      if (operation.requestBody) statesBodyLimit(route, operation, envelope);
      const isPublic = Array.isArray(operation.security) && operation.security.some((r) => Object.keys(r as object).length === 0);
      const byKey = Array.isArray(operation.security) && operation.security.some((r) => 'apiKey' in (r as object));
      if (byKey) operation.responses['401'] ??= { description: 'No valid API key.', ...envelope };
      if (isPublic) continue;
      operation.responses['401'] ??= { description: 'No valid admin session.', ...envelope };
      const roles = (operation[ROLES_EXTENSION] ??= [...DEFAULT_ROLES]);
      operation.description = [operation.description, `Roles: ${roles.join(', ')}.`].filter(Boolean).join('\n\n');
      if (roles.length < ROLES.length) operation.responses['403'] ??= { description: `Not allowed: the member's role is not one of ${roles.join(', ')} (or another origin).`, ...envelope };
    }
  }
  document.paths = { ...document.paths, ...PROTOCOL_PATHS } as never;
  return document;
}

/** A JSON-RPC request body, with the byte limit the JSON-RPC gate enforces (the same table as every other body). */
function jsonRpcRequestBody(examples: Record<string, { summary: string; value: object }>): object {
  const bytes = bodyLimitFor('/a2a');
  return {
    required: true,
    description: `At most ${describeBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes) of JSON; a larger body gets 413 with a JSON-RPC error.`,
    [BODY_LIMIT_EXTENSION]: bytes,
    content: { 'application/json': { schema: jsonRpcBody, examples } },
  };
}

const question = (text: string, metadata: Record<string, string>) => ({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text }], metadata } });

/** Request bodies to copy (with `A2A-Version: 1.0`). */
const A2A_EXAMPLES = {
  SendMessage: {
    summary: 'Ask a question; the answer is a task',
    value: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: question('How do I reset my password?', { skillId: 'customer-service' }) },
  },
  SendStreamingMessage: {
    summary: 'Ask a legal question, the answer streamed as server-sent events',
    value: { jsonrpc: '2.0', id: 2, method: 'SendStreamingMessage', params: question('Can my landlord keep my deposit?', { skillId: 'legal', jurisdiction: 'US', subJurisdiction: 'California' }) },
  },
  GetTask: {
    summary: 'Read a task again (TASK_ID: the id SendMessage answered with)',
    value: { jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'TASK_ID' } },
  },
};

/** Request bodies to copy (with `Accept: application/json, text/event-stream`). */
const MCP_EXAMPLES = {
  'tools/list': { summary: 'The tools and their input schemas', value: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } },
  'tools/call': {
    summary: 'Search the knowledge base',
    value: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_knowledge', arguments: { query: 'reset password', limit: 3 } } },
  },
  'resources/read': {
    summary: 'Read an article as Markdown (ITEM_ID: an id from search_knowledge)',
    value: { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'kb://articles/ITEM_ID' } },
  },
};

const jsonRpcBody = { type: 'object', required: ['jsonrpc', 'method'], properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, method: { type: 'string' }, params: { type: 'object' } } };
const jsonRpcError = {
  description: 'A JSON-RPC error object (`error.code` -32000 with `error.data.code`: unauthorized, forbidden, rate_limited, forbidden_origin; -32700, -32600 for a body that is not one JSON-RPC request).',
  content: { 'application/json': { schema: { type: 'object', properties: { jsonrpc: { const: '2.0' }, id: {}, error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } } } } } },
};
const keyed = [{ apiKeyBearer: [] }, { apiKey: [] }];
const rpcErrors = { '400': jsonRpcError, '401': jsonRpcError, '403': jsonRpcError, '413': jsonRpcError, '429': jsonRpcError };

/** The A2A and MCP endpoints (Express handlers of their SDKs, not controllers); docs/api.md has the details. */
const PROTOCOL_PATHS = {
  '/.well-known/agent-card.json': {
    get: {
      tags: ['A2A'],
      summary: 'The A2A agent card',
      description: 'Public. Streaming, one skill per enabled vertical, the JSON-RPC interface at /a2a (A2A 1.0 and 0.3), the API-key security schemes.',
      security: [{}],
      responses: { '200': { description: 'The agent card (A2A 1.0 JSON).', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
  '/a2a': {
    post: {
      tags: ['A2A'],
      summary: 'A2A 1.0 JSON-RPC: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask',
      description:
        'An API key with the a2a scope. Send `A2A-Version: 1.0` for the 1.0 method names; without it the request is A2A 0.3 (message/send, tasks/get, ...). A message is one question (text parts; metadata `skillId`, `jurisdiction`, `subJurisdiction`, `language`), answered as a task whose artifact `answer` holds the text and a data part with the sources; the contextId is the conversation. SendStreamingMessage and SubscribeToTask answer as server-sent events. Example: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"How do I reset my password?"}],"metadata":{"skillId":"customer-service"}}}}` (more under the request body\'s examples).',
      security: keyed,
      parameters: [{ name: 'A2A-Version', in: 'header', required: false, schema: { type: 'string', enum: ['1.0', '0.3'] } }],
      requestBody: jsonRpcRequestBody(A2A_EXAMPLES),
      responses: {
        '200': {
          description: 'A JSON-RPC response (a result, or an error such as -32001 task not found); streaming methods: server-sent events, each a JSON-RPC response holding a task, status update or artifact update.',
          content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...rpcErrors,
      },
    },
  },
  '/mcp': {
    post: {
      tags: ['MCP'],
      summary: 'MCP server (Streamable HTTP, stateless): tools search_knowledge, get_article, ask_assistant; resources kb://articles/{id}',
      description:
        `An API key with the mcp scope. Protocol revisions ${MCP_PROTOCOL_REVISIONS.join(', ')} (what the official SDK negotiates); no session, JSON responses. A request with an Origin header must come from this server or CORS_ORIGINS. Example: \`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_knowledge","arguments":{"query":"reset password"}}}\` with \`Accept: application/json, text/event-stream\` (more under the request body's examples).`,
      security: keyed,
      requestBody: jsonRpcRequestBody(MCP_EXAMPLES),
      responses: { '200': { description: 'The JSON-RPC response.', content: { 'application/json': { schema: { type: 'object' } } } }, ...rpcErrors },
    },
  },
};

/** Serves the document and the reference; the document is built on the first request. */
export function setupApiDocs(app: INestApplication): void {
  let document: OpenAPIObject | undefined;
  SwaggerModule.setup(API_DOCS_PATH.slice(1), app, () => (document ??= buildOpenApiDocument(app)), {
    jsonDocumentUrl: OPENAPI_JSON_PATH.slice(1),
    raw: ['json'],
    customSiteTitle: 'Support Assistant API',
    swaggerOptions: { validatorUrl: null, defaultModelsExpandDepth: 0, tryItOutEnabled: false },
  });
}
