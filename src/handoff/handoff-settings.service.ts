/**
 * The handoff settings (GET|PUT /api/config/handoff): business hours per vertical, the webhook
 * (URL, secret stored encrypted, whether a private address is allowed), the rules (unanswered
 * questions in a row, reopen on message) and the members on duty. Kept in the `settings` table
 * and read from there each time (every server sees a change at once).
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { SecretBox } from '../agents/secret-box';
import { AppError } from '../common/app-error';
import { checkUrl, SafeFetchError } from '../common/address-check';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Setting } from '../database/setting.entity';
import { portableSql } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { ACCESS } from '../shared/contracts/roles';
import {
  BusinessHoursSchema,
  DEFAULT_HANDOFF_RULES,
  HandoffRulesSchema,
  type BusinessHours,
  type HandoffSettings,
  type HandoffSettingsUpdate,
} from '../shared/contracts/handoff';

const KEY = 'handoff.settings';
const SECRET_CONTEXT = 'handoff-webhook';
/** Loopback, private (RFC 1918, unique local) and shared (CGNAT) ranges: what `allowPrivateAddresses` opens. */
const PRIVATE_RANGES = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '::1/128', 'fc00::/7'];

interface Stored {
  hours?: Record<string, unknown>;
  webhook?: { url?: string; secretCipher?: string | null; allowPrivateAddresses?: boolean };
  rules?: Partial<HandoffSettings['rules']>;
  onDuty?: string[];
}

/** The settings with the webhook secret (for the sender; never sent to a client). */
export interface HandoffSettingsWithSecret extends HandoffSettings {
  webhookSecret: string | null;
}

@Injectable()
export class HandoffSettingsService {
  private readonly box: SecretBox;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.box = new SecretBox(config, 'handoff-webhook');
  }

  /**
   * What the webhook may reach although not public: FETCH_ALLOW_PRIVATE, and with the setting
   * `allowPrivateAddresses` the loopback and private ranges (an on-premises receiver). Cloud
   * metadata addresses stay refused either way.
   */
  allowList(allowPrivate: boolean): string[] {
    return [...this.config.fetchAllowPrivate, ...(allowPrivate ? PRIVATE_RANGES : [])];
  }

  private async stored(): Promise<Stored> {
    const row = await this.settings.findOneBy({ key: KEY });
    if (!row) return {};
    try {
      return JSON.parse(row.value) as Stored;
    } catch {
      return {};
    }
  }

  async get(): Promise<HandoffSettings> {
    const { webhookSecret: _secret, ...settings } = await this.getWithSecret();
    return settings;
  }

  async getWithSecret(): Promise<HandoffSettingsWithSecret> {
    const stored = await this.stored();
    const hours: Record<string, BusinessHours> = {};
    for (const [vertical, value] of Object.entries(stored.hours ?? {})) {
      const parsed = BusinessHoursSchema.safeParse(value);
      if (parsed.success) hours[vertical] = parsed.data;
    }
    const rules = HandoffRulesSchema.safeParse({ ...DEFAULT_HANDOFF_RULES, ...stored.rules });
    let webhookSecret: string | null = null;
    if (stored.webhook?.secretCipher) {
      try {
        webhookSecret = this.box.decrypt(stored.webhook.secretCipher, SECRET_CONTEXT);
      } catch {
        webhookSecret = null;
      }
    }
    return {
      hours,
      webhook: { url: stored.webhook?.url ?? '', secretSet: webhookSecret !== null, allowPrivateAddresses: stored.webhook?.allowPrivateAddresses === true },
      rules: rules.success ? rules.data : { ...DEFAULT_HANDOFF_RULES },
      onDuty: Array.isArray(stored.onDuty) ? stored.onDuty.filter((id) => typeof id === 'string') : [],
      webhookSecret,
    };
  }

  /** Members on duty must exist and be able to answer conversations (else nobody would be told). */
  private async checkOnDuty(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const rows: { id: string; email: string; role: string }[] = await this.dataSource.query(
      portableSql(this.dataSource, `SELECT id, email, role FROM admin_users WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`),
      ids,
    );
    const unknown = ids.filter((id) => !rows.some((r) => r.id === id));
    if (unknown.length > 0) throw new AppError('validation_failed', `On duty: no member has the id ${unknown.slice(0, 3).join(', ')}`);
    const cannot = rows.filter((r) => !(ACCESS.conversationsAnswer as readonly string[]).includes(r.role));
    if (cannot.length > 0) throw new AppError('validation_failed', `On duty: ${cannot.map((r) => `${r.email} (${r.role})`).join(', ')} cannot answer conversations`);
  }

  /** Merges an update; a webhook URL on a private or loopback address is refused (400) unless private addresses are allowed. */
  async update(update: HandoffSettingsUpdate): Promise<HandoffSettings> {
    const stored = await this.stored();
    const next: Stored = { ...stored, webhook: { ...stored.webhook }, hours: { ...stored.hours }, rules: { ...stored.rules } };
    if (update.hours) {
      for (const [vertical, hours] of Object.entries(update.hours)) {
        if (hours === null) delete next.hours![vertical];
        else next.hours![vertical] = hours;
      }
    }
    if (update.rules) next.rules = { ...next.rules, ...update.rules };
    if (update.onDuty) {
      next.onDuty = [...new Set(update.onDuty)];
      await this.checkOnDuty(next.onDuty);
    }
    if (update.webhook) {
      const w = update.webhook;
      if (w.url !== undefined) next.webhook!.url = w.url;
      if (w.allowPrivateAddresses !== undefined) next.webhook!.allowPrivateAddresses = w.allowPrivateAddresses;
      if (w.secret === null) next.webhook!.secretCipher = null;
      else if (w.secret) next.webhook!.secretCipher = this.box.encrypt(w.secret, SECRET_CONTEXT);
    }
    const url = next.webhook?.url ?? '';
    if (url !== '') {
      try {
        await checkUrl(url, { allow: this.allowList(next.webhook?.allowPrivateAddresses === true) });
      } catch (error) {
        if (error instanceof SafeFetchError) throw new AppError('validation_failed', `The webhook URL is refused: ${error.message}`);
        throw error;
      }
    }
    const value = JSON.stringify(next);
    await queuedWrite(this.dataSource, () => this.settings.upsert({ key: KEY, value, updatedAt: Date.now() }, ['key']));
    return this.get();
  }
}
