/**
 * The OpenAPI document: public, a valid OpenAPI 3.1 document (checked by a validator library),
 * and complete: every route the running app maps is in it, with the request schema of each body
 * and query it reads and the schema of its success answer.
 */
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import request from 'supertest';
import { MCP_PROTOCOL_REVISIONS } from '../src/protocols/mcp-revisions';
import { SOCKET_EVENTS } from '../src/shared/contracts/socket';
import { adminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

type Doc = {
  openapi: string;
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; securitySchemes: Record<string, Record<string, unknown>> };
  security?: Array<Record<string, string[]>>;
};
type Operation = {
  requestBody?: { content: Record<string, { schema: unknown; examples?: Record<string, { summary: string; value: unknown }> }> };
  parameters?: Array<{ in: string; name: string; schema?: unknown }>;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  security?: Array<Record<string, string[]>>;
};

/** The request-body examples of a JSON-RPC endpoint. */
function examplesOf(doc: Doc, endpoint: string): Record<string, { summary: string; value: unknown }> {
  return doc.paths[endpoint].post.requestBody?.content['application/json'].examples ?? {};
}

/** Routes as Express has them (what the app really answers), minus the docs' own. */
function expressRoutes(t: TestApp): string[] {
  const router = (t.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }).router;
  return router.stack
    .filter((layer) => layer.route && !layer.route.path.startsWith('/api/docs') && layer.route.path !== '/api/openapi.json')
    .flatMap((layer) => Object.keys(layer.route!.methods).filter((m) => m !== '_all').map((m) => `${m.toUpperCase()} ${layer.route!.path}`))
    .sort();
}

interface MappedRoute {
  key: string;
  reads: { body: boolean; query: boolean; file: boolean };
}

/** Routes as Nest maps them, from the controllers' metadata, with the parameters each handler reads. */
function nestRoutes(t: TestApp): MappedRoute[] {
  const routes: MappedRoute[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { prototype: Record<string, unknown> } & (new (...args: never[]) => unknown);
      const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const route = `/${[base, String(Reflect.getMetadata(PATH_METADATA, handler))].map((p) => p.replace(/^\/|\/$/g, '')).filter(Boolean).join('/')}`;
        const args = Object.keys(Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}).map((key) => Number(key.split(':')[0]));
        routes.push({ key: `${method} ${route}`, reads: { body: args.includes(RouteParamtypes.BODY), query: args.includes(RouteParamtypes.QUERY), file: args.includes(RouteParamtypes.FILE) } });
      }
    }
  }
  return routes.sort((a, b) => a.key.localeCompare(b.key));
}

