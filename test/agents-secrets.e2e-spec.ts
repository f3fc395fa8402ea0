/**
 * API keys at rest and in transit: encrypted in the database (SQLite file bytes, or every row of
 * every Postgres table as text), masked in every response, a tampered ciphertext fails only its
 * own agent (clearly), and stored keys with a missing key file or another APP_SECRET stop the
 * start with a clear message.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Agent } from '../src/agents/agent.entity';
import { createApp } from '../src/app.factory';
import { AdminUsersService } from '../src/auth/admin-users.service';
import { loadConfig } from '../src/config/app-config';
import { dropPostgresSchema } from '../src/database/data-source';
import { adminAgent, AdminAgent } from './support/admin-session';
import { MockLlmServer, startMockLlmServer } from './support/mock-llm-server';
import { chatOverSocket, connectClient, distributed, startTestApp, TestApp, uniqueSchema } from './support/test-app';

const OPENAI_KEY = 'sk-proj-Secret0penAiKeyValue0000abcd';
const ANTHROPIC_KEY = 'sk-ant-api03-SecretAnthropicKeyValue0000wxyz';

/** The admin agent of test/support/admin-session.ts; until that helper signs in by itself, this signs it in. */
async function signedInAdmin(t: TestApp): Promise<AdminAgent> {
  const admin = await adminAgent(t);
  if ((await admin.get('/api/auth/me')).status === 200) return admin;
  const email = 'secrets-admin@example.com';
  const password = 'secrets admin password';
  await t.app.get(AdminUsersService).create({ email, name: 'Secrets Admin', password }).catch(() => undefined);
  await admin.post('/api/auth/login-password').send({ email, password }).expect(200);
  return admin;
}

/** A server that keeps its data (dataDir, Postgres schema) across restarts. */
function persistentOverrides(extra: Record<string, unknown> = {}) {
  return {
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'sa-agents-')),
    databaseSchema: distributed.databaseUrl ? uniqueSchema() : undefined,
    seedSampleKnowledge: false,
    ...extra,
  };
}

async function removePersistent(overrides: { dataDir: string; databaseSchema?: string }) {
  if (distributed.databaseUrl && overrides.databaseSchema) await dropPostgresSchema(distributed.databaseUrl, overrides.databaseSchema);
  fs.rmSync(overrides.dataDir, { recursive: true, force: true });
}

