/**
 * A2A on a cluster: three app processes on PostgreSQL and Redis behind nginx (`npm run cluster`).
 * A task streamed from server A whose stream is cut off is finished through server B with
 * SubscribeToTask (the official SDK client): the text the client had, then the task's snapshot,
 * then the rest, is the whole reply exactly once; GetTask on server C reads the same; ListTasks on
 * nginx lists it; CancelTask through one server stops a reply running on another. MCP through
 * nginx answers on whichever server it reaches (stateless).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { describeWith, NEEDS } from '../support/requirements';
import { a2aClient, textOfTask, userMessage } from '../support/a2a-client';
import { mcpClient } from '../support/mcp-client';
import { MockLlmServer, startMockLlmServer } from '../support/mock-llm-server';
import { ClusterProcess, liftChatLimits, startCluster, tearDownCluster } from './support/cluster-process';
import { SharedServices, sharedServices } from './support/shared-services';

// nginx in front, and Redis and PostgreSQL for the three servers: skipped with the reason where missing.
const describeWithNginx = (name: string, fn: () => void) => describeWith([NEEDS.nginx, NEEDS.sharedServices], name, fn);
const ADMIN = { email: 'a2a-cluster-admin@example.com', password: 'a long enough cluster test password' };

function textOf(event: StreamResponse): string {
  if (event.payload?.$case !== 'artifactUpdate') return '';
  return event.payload.value.artifact!.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

function seqOf(event: StreamResponse): number | undefined {
  // Artifact updates carry their frame's number (the final status repeats the last one).
  const metadata = event.payload?.$case === 'artifactUpdate' ? event.payload.value.metadata : undefined;
  return typeof metadata?.seq === 'number' ? metadata.seq : undefined;
}

/** Signs in as the cluster's admin and issues an API key with `scopes`. */
async function issueKey(url: string, scopes: string[]): Promise<string> {
  const login = await fetch(`${url}/api/auth/login-password`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
  const cookie = (login.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const res = await fetch(`${url}/api/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin: url }, body: JSON.stringify({ name: 'cluster agent', scopes }) });
  if (res.status !== 201) throw new Error(`issuing a key failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { key: string } }).data.key;
}

describeWithNginx('A2A and MCP on three servers behind nginx', () => {
  let mock: MockLlmServer;
  let backing: SharedServices;
  let dir: string;
  let cluster: ClusterProcess | undefined;
  let key: string;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 12 });
    backing = await sharedServices();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-a2a-cluster-'));
    cluster = await startCluster({
      apps: 3,
      dir,
      source: process.env.FAULTS_FROM_DIST !== '1',
      env: {
        DATABASE_URL: backing.databaseUrl,
        DATABASE_SCHEMA: backing.schema,
        REDIS_URL: backing.redisUrl,
        REDIS_PREFIX: `a2a${randomBytes(4).toString('hex')}`,
        OPENAI_API_KEY: 'sk-cluster',
        OPENAI_BASE_URL: mock.openaiBaseUrl,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
    });
    await liftChatLimits(cluster.state.url, ADMIN.email, ADMIN.password);
    key = await issueKey(cluster.state.url, ['a2a', 'mcp']);
  }, 300_000);

  afterAll(async () => {
    await tearDownCluster({ cluster, dir, others: [mock, backing] });
  }, 60_000);

  it('finishes a stream cut off on server A with SubscribeToTask on server B: nothing lost, nothing repeated', async () => {
    const [a, b, c] = cluster!.state.apps;
    const onA = await a2aClient(a.url, key);
    const onB = await a2aClient(b.url, key);
    const onC = await a2aClient(c.url, key);

    // 1. Stream through A; cut the connection after a few pieces.
    const cut = new AbortController();
    const before: StreamResponse[] = [];
    let taskId = '';
    await expect(
      (async () => {
        for await (const event of onA.sendMessageStream(userMessage('How do I reset my password? [mock:tokens=80;delay=40]'), { signal: cut.signal })) {
          if (event.payload?.$case === 'task') taskId = event.payload.value.id;
          before.push(event);
          if (before.filter((e) => textOf(e) !== '').length === 5) cut.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(taskId).not.toBe('');
    const had = before.map(textOf).join('');
    const lastSeqOnA = Math.max(...before.map((e) => seqOf(e) ?? 0));
    expect(had.length).toBeGreaterThan(0);

    // 2. The rest through B: the task as it stands (which holds what the client had), then each later piece once.
    const after: StreamResponse[] = [];
    for await (const event of onB.resubscribeTask({ tenant: '', id: taskId })) after.push(event);
    expect(after[0].payload?.$case).toBe('task');
    const snapshot = after[0].payload!.value as Task;
    expect(snapshot.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const snapshotText = textOfTask(snapshot);
    expect(snapshotText.startsWith(had)).toBe(true);
    const rest = after.slice(1).map(textOf).join('');
    const final = after[after.length - 1];
    expect(final.payload?.$case).toBe('statusUpdate');
    expect(final.payload?.$case === 'statusUpdate' && final.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Frame numbers: B's start after the snapshot's, strictly increasing (none twice).
    const seqs = after.slice(1).map(seqOf).filter((s): s is number => s !== undefined);
    expect(seqs[0]).toBeGreaterThan(Number(snapshot.metadata?.seq ?? 0));
    expect(Number(snapshot.metadata?.seq ?? 0)).toBeGreaterThanOrEqual(lastSeqOnA);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);

    // 3. The whole reply, exactly once: the provider's text, and what C reads.
    const call = mock.requests.find((r) => r.kind === 'chat' && JSON.stringify(r.messages).includes('[mock:tokens=80;delay=40]'))!;
    expect(snapshotText + rest).toBe(call.replyText);
    const read = await onC.getTask({ tenant: '', id: taskId });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(read)).toBe(call.replyText);
    const viaNginx = await a2aClient(cluster!.state.url, key);
    const listed = await viaNginx.listTasks({ tenant: '', contextId: read.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((task) => task.id)).toEqual([taskId]);
    console.log(`a2a cluster: cut on ${a.name} after ${had.length} chars (seq ${lastSeqOnA}); ${b.name} resumed from seq ${snapshot.metadata?.seq} with ${seqs.length} frames; ${call.replyText?.length} chars in all`);
  }, 120_000);

  it('cancels through server B a task streaming from server A (the provider call is aborted)', async () => {
    const [a, b] = cluster!.state.apps;
    const onA = await a2aClient(a.url, key);
    const onB = await a2aClient(b.url, key);
    const stream = onA.sendMessageStream(userMessage('How long does shipping take? [mock:tokens=400;delay=30]'));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
    let got = 0;
    for await (const event of stream) {
      if (textOf(event)) got += 1;
      if (got === 3) break;
    }
    const cancelled = await onB.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const call = mock.requests.find((r) => r.kind === 'chat' && JSON.stringify(r.messages).includes('[mock:tokens=400;delay=30]'))!;
    const closed = await mock.waitForClose(call, 10_000);
    expect(closed.completed).toBe(false);
  }, 60_000);

  it('answers MCP through nginx on any server (stateless)', async () => {
    const client = await mcpClient(cluster!.state.url, key);
    try {
      for (let i = 0; i < 4; i += 1) {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(3);
      }
      const result = await client.callTool({ name: 'search_knowledge', arguments: { query: 'vacation days', vertical: 'hr' } });
      expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 60_000);
});
