/**
 * The first-start sample seeder against a real database (SQLite; Postgres too when DATABASE_URL
 * is set, in its own schema).
 */
import { randomUUID } from 'node:crypto';
import { KnowledgeItemInputSchema } from '../shared/contracts/knowledge';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { knowledgeServiceOn } from '../../test/support/standalone';
import { AppConfig, loadConfig } from '../config/app-config';
import { dropPostgresSchema, openDataSource } from '../database/data-source';
import { Setting } from '../database/setting.entity';
import { KnowledgeSeeder, SAMPLE_SEEDED_KEY } from './knowledge-seeder.service';
import { KnowledgeService } from './knowledge.service';
import { SAMPLE_CATEGORY, SAMPLE_KNOWLEDGE, SAMPLE_TAG } from './sample-knowledge';

type Dialect = 'sqlite' | 'postgres';
const DATABASE_URL = process.env.DATABASE_URL;
const DIALECTS: Dialect[] = DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(DIALECTS)('KnowledgeSeeder on %s', (dialect) => {
  let dataSource: DataSource;
  let config: AppConfig;
  let knowledge: KnowledgeService;
  let dataDir: string;
  let schema: string | undefined;

  const seeder = (overrides: Partial<AppConfig> = {}) => new KnowledgeSeeder(dataSource, dataSource.getRepository(Setting), { ...config, ...overrides }, knowledge);
  const seededKey = () => dataSource.getRepository(Setting).findOneBy({ key: SAMPLE_SEEDED_KEY });

  beforeAll(async () => {
    Logger.overrideLogger(false);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'knowledge-seeder-spec-'));
    schema = dialect === 'postgres' ? `knowledge_seed_${randomUUID().replace(/-/g, '').slice(0, 12)}` : undefined;
    config = loadConfig({}, { dataDir, databaseUrl: dialect === 'postgres' ? DATABASE_URL : undefined, databaseSchema: schema, seedSampleKnowledge: true });
    dataSource = await openDataSource(config);
    knowledge = knowledgeServiceOn(dataSource);
  });

  afterAll(async () => {
    Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose']);
    await dataSource?.destroy();
    if (schema && DATABASE_URL) await dropPostgresSchema(DATABASE_URL, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await dataSource.query('DELETE FROM knowledge_chunks');
    await dataSource.query('DELETE FROM knowledge_items');
    await dataSource.getRepository(Setting).delete({ key: SAMPLE_SEEDED_KEY });
  });

  it('ships a labelled sample for every vertical', () => {
    const perVertical = (v: string) => SAMPLE_KNOWLEDGE.filter((item) => item.vertical === v).length;
    expect(perVertical('customer-service')).toBeGreaterThanOrEqual(8);
    expect(perVertical('hr')).toBeGreaterThanOrEqual(6);
    expect(perVertical('legal')).toBeGreaterThanOrEqual(2);
    expect(perVertical('sales')).toBeGreaterThanOrEqual(2);
    for (const item of SAMPLE_KNOWLEDGE) {
      expect(item.category).toBe(SAMPLE_CATEGORY);
      expect(item.tags[0]).toBe(SAMPLE_TAG);
      expect(item.content.split('\n\n').length).toBeGreaterThanOrEqual(2);
    }
    for (const item of SAMPLE_KNOWLEDGE.filter((i) => i.vertical === 'legal')) {
      expect(item.content).toMatch(/^General information only, not legal advice\./);
    }
  });

  it('seeds the sample on first start and records that it did', async () => {
    await expect(seeder().seedIfFirstStart()).resolves.toBe('seeded');
    const items = await knowledge.list();
    expect(items).toHaveLength(SAMPLE_KNOWLEDGE.length);
    expect(new Set(items.map((i) => i.category))).toEqual(new Set([SAMPLE_CATEGORY]));
    expect(await seededKey()).toEqual(expect.objectContaining({ key: SAMPLE_SEEDED_KEY }));

    const { sources } = await knowledge.retrieve('How do I get my money back?', { vertical: 'customer-service' });
    expect(sources[0].title).toBe('Returns and refunds');
    const hr = await knowledge.retrieve('How many vacation days do I get?', { vertical: 'hr' });
    expect(hr.sources[0].title).toBe('Paid time off (PTO)');
  });

  it('does not seed twice, and does not reseed after every item was deleted', async () => {
    await seeder().seedIfFirstStart();
    await expect(seeder().onApplicationBootstrap()).resolves.toBeUndefined();
    expect(await knowledge.count()).toBe(SAMPLE_KNOWLEDGE.length);

    for (const item of await knowledge.list()) await knowledge.remove(item.id);
    await expect(seeder().seedIfFirstStart()).resolves.toBe('already-seeded');
    expect(await knowledge.count()).toBe(0);
  });

  it('does nothing when seeding is switched off', async () => {
    await expect(seeder({ seedSampleKnowledge: false }).seedIfFirstStart()).resolves.toBe('disabled');
    expect(await knowledge.count()).toBe(0);
    expect(await seededKey()).toBeNull();
  });

  it('never adds samples to a knowledge base that already has content', async () => {
    await knowledge.create(KnowledgeItemInputSchema.parse({ title: 'Our own article', content: 'Real content.', vertical: 'hr' }));
    await expect(seeder().seedIfFirstStart()).resolves.toBe('existing-items');
    expect((await knowledge.list()).map((i) => i.title)).toEqual(['Our own article']);
    expect(await seededKey()).not.toBeNull();
  });

  it('seeds once when two servers start at the same time', async () => {
    const outcomes = await Promise.all([seeder().seedIfFirstStart(), seeder().seedIfFirstStart()]);
    expect(outcomes.filter((o) => o === 'seeded')).toHaveLength(1);
    expect(await knowledge.count()).toBe(SAMPLE_KNOWLEDGE.length);
  });
});
