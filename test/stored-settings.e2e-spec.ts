import { portableSql } from '../src/database/sql';
import { GLOBAL_SETTINGS_KEY } from '../src/agents/global-settings';
import { AgentRegistryService } from '../src/agents/agent-registry.service';
import { adminAgent, AdminAgent } from './support/admin-session';
import { startTestApp, TestApp } from './support/test-app';

describe('stored global settings that cannot be read', () => {
  let t: TestApp;
  let admin: AdminAgent;

  beforeAll(async () => {
    t = await startTestApp({ seedSampleKnowledge: false });
    admin = await adminAgent(t);
  });
  afterAll(async () => t?.close());

  async function store(value: string): Promise<void> {
    await t.dataSource.query(portableSql(t.dataSource, 'UPDATE settings SET value = $1 WHERE key = $2'), [value, GLOBAL_SETTINGS_KEY]);
    await t.app.get(AgentRegistryService).reload();
  }

  it('are shown in the console and by Validate, logged once, and the readable ones still apply', async () => {
    await admin.put('/api/config/global').send({ maxResponseLength: 800 }).expect(200);
    const [row] = (await t.dataSource.query(portableSql(t.dataSource, 'SELECT value FROM settings WHERE key = $1'), [GLOBAL_SETTINGS_KEY])) as { value: string }[];
    const stored = JSON.parse(row.value) as Record<string, unknown>;

    const warnings: string[] = [];
    const registry = t.app.get(AgentRegistryService) as unknown as { logger: { warn: (message: string) => void } };
    const warn = registry.logger.warn.bind(registry.logger);
    registry.logger.warn = (message: string) => {
      warnings.push(message);
      warn(message);
    };
    try {
      await store(JSON.stringify({ ...stored, budgets: { list: 'a lot' } }));
      await t.app.get(AgentRegistryService).reload();

      const config = await admin.get('/api/config').expect(200);
      expect(config.body.data.global.maxResponseLength).toBe(800);
      expect(config.body.data.settingsProblems).toEqual([expect.stringMatching(/^The stored setting budgets .* is not valid/)]);
      const report = await admin.get('/api/config/validate').expect(200);
      expect(report.body.data.valid).toBe(false);
      expect(report.body.data.problems).toContainEqual(expect.objectContaining({ severity: 'error', field: 'global', message: expect.stringMatching(/budgets/) }));
      expect(warnings.filter((w) => /budgets/.test(w))).toHaveLength(1);

      // Saving the settings again writes every field whole: the problem is gone.
      await admin.put('/api/config/global').send({ budgets: { list: [] } }).expect(200);
      const after = await admin.get('/api/config').expect(200);
      expect(after.body.data.settingsProblems).toEqual([]);
      expect(after.body.data.global.maxResponseLength).toBe(800);
    } finally {
      registry.logger.warn = warn;
    }
  });

  it('a row that is not JSON is reported as such', async () => {
    await store('{not json');
    const config = await admin.get('/api/config').expect(200);
    expect(config.body.data.settingsProblems).toEqual([expect.stringMatching(/not a JSON object/)]);
  });
});
