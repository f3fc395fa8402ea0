/**
 * The MCP server at /mcp through the official SDK client (Streamable HTTP): initialize, list the
 * tools, call search_knowledge, get_article and ask_assistant (through the chat pipeline: a usage
 * event with channel mcp), read an article resource; the key checks, the Origin check and the rate
 * limits (the key's own: 429 with Retry-After; the chat limits: ask_assistant's tool error).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import request from 'supertest';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { mcpClient } from './support/mcp-client';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { LIFTED_CHAT_LIMITS } from './support/lifted-limits';
import { eventually, startTestApp, type TestApp } from './support/test-app';

describe('MCP server (official SDK client)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;
  let key: string;
  let client: Client;

  const issue = async (scopes: string[]) => (await admin.post('/api/api-keys').send({ name: `tool ${scopes.join(' ')}`, scopes }).expect(201)).body.data.key as string;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 12 });
    t = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    admin = await adminAgent(t);
    key = await issue(['mcp']);
    client = await mcpClient(t.url, key);
  });

  afterAll(async () => {
    await client?.close();
    await t?.close();
    await mock?.close();
  });

  it('lists its three read-only tools, and names itself', async () => {
    expect(client.getServerVersion()?.name).toBe('support-assistant');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_assistant', 'get_article', 'search_knowledge']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint).toBe(true);
    const search = tools.find((tool) => tool.name === 'search_knowledge')!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['jurisdiction', 'limit', 'query', 'vertical']);
  });

  it('searches the knowledge (id, title, passage, score, url), reads an article by tool and as a kb:// resource', async () => {
    const result = await client.callTool({ name: 'search_knowledge', arguments: { query: 'reset my password', vertical: 'customer-service', limit: 3 } });
    expect(result.isError).toBeFalsy();
    const results = (result.structuredContent as { results: Array<{ id: string; title: string; passage: string; score: number; url: string }> }).results;
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    const best = results[0];
    expect(best.score).toBe(1);
    expect(best.passage.length).toBeGreaterThan(0);
    expect(best.url).toBe(`${t.url}/api/public/knowledge/${best.id}`);
    // The URL is readable.
    const item = (await request(t.url).get(`/api/public/knowledge/${best.id}`).expect(200)).body.data;

    const article = await client.callTool({ name: 'get_article', arguments: { id: best.id } });
    const text = (article.content as Array<{ type: string; text?: string }>)[0].text!;
    expect(text).toBe(`# ${item.title}\n\n${item.content}`);
    const missing = await client.callTool({ name: 'get_article', arguments: { id: 'no-such-item' } });
    expect(missing.isError).toBe(true);

    const resource = await client.readResource({ uri: `kb://articles/${best.id}` });
    expect(resource.contents[0]).toMatchObject({ uri: `kb://articles/${best.id}`, mimeType: 'text/markdown', text });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`kb://articles/${best.id}`);
    await expect(client.readResource({ uri: 'kb://articles/no-such-item' })).rejects.toThrow(/no article/);
  });

  it('answers ask_assistant with the grounded answer and its sources, through the chat pipeline (channel mcp)', async () => {
    const result = await client.callTool({ name: 'ask_assistant', arguments: { question: 'How do I reset my password?', vertical: 'customer-service' } });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as { answer: string; sources: Array<{ id: string; url: string }>; replyId: string; vertical: string };
    expect(data.answer).toBe(mock.requests[mock.requests.length - 1].replyText);
    expect(data.sources.length).toBeGreaterThan(0);
    expect(data.vertical).toBe('customer-service');
    expect((result.content as Array<{ text: string }>)[0].text).toContain('Sources:');
    await eventually(async () => (await t.dataSource.query(`SELECT channel FROM usage_events WHERE id = '${data.replyId}'`))[0]?.channel === 'mcp');
    const legal = await client.callTool({ name: 'ask_assistant', arguments: { question: 'Can my landlord keep my deposit?', vertical: 'legal' } });
    expect(legal.isError).toBe(true);
    expect((legal.content as Array<{ text: string }>)[0].text).toMatch(/jurisdiction/);
  });

  it('refuses without a key (401), with an unknown key (401), a key without the mcp scope (403), and from another origin (403), as JSON-RPC errors', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const headers = { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' };
    const none = await request(t.url).post('/mcp').set(headers).send(body).expect(401);
    expect(none.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { code: 'unauthorized' } } });
    await request(t.url).post('/mcp').set(headers).set('X-API-Key', 'sak_nope').send(body).expect(401);
    const a2aOnly = await issue(['a2a']);
    const out = await request(t.url).post('/mcp').set(headers).set('Authorization', `Bearer ${a2aOnly}`).send(body).expect(403);
    expect(out.body.error.message).toMatch(/may not be used for mcp/);
    const foreign = await request(t.url).post('/mcp').set(headers).set('Authorization', `Bearer ${key}`).set('Origin', 'https://evil.example').send(body).expect(403);
    expect(foreign.body.error).toMatchObject({ code: -32000, data: { code: 'forbidden_origin' } });
    // The same origin passes (a page of this site).
    const own = await request(t.url).post('/mcp').set(headers).set('Authorization', `Bearer ${key}`).set('Origin', t.url).send(body).expect(200);
    expect(own.body.result.tools).toHaveLength(3);
    await request(t.url).get('/mcp').set('Authorization', `Bearer ${key}`).expect(405);
  });
  it("refuses past the key's own rate limit: 429 with Retry-After and a JSON-RPC error, for an ask_assistant call too", async () => {
    const metered = (await admin.post('/api/api-keys').send({ name: 'metered tool', scopes: ['mcp'], rateLimitPerMinute: 2 }).expect(201)).body.data.key as string;
    const ask = (k: string) =>
      request(t.url)
        .post('/mcp')
        .set({ Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', Authorization: `Bearer ${k}` })
        .send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'ask_assistant', arguments: { question: 'How do I reset my password?', vertical: 'customer-service' } } });
    const first = await ask(metered).expect(200);
    expect(first.body.result.isError).toBeFalsy();
    expect(first.body.result.structuredContent.answer).toBe(mock.requests[mock.requests.length - 1].replyText);
    await ask(metered).expect(200);
    const before = mock.requests.length;
    const limited = await ask(metered).expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringMatching(/^This API key may make 2 requests a minute/), data: { code: 'rate_limited', retryAfterSeconds: Number(limited.headers['retry-after']) } },
    });
    expect(mock.requests.length).toBe(before);
    // Another key is not held back by this one's limit.
    expect((await ask(key).expect(200)).body.result.isError).toBeFalsy();
  });

  it('refuses ask_assistant past the chat rate limits (per key, per IP) as a tool error naming the wait; searching is not limited', async () => {
    const fresh = await issue(['mcp']);
    const tool = await mcpClient(t.url, fresh);
    const ask = () => tool.callTool({ name: 'ask_assistant', arguments: { question: 'How do I reset my password?', vertical: 'customer-service' } });
    const textOf = (result: Awaited<ReturnType<typeof ask>>) => (result.content as Array<{ text: string }>)[0].text;
    await admin.put('/api/config/global').send({ chatLimits: { keyPerMinute: 1 } }).expect(200);
    try {
      expect((await ask()).isError).toBeFalsy();
      const before = mock.requests.length;
      const refused = await ask();
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Too many messages with this API key\. Try again in \d+ s\.$/);
      expect(mock.requests.length).toBe(before);
      expect((await tool.callTool({ name: 'search_knowledge', arguments: { query: 'reset my password' } })).isError).toBeFalsy();

      // Per IP: every key from this address counts together (at most one more message here).
      await admin.put('/api/config/global').send({ chatLimits: { ...LIFTED_CHAT_LIMITS, ipPerMinute: 1 } }).expect(200);
      const other = await mcpClient(t.url, await issue(['mcp']));
      try {
        const once = await other.callTool({ name: 'ask_assistant', arguments: { question: 'How do I reset my password?', vertical: 'customer-service' } });
        const twice = once.isError ? once : await other.callTool({ name: 'ask_assistant', arguments: { question: 'How do I reset my password?', vertical: 'customer-service' } });
        expect(twice.isError).toBe(true);
        expect(textOf(twice)).toMatch(/^Too many messages from your network\. Try again in \d+ s\.$/);
      } finally {
        await other.close();
      }
    } finally {
      await admin.put('/api/config/global').send({ chatLimits: LIFTED_CHAT_LIMITS }).expect(200);
      await tool.close();
    }
  });
});