function resolve(doc: Doc, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`external reference ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** The schema itself, following a $ref. */
function schemaOf(doc: Doc, schema: unknown): Record<string, unknown> | undefined {
  const s = schema as Record<string, unknown> | undefined;
  if (s && typeof s.$ref === 'string') return resolve(doc, s.$ref) as Record<string, unknown> | undefined;
  return s;
}

function allRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => allRefs(n, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else allRefs(value, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    // Public: no session cookie.
    const res = await request(t.url).get('/api/openapi.json').expect(200).expect('Content-Type', /application\/json/);
    doc = res.body as Doc;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('is a valid OpenAPI 3.1 document', () => {
    expect(doc.openapi).toBe('3.1.0');
    const output = execFileSync(process.execPath, [path.join(__dirname, 'support', 'validate-openapi.mjs')], { input: JSON.stringify(doc), encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({ version: '3.1', valid: true });
  });

  it('the validator refuses a broken document (so the check above means something)', () => {
    const broken = { ...doc, paths: { '/interact': { post: { responses: 'none' } } } };
    const output = execFileSync(process.execPath, [path.join(__dirname, 'support', 'validate-openapi.mjs')], { input: JSON.stringify(broken), encoding: 'utf8' });
    expect(JSON.parse(output).valid).toBe(false);
  });

  it('lists every route the app maps, each with its request and response schemas', () => {
    const mapped = nestRoutes(t);
    // The controllers' routes are exactly the routes Express serves (nothing registered elsewhere is missed).
    expect(mapped.map((r) => r.key)).toEqual(expressRoutes(t));
    expect(mapped.length).toBeGreaterThanOrEqual(30);
    for (const route of mapped) {
      const [method, nestPath] = route.key.split(' ');
      const openApiPath = nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.paths[openApiPath]?.[method.toLowerCase()];
      expect({ route: route.key, documented: operation !== undefined }).toEqual({ route: route.key, documented: true });
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect({ route: route.key, successes: success.length }).toEqual({ route: route.key, successes: 1 });
      const contents = Object.values(success[0][1].content ?? {});
      expect({ route: route.key, hasContent: contents.length > 0 }).toEqual({ route: route.key, hasContent: true });
      for (const content of contents) expect({ route: route.key, schema: schemaOf(doc, content.schema) !== undefined }).toEqual({ route: route.key, schema: true });
      if (route.reads.body) {
        const body = schemaOf(doc, operation.requestBody?.content['application/json']?.schema);
        expect({ route: route.key, bodySchema: body?.type }).toEqual({ route: route.key, bodySchema: 'object' });
      } else if (route.reads.file) {
        const upload = schemaOf(doc, operation.requestBody?.content['multipart/form-data']?.schema);
        expect({ route: route.key, uploadSchema: upload?.type }).toEqual({ route: route.key, uploadSchema: 'object' });
      } else {
        expect({ route: route.key, requestBody: operation.requestBody }).toEqual({ route: route.key, requestBody: undefined });
      }
      const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
      expect({ route: route.key, query: query.length > 0 }).toEqual({ route: route.key, query: route.reads.query });
      for (const parameter of query) expect({ route: route.key, parameter: parameter.name, schema: schemaOf(doc, parameter.schema) !== undefined }).toEqual({ route: route.key, parameter: parameter.name, schema: true });
      for (const parameter of (operation.parameters ?? []).filter((p) => p.in === 'path')) expect(nestPath).toContain(`:${parameter.name}`);
    }
  });

  it('describes the A2A and MCP endpoints and the agent card, with their API-key security', () => {
    expect(doc.paths['/a2a'].post.security).toEqual([{ apiKeyBearer: [] }, { apiKey: [] }]);
    const text = (op: unknown) => op as { summary: string; description: string };
    expect(text(doc.paths['/a2a'].post).summary).toMatch(/SendMessage.*SubscribeToTask/);
    expect(text(doc.paths['/mcp'].post).summary).toMatch(/search_knowledge, get_article, ask_assistant/);
    // Every revision the SDK negotiates, in the document and in docs/api.md.
    expect(MCP_PROTOCOL_REVISIONS).toContain('2025-06-18');
    const apiMd = readFileSync(path.join(__dirname, '..', 'docs', 'api.md'), 'utf8');
    const revisionsMd = /the protocol\s+revisions the official SDK negotiates \(([^)]*)\)/.exec(apiMd)?.[1].replace(/\s+/g, ' ');
    expect(revisionsMd).toBe(MCP_PROTOCOL_REVISIONS.join(', '));
    for (const revision of MCP_PROTOCOL_REVISIONS) expect(text(doc.paths['/mcp'].post).description).toContain(revision);
    expect(doc.paths['/.well-known/agent-card.json'].get.security).toEqual([{}]);

    // Request bodies to copy: each a JSON-RPC 2.0 request of the method it is named after.
    expect(Object.keys(examplesOf(doc, '/a2a'))).toEqual(['SendMessage', 'SendStreamingMessage', 'GetTask']);
    expect(Object.keys(examplesOf(doc, '/mcp'))).toEqual(['tools/list', 'tools/call', 'resources/read']);
    for (const endpoint of ['/a2a', '/mcp']) {
      for (const [name, example] of Object.entries(examplesOf(doc, endpoint))) {
        expect(example.summary).toMatch(/\S/);
        expect(Object.keys(example.value as object).sort()).toEqual(['id', 'jsonrpc', 'method', 'params']);
        expect(example.value).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: name, params: expect.any(Object) });
        expect(Number.isInteger((example.value as { id: number }).id)).toBe(true);
      }
    }
    expect((examplesOf(doc, '/mcp')['tools/call'].value as { params: { name: string } }).params.name).toBe('search_knowledge');
  });

  it('has examples the endpoints answer: a task, a stream, tools, and "not found" for the placeholder ids', async () => {
    const admin = await adminAgent(t);
    const issue = async (scope: string) => (await admin.post('/api/api-keys').send({ name: `openapi ${scope}`, scopes: [scope] }).expect(201)).body.data.key as string;
    const a2aKey = await issue('a2a');
    const mcpKey = await issue('mcp');
    const a2a = (body: unknown) => request(t.url).post('/a2a').set({ Authorization: `Bearer ${a2aKey}`, 'A2A-Version': '1.0' }).send(body as object).expect(200);
    const mcp = (body: unknown) => request(t.url).post('/mcp').set({ Authorization: `Bearer ${mcpKey}`, Accept: 'application/json, text/event-stream' }).send(body as object).expect(200);
    const examples = { a2a: examplesOf(doc, '/a2a'), mcp: examplesOf(doc, '/mcp') };

    const sent = (await a2a(examples.a2a.SendMessage.value)).body;
    expect(sent.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const streamed = await a2a(examples.a2a.SendStreamingMessage.value).expect('Content-Type', /text\/event-stream/);
    expect(streamed.text).toContain('TASK_STATE_COMPLETED');
    expect((await a2a(examples.a2a.GetTask.value)).body.error).toMatchObject({ code: -32001, message: expect.stringMatching(/TASK_ID/) });
    // With the id SendMessage answered with, GetTask reads the task.
    const getTask = examples.a2a.GetTask.value as { params: { id: string } };
    expect((await a2a({ ...getTask, params: { id: sent.result.task.id } })).body.result.id).toBe(sent.result.task.id);

    expect((await mcp(examples.mcp['tools/list'].value)).body.result.tools.map((tool: { name: string }) => tool.name)).toContain('search_knowledge');
    expect((await mcp(examples.mcp['tools/call'].value)).body.result).toMatchObject({ structuredContent: { results: expect.any(Array) } });
    expect((await mcp(examples.mcp['resources/read'].value)).body.error).toMatchObject({ code: -32002, message: expect.stringMatching(/ITEM_ID/) });
  });

  it('resolves every reference inside the document', () => {
    const refs = allRefs(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) expect({ ref, resolved: resolve(doc, ref) !== undefined }).toEqual({ ref, resolved: true });
  });

  it('describes /interact as JSON and as a server-sent event stream with its event names and payloads', () => {
    const ok = doc.paths['/interact'].post.responses['200'].content!;
    expect(schemaOf(doc, ok['application/json'].schema)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/ReplyData' } } });
    const events = schemaOf(doc, ok['text/event-stream'].schema)!;
    const names = (events.oneOf as Array<{ properties: { event: { const: string } } }>).map((e) => e.properties.event.const);
    expect(names).toEqual(['chat:start', 'chat:delta', 'chat:restart', 'chat:done', 'chat:error']);
    expect(JSON.stringify(events)).toContain('#/components/schemas/ReplyData');
    expect(schemaOf(doc, doc.paths['/interact'].post.requestBody!.content['application/json'].schema)).toMatchObject({ required: expect.arrayContaining(['query', 'vertical']) });
  });

  it('names the session cookie as the security scheme, required except on public routes', () => {
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'sa_admin_session' });
    expect(doc.security).toEqual([{ session: [] }]);
    expect(doc.paths['/api/knowledge'].get.security).toBeUndefined();
    expect(doc.paths['/api/knowledge'].get.responses['401']).toBeDefined();
    // /interact: anonymous, or an API key as a bearer token or X-API-Key.
    expect(doc.paths['/interact'].post.security).toEqual([{}, { apiKeyBearer: [] }, { apiKey: [] }]);
    for (const [p, method] of [['/health', 'get'], ['/api/auth/check-methods', 'post'], ['/api/feedback', 'post'], ['/api/public/settings', 'get'], ['/api/public/knowledge/{id}', 'get']]) {
      expect({ p, security: doc.paths[p][method].security }).toEqual({ p, security: [{}] });
    }
  });

  it('describes the error envelope, and refusals point to it', () => {
    expect(doc.components.schemas.ErrorEnvelope).toMatchObject({ required: ['success', 'error', 'requestId'], properties: { success: { const: false } } });
    expect(doc.paths['/api/knowledge'].post.responses['400'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(doc.components.schemas.AttachmentInput).toMatchObject({ properties: { uploadedAt: expect.anything() } });
  });

  it('describes every Socket.IO event of both namespaces, with its payload', () => {
    const text = doc.info.description;
    for (const [namespace, events] of Object.entries(SOCKET_EVENTS)) {
      expect(text).toContain(`Namespace \`${namespace}\``);
      for (const name of [...Object.keys(events.clientToServer), ...Object.keys(events.serverToClient)]) expect(text).toContain(`**\`${name}\`**`);
    }
    expect(text).toContain('"requestId"');
  });
});
