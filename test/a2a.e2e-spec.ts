/**
 * A2A 1.0 through the official SDK client (@a2a-js/sdk, JSON-RPC transport) against the real app
 * and the mock LLM provider: the agent card, SendMessage with the answer and its sources,
 * SendStreamingMessage (the streamed pieces joined are the final text), CancelTask mid-stream
 * (the provider's call is aborted), GetTask / ListTasks afterwards, contexts as conversations, the
 * usage events' channel; the key checks (none, unknown, out of scope), the rate limits (the key's
 * own and the chat limits: 429 with Retry-After) and a budget cap.
 */
import type { Client } from '@a2a-js/sdk/client';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import request from 'supertest';
import { a2aClient, sourcesOfTask, textOfTask, userMessage } from './support/a2a-client';
import { adminAgent, type AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { LIFTED_CHAT_LIMITS } from './support/lifted-limits';
import { eventually, startTestApp, type TestApp } from './support/test-app';

describe('A2A 1.0 (official SDK client)', () => {
  let mock: MockLlmServer;
  let t: TestApp;
  let admin: AdminAgent;
  let key: string;
  let client: Client;

  const issue = async (scopes: string[]) => (await admin.post('/api/api-keys').send({ name: `agent ${scopes.join(' ')}`, scopes }).expect(201)).body.data.key as string;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 12 });
    t = await startTestApp({ openaiApiKey: 'sk-test', openaiBaseUrl: mock.openaiBaseUrl });
    admin = await adminAgent(t);
    key = await issue(['a2a']);
    client = await a2aClient(t.url, key);
  });

  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it('serves the agent card: streaming, one skill per enabled vertical, the JSON-RPC interface at protocol 1.0 and the API-key schemes', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('Support Assistant');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces).toContainEqual(expect.objectContaining({ url: `${t.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }));
    expect(card.skills.map((s) => s.id).sort()).toEqual(['customer-service', 'hr', 'legal', 'sales']);
    expect(Object.keys(card.securitySchemes).sort()).toEqual(['apiKey', 'apiKeyBearer']);
    const raw = await request(t.url).get('/.well-known/agent-card.json').expect(200);
    expect(raw.body.securitySchemes.apiKey).toEqual({ apiKeySecurityScheme: expect.objectContaining({ location: 'header', name: 'X-API-Key' }) });
  });

  it('answers SendMessage with the grounded answer and its sources; the task is read back with GetTask and listed by context', async () => {
    const result = await client.sendMessage(userMessage('How do I reset my password?'));
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(task)).toBe(mock.requests[mock.requests.length - 1].replyText);
    expect(sourcesOfTask(task).length).toBeGreaterThan(0);
    expect(task.metadata).toMatchObject({ a2aCompliant: true, vertical: 'customer-service', reply: { a2aCompliant: true, usage: { provider: 'openai' } } });
    expect(task.contextId).toMatch(/\S/);

    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(again)).toBe(textOfTask(task));
    expect(sourcesOfTask(again)).toEqual(sourcesOfTask(task));
    expect(again.history[0].parts[0].content).toEqual({ $case: 'text', value: 'How do I reset my password?' });

    // The same context continues the conversation: the provider gets the first exchange as history.
    const second = (await client.sendMessage(userMessage('And how do I change my email?', { contextId: task.contextId }))) as Task;
    expect(second.contextId).toBe(task.contextId);
    const prompt = JSON.stringify(mock.requests[mock.requests.length - 1].messages);
    expect(prompt).toContain('How do I reset my password?');
    const listed = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((x) => x.id)).toEqual([second.id, task.id]);
    expect(listed.totalSize).toBe(2);

    // Usage events carry the channel; the conversation is stored like any chat's.
    await eventually(async () => (await t.dataSource.query(`SELECT channel FROM usage_events WHERE id = '${task.id}'`))[0]?.channel === 'a2a');
    // Analytics counts the requests of each channel.
    const system = (await admin.get('/api/analytics/system?hours=24').expect(200)).body.data;
    expect(system.requestsByChannel.a2a).toBeGreaterThanOrEqual(2);
  });

  it('streams a reply: the artifact pieces joined equal the final text, then the sources and the completed status', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userMessage('How do I reset my password? [mock:tokens=30;delay=5]'))) events.push(event);
    expect(events[0].payload?.$case).toBe('task');
    const pieces = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact!.parts : [])).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const last = events[events.length - 1];
    expect(last.payload?.$case).toBe('statusUpdate');
    if (last.payload?.$case !== 'statusUpdate') return;
    expect(last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const deltas = events.filter((e) => e.payload?.$case === 'artifactUpdate').length;
    expect(deltas).toBeGreaterThan(2);
    const task = await client.getTask({ tenant: '', id: last.payload.value.taskId });
    expect(pieces).toBe(textOfTask(task));
    expect(pieces).toBe(mock.requests[mock.requests.length - 1].replyText);
  });

  it('cancels a streaming task: the provider call is aborted and the task ends CANCELED with what was written', async () => {
    const before = mock.requests.length;
    const stream = client.sendMessageStream(userMessage('How do I reset my password? [mock:tokens=400;delay=20]'));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const taskId = first.value!.payload!.$case === 'task' ? first.value!.payload!.value.id : '';
    // Wait for some text, then cancel.
    let pieces = '';
    for await (const event of stream) {
      if (event.payload?.$case === 'artifactUpdate') pieces += event.payload.value.artifact!.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      if (pieces.length > 20) break;
    }
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const [call] = mock.requests.slice(before).filter((r) => r.kind === 'chat');
    const closed = await mock.waitForClose(call);
    expect(closed.completed).toBe(false);
    expect(closed.tokensSent).toBeLessThan(400);
    const read = await client.getTask({ tenant: '', id: taskId });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(textOfTask(read).startsWith(pieces)).toBe(true);
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toThrow(/already ended/);
  });

  it('filters ListTasks by state over the whole list: full pages, a cursor that continues, the count of that state', async () => {
    const own = await a2aClient(t.url, await issue(['a2a']));
    const send = async (text: string) => ((await own.sendMessage(userMessage(text))) as Task).id;
    const a = await send('How do I reset my password?');
    const b = await send('How do I change my email?');
    const stream = own.sendMessageStream(userMessage('How do I reset my password? [mock:tokens=400;delay=20]'));
    const first = await stream.next();
    const c = first.value!.payload!.$case === 'task' ? first.value!.payload!.value.id : '';
    expect((await own.cancelTask({ tenant: '', id: c, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await stream.return(undefined);
    const d = await send('What is the refund policy?');
    const e = await send('How long does shipping take?');

    const list = (status: TaskState, pageToken = '') => own.listTasks({ tenant: '', contextId: '', status, pageSize: 2, pageToken, statusTimestampAfter: undefined });
    const page1 = await list(TaskState.TASK_STATE_COMPLETED);
    expect(page1.tasks.map((x) => x.id)).toEqual([e, d]);
    expect(page1.totalSize).toBe(4);
    // The cancelled task sits between the pages: the second page is still full.
    const page2 = await list(TaskState.TASK_STATE_COMPLETED, page1.nextPageToken);
    expect(page2.tasks.map((x) => x.id)).toEqual([b, a]);
    expect(page2.nextPageToken).toBe('');
    const cancelled = await list(TaskState.TASK_STATE_CANCELED);
    expect(cancelled.tasks.map((x) => x.id)).toEqual([c]);
    expect(cancelled.totalSize).toBe(1);
    expect(cancelled.nextPageToken).toBe('');
  });

  it('resumes a stream that was cut off with SubscribeToTask: the snapshot holds what the client had, the rest follows once', async () => {
    const cut = new AbortController();
    let taskId = '';
    let had = '';
    await expect(
      (async () => {
        for await (const event of client.sendMessageStream(userMessage('How do I reset my password? [mock:tokens=60;delay=20]'), { signal: cut.signal })) {
          if (event.payload?.$case === 'task') taskId = event.payload.value.id;
          if (event.payload?.$case === 'artifactUpdate') had += event.payload.value.artifact!.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
          if (had.length > 10) cut.abort();
        }
      })(),
    ).rejects.toThrow();
    const events: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId })) events.push(event);
    const snapshot = events[0].payload?.$case === 'task' ? events[0].payload.value : undefined;
    expect(snapshot?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(textOfTask(snapshot!).startsWith(had)).toBe(true);
    const rest = events.slice(1).flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact!.parts : [])).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const final = await client.getTask({ tenant: '', id: taskId });
    expect(textOfTask(snapshot!) + rest).toBe(textOfTask(final));
    // An ended task cannot be subscribed to: it is read with GetTask.
    await expect(client.resubscribeTask({ tenant: '', id: taskId }).next()).rejects.toThrow(/has ended/);
  });

  it('takes the vertical and the jurisdiction from the metadata, and refuses a legal question without one', async () => {
    const legal = (await client.sendMessage(userMessage('Can my landlord keep my deposit?', { metadata: { skillId: 'legal', jurisdiction: 'US', subJurisdiction: 'California' } }))) as Task;
    expect(legal.metadata).toMatchObject({ vertical: 'legal' });
    await expect(client.sendMessage(userMessage('Can my landlord keep my deposit?', { metadata: { skillId: 'legal' } }))).rejects.toThrow(/jurisdiction/);
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/no task/);
  });

  it('refuses requests without a key (401), with an unknown key (401) or a key without the a2a scope (403), as JSON-RPC errors', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: userMessageJson('hello') };
    const none = await request(t.url).post('/a2a').set('A2A-Version', '1.0').send(body).expect(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/API key is required/), data: { code: 'unauthorized' } } });
    const unknown = await request(t.url).post('/a2a').set('Authorization', 'Bearer sak_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').send(body).expect(401);
    expect(unknown.body.error).toMatchObject({ code: -32000, data: { code: 'unauthorized' } });
    const chatOnly = await issue(['chat']);
    const outOfScope = await request(t.url).post('/a2a').set('X-API-Key', chatOnly).send(body).expect(403);
    expect(outOfScope.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/may not be used for a2a/), data: { code: 'forbidden' } });
    // The SDK client sees the refusal as an error.
    const wrong = await a2aClient(t.url, chatOnly);
    await expect(wrong.sendMessage(userMessage('hello'))).rejects.toThrow();
  });

  it("refuses past the key's own rate limit: 429 with Retry-After and a JSON-RPC error, for SendMessage and SendStreamingMessage", async () => {
    const metered = (await admin.post('/api/api-keys').send({ name: 'metered agent', scopes: ['a2a'], rateLimitPerMinute: 2 }).expect(201)).body.data.key as string;
    const send = (method: string, k: string) =>
      request(t.url).post('/a2a').set('Authorization', `Bearer ${k}`).set('A2A-Version', '1.0').send({ jsonrpc: '2.0', id: 7, method, params: userMessageJson('How do I reset my password?') });
    const first = await send('SendMessage', metered).expect(200);
    expect(first.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await send('SendMessage', metered).expect(200);
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const limited = await send(method, metered).expect(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32000, message: expect.stringMatching(/^This API key may make 2 requests a minute/), data: { code: 'rate_limited', retryAfterSeconds: Number(limited.headers['retry-after']) } },
      });
    }
    // Another key is not held back by this one's limit.
    await send('SendMessage', key).expect(200);
  });

  it('refuses past the chat rate limits (per key, per IP): 429 with Retry-After and a JSON-RPC error; reading tasks is not limited', async () => {
    const fresh = await issue(['a2a']);
    const send = (method: string) =>
      request(t.url).post('/a2a').set('Authorization', `Bearer ${fresh}`).set('A2A-Version', '1.0').send({ jsonrpc: '2.0', id: 'q', method, params: userMessageJson('How do I reset my password?') });
    const expectRefused = (res: request.Response, message: RegExp) => {
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(message), data: { code: 'rate_limited', retryAfterSeconds: Number(res.headers['retry-after']) } } });
    };
    await admin.put('/api/config/global').send({ chatLimits: { keyPerMinute: 1 } }).expect(200);
    try {
      const answered = await send('SendMessage').expect(200);
      const taskId = answered.body.result.task.id as string;
      expectRefused(await send('SendMessage').expect(429), /^Too many messages with this API key\. Try again in \d+ s\.$/);
      expectRefused(await send('SendStreamingMessage').expect(429), /^Too many messages with this API key/);
      const read = await request(t.url).post('/a2a').set('Authorization', `Bearer ${fresh}`).set('A2A-Version', '1.0').send({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: taskId } }).expect(200);
      expect(read.body.result.id).toBe(taskId);

      // Per IP: every key from this address counts together (at most one more message here).
      await admin.put('/api/config/global').send({ chatLimits: { ...LIFTED_CHAT_LIMITS, ipPerMinute: 1 } }).expect(200);
      const other = await issue(['a2a']);
      const byIp = () => request(t.url).post('/a2a').set('X-API-Key', other).set('A2A-Version', '1.0').send({ jsonrpc: '2.0', id: 4, method: 'SendMessage', params: userMessageJson('How do I reset my password?') });
      const once = await byIp();
      const twice = once.status === 429 ? once : await byIp();
      expect(twice.status).toBe(429);
      expectRefused(twice, /^Too many messages from your network/);
    } finally {
      await admin.put('/api/config/global').send({ chatLimits: LIFTED_CHAT_LIMITS }).expect(200);
    }
  });

  it('serves 0.3 method names to requests without A2A-Version (the SDK compatibility layer), and refuses an unknown version clearly', async () => {
    const legacy = await request(t.url)
      .post('/a2a')
      .set('Authorization', `Bearer ${key}`)
      .send({ jsonrpc: '2.0', id: 'x', method: 'message/send', params: { message: { kind: 'message', messageId: 'legacy-1', role: 'user', parts: [{ kind: 'text', text: 'How do I reset my password?' }] } } })
      .expect(200);
    expect(legacy.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const future = await request(t.url).post('/a2a').set('Authorization', `Bearer ${key}`).set('A2A-Version', '9.0').send({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } }).expect(200);
    expect(future.body.error).toMatchObject({ code: -32009, message: expect.stringMatching(/not supported/) });
  });

  it('fails the task with a clear message when a budget cap is reached', async () => {
    await admin.put('/api/config/global').send({ budgets: { list: [{ scope: 'global', monthlyUsd: 0.000001, softPercent: 80, onCap: 'refuse' }], visitorDailyTokens: null } }).expect(200);
    try {
      const task = (await client.sendMessage(userMessage('How do I reset my password?'))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      const said = task.status?.message?.parts[0].content;
      expect(said).toEqual({ $case: 'text', value: expect.stringMatching(/reached its limit for this month/) });
      expect(task.status?.message?.metadata).toEqual({ code: 'budget_exhausted' });
    } finally {
      await admin.put('/api/config/global').send({ budgets: { list: [], visitorDailyTokens: null } }).expect(200);
    }
  });
});

function userMessageJson(text: string) {
  return { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text }] } };
}