/** Everything the database holds, as bytes (SQLite files incl. WAL) or as text (every row of every Postgres table). */
async function databaseDump(t: TestApp): Promise<string> {
  if (!t.config.databaseUrl) {
    return fs
      .readdirSync(t.config.dataDir)
      .filter((f) => f.startsWith('app.db'))
      .map((f) => fs.readFileSync(path.join(t.config.dataDir, f)).toString('latin1'))
      .join('\n');
  }
  const client = new Client({ connectionString: t.config.databaseUrl });
  await client.connect();
  try {
    const schema = t.config.databaseSchema ?? 'public';
    const tables = await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
    expect(tables.rows.map((r) => r.table_name)).toContain('agents');
    const parts: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${table_name}" t`);
      parts.push(...rows.rows.map((r) => r.row));
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}

describe('API keys at rest and in responses', () => {
  let mock: MockLlmServer;

  beforeAll(async () => {
    mock = await startMockLlmServer({ tokens: 3, validKeys: [OPENAI_KEY, ANTHROPIC_KEY] });
  });

  afterAll(async () => {
    await mock?.close();
  });

  it('stores keys only encrypted (v1 AES-GCM), never in plain in the database, and returns only masks', async () => {
    const t = await startTestApp({ openaiApiKey: OPENAI_KEY, openaiBaseUrl: mock.openaiBaseUrl, seedSampleKnowledge: false });
    try {
      const admin = await signedInAdmin(t);
      const saved = await admin.put('/api/config/agents/legal-agent').send({ llmConfig: { provider: 'anthropic', model: 'claude-haiku-4-5', apiKey: ANTHROPIC_KEY, baseUrl: mock.anthropicBaseUrl } }).expect(200);
      const created = await admin.post('/api/config/agents').send({ agentId: 'spare-agent', agentName: 'Spare', vertical: 'sales', enabled: false, llmConfig: { provider: 'openai', apiKey: OPENAI_KEY } }).expect(201);

      // The chat still reaches the vendor with the real key.
      await request(t.url).post('/interact').send({ vertical: 'legal', query: 'Can my landlord keep my deposit?', jurisdiction: 'UK', subJurisdiction: 'Scotland' }).expect(200);
      expect(mock.requests.at(-1)).toMatchObject({ vendor: 'anthropic', apiKey: ANTHROPIC_KEY });

      const rows = await t.dataSource.getRepository(Agent).find();
      for (const row of rows) expect(row.apiKeyCipher).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);

      const dump = await databaseDump(t);
      expect(dump).toContain('legal-agent');
      expect(dump).not.toContain('sk-');
      expect(dump).not.toContain('sk-ant-');
      expect(dump).not.toContain('Secret0penAiKeyValue');
      expect(dump).not.toContain('SecretAnthropicKeyValue');

      // Every response that describes agents carries only the mask.
      const responses = [
        saved,
        created,
        await admin.get('/api/config').expect(200),
        await admin.get('/api/config/agents').expect(200),
        await admin.get('/api/config/agents/legal-agent').expect(200),
        await admin.put('/api/config/agents/spare-agent').send({ agentName: 'Spare 2' }).expect(200),
        await admin.get('/api/config/validate').expect(200),
        await admin.get('/api/config/export').expect(200),
        await admin.post('/api/config/test-api-key').send({ agentId: 'legal-agent' }).expect(200),
        await admin.put('/api/config/global').send({ debugMode: false }).expect(200),
        await request(t.url).get('/agents/health').expect(200),
        await request(t.url).get('/api/public/settings').expect(200),
      ];
      for (const res of responses) {
        expect(res.text).not.toContain('Secret0penAiKeyValue');
        expect(res.text).not.toContain('SecretAnthropicKeyValue');
      }
      const config = (await admin.get('/api/config').expect(200)).body.data;
      const byId = (id: string) => config.agents.find((a: { agentId: string }) => a.agentId === id);
      expect(byId('legal-agent').llmConfig.apiKey).toBe('sk-...wxyz');
      expect(byId('spare-agent').llmConfig.apiKey).toBe('sk-...abcd');
      expect(byId('hr-agent').llmConfig.apiKey).toBe('sk-...abcd');
    } finally {
      await t.close();
    }
  });

  it('one flipped byte in a stored ciphertext: that agent reports a clear error, the others and the server carry on', async () => {
    const overrides = persistentOverrides({ openaiApiKey: OPENAI_KEY, openaiBaseUrl: mock.openaiBaseUrl });
    let t = await startTestApp(overrides);
    try {
      const repo = t.dataSource.getRepository(Agent);
      const row = await repo.findOneByOrFail({ agentId: 'hr-agent' });
      const bytes = Buffer.from(row.apiKeyCipher!.slice(3), 'base64');
      bytes[bytes.length - 3] ^= 0x01;
      await repo.update({ agentId: 'hr-agent' }, { apiKeyCipher: `v1:${bytes.toString('base64')}` });
      await t.close({ keepData: true });
      t = await startTestApp(overrides);

      await request(t.url).get('/health').expect(200);
      const health = await request(t.url).get('/agents/health').expect(200);
      const healthOf = (id: string) => health.body.data.agents.find((a: { id: string }) => a.id === id);
      expect(healthOf('hr-agent').healthy).toBe(false);
      expect(healthOf('sales-agent').healthy).toBe(true);

      const sent = mock.requests.length;
      const chat = await request(t.url).post('/interact').send({ vertical: 'hr', query: 'What is the parental leave policy?' });
      expect(chat.status).toBe(502);
      expect(chat.body.error).toEqual({ code: 'provider_error', message: expect.stringMatching(/API key could not be read on the server/) });
      const socket = await connectClient(t.url);
      const viaSocket = await chatOverSocket(socket, { vertical: 'hr', query: 'What is the parental leave policy?' });
      socket.close();
      expect(viaSocket.error).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/API key could not be read/) });
      expect(mock.requests.length).toBe(sent);
      await request(t.url).post('/interact').send({ vertical: 'sales', query: 'How do I qualify a lead?' }).expect(200);

      const admin = await signedInAdmin(t);
      const agent = (await admin.get('/api/config/agents/hr-agent').expect(200)).body.data;
      expect(agent).toMatchObject({ keyStatus: 'unreadable', keyError: expect.stringMatching(/cannot be decrypted: the stored value failed authentication/), llmConfig: { apiKey: '' } });
      const report = (await admin.get('/api/config/validate').expect(200)).body.data;
      expect(report.valid).toBe(false);
      expect(report.problems).toContainEqual(expect.objectContaining({ agentId: 'hr-agent', field: 'llmConfig.apiKey' }));
      const test = (await admin.post('/api/config/test-api-key').send({ agentId: 'hr-agent' }).expect(200)).body.data;
      expect(test).toMatchObject({ isValid: false, reason: expect.stringMatching(/cannot be decrypted/) });

      // Entering the key again repairs the agent.
      await admin.put('/api/config/agents/hr-agent').send({ llmConfig: { apiKey: OPENAI_KEY } }).expect(200);
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'What is the parental leave policy?' }).expect(200);
    } finally {
      await t.close({ keepData: true });
      await removePersistent(overrides);
    }
  });

  it('stored keys and a missing key file (no APP_SECRET): a clear start-up error naming the file', async () => {
    const overrides = persistentOverrides({ openaiApiKey: OPENAI_KEY, openaiBaseUrl: mock.openaiBaseUrl });
    const first = await startTestApp(overrides);
    const keyFile = path.join(overrides.dataDir, 'secret.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    await first.close({ keepData: true });
    fs.rmSync(keyFile);
    const config = loadConfig({}, { ...first.config, port: 0 });
    const app = await createApp(config);
    const dataSource = app.get(DataSource);
    try {
      await expect(app.init()).rejects.toThrow(/encrypted with a different server key \(APP_SECRET is not set and the key file .*secret\.key is missing or was replaced\)/);
    } finally {
      await app.close().catch(() => undefined);
      await removePersistent(overrides);
    }
    // The failed start closed the database with everything else.
    expect(dataSource.isInitialized).toBe(false);
  });

  it('keys follow APP_SECRET: the same secret reads them after a restart, another one stops the start', async () => {
    const secret = 'a'.repeat(40);
    const overrides = persistentOverrides({ appSecret: secret, openaiApiKey: OPENAI_KEY, openaiBaseUrl: mock.openaiBaseUrl });
    let t = await startTestApp(overrides);
    expect(fs.existsSync(path.join(overrides.dataDir, 'secret.key'))).toBe(false);
    await t.close({ keepData: true });
    t = await startTestApp(overrides);
    try {
      await request(t.url).post('/interact').send({ vertical: 'hr', query: 'How do I book leave?' }).expect(200);
      expect(mock.requests.at(-1)!.apiKey).toBe(OPENAI_KEY);
    } finally {
      await t.close({ keepData: true });
    }
    const app = await createApp(loadConfig({}, { ...t.config, appSecret: 'b'.repeat(40), port: 0 }));
    const dataSource = app.get(DataSource);
    try {
      await expect(app.init()).rejects.toThrow(/different server key \(APP_SECRET is not the one they were saved with\)/);
    } finally {
      await app.close().catch(() => undefined);
      await removePersistent(overrides);
    }
    expect(dataSource.isInitialized).toBe(false);
  });
});
