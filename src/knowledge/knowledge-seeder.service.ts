/**
 * Seeds the sample knowledge base (sample-knowledge.ts) once, on the first start of an install.
 *
 * "Once" is recorded in the settings table under SAMPLE_SEEDED_KEY, written in the same
 * transaction as the items (and before them, so a second server starting at the same time fails
 * on the key's primary key instead of seeding twice). Deleting every item later does not bring
 * the samples back. An install that already has items is never seeded.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Setting } from '../database/setting.entity';
import { queuedWrite } from '../database/write-queue';
import { KnowledgeItemInputSchema } from '../shared/contracts/knowledge';
import { KnowledgeService } from './knowledge.service';
import { SAMPLE_KNOWLEDGE } from './sample-knowledge';

export const SAMPLE_SEEDED_KEY = 'knowledge.sampleSeededAt';

export type SeedOutcome = 'seeded' | 'already-seeded' | 'disabled' | 'existing-items' | 'lost-race';

@Injectable()
export class KnowledgeSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(KnowledgeSeeder.name);

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly knowledge: KnowledgeService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.seedIfFirstStart();
  }

  /** Seeds unless disabled, done before, or the knowledge base already has content. */
  async seedIfFirstStart(): Promise<SeedOutcome> {
    if (!this.config.seedSampleKnowledge) return 'disabled';
    if (await this.settings.existsBy({ key: SAMPLE_SEEDED_KEY })) return 'already-seeded';

    const now = Date.now();
    if ((await this.knowledge.count()) > 0) {
      // Someone's real content is here already: remember not to add samples to it later.
      await queuedWrite(this.dataSource, () =>
        this.settings.insert({ key: SAMPLE_SEEDED_KEY, value: `skipped:existing-items:${now}`, updatedAt: now }),
      ).catch(() => undefined);
      return 'existing-items';
    }

    try {
      await this.knowledge.createMany(SAMPLE_KNOWLEDGE.map((item) => KnowledgeItemInputSchema.parse(item)), async (manager) => {
        await manager.insert(Setting, { key: SAMPLE_SEEDED_KEY, value: String(now), updatedAt: now });
      });
    } catch (error) {
      if (await this.settings.existsBy({ key: SAMPLE_SEEDED_KEY })) return 'lost-race';
      throw error;
    }
    this.logger.log(`Added ${SAMPLE_KNOWLEDGE.length} sample knowledge items (category 'Sample')`);
    return 'seeded';
  }
}
