/**
 * The team's sign-in policy, kept in the settings table (one row, read at each sign-in, so every
 * server applies a change at once): whether every member must have a second factor.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { queuedWrite } from '../../database/write-queue';
import { Setting } from '../../database/setting.entity';
import type { SecurityPolicy } from '../../shared/contracts/auth';
import { Clock } from '../../common/clock';

export const SECURITY_POLICY_KEY = 'security.policy';
const DEFAULT_POLICY: SecurityPolicy = { requireSecondFactor: false };

@Injectable()
export class SecurityPolicyService {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    private readonly clock: Clock,
  ) {}

  async get(): Promise<SecurityPolicy> {
    const row = await this.settings.findOneBy({ key: SECURITY_POLICY_KEY });
    if (!row) return { ...DEFAULT_POLICY };
    try {
      return { ...DEFAULT_POLICY, ...(JSON.parse(row.value) as Partial<SecurityPolicy>) };
    } catch {
      return { ...DEFAULT_POLICY };
    }
  }

  async save(policy: SecurityPolicy): Promise<SecurityPolicy> {
    await queuedWrite(this.dataSource, () => this.settings.upsert({ key: SECURITY_POLICY_KEY, value: JSON.stringify(policy), updatedAt: this.clock.now() }, ['key']));
    return policy;
  }
}
