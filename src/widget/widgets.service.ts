/**
 * Embeddable chat widgets: the console's CRUD, the public view the loader and the iframe read,
 * the origin lock (which sites may frame the widget and call the chat with its id), the per-widget
 * message limit, and visitor tokens with identity verification.
 *
 * - Each server caches the widgets it looked up (unknown ids too) for CACHE_TTL_MS; a change or a
 *   deletion drops the entry here and on every other server through the `widgets` cluster channel.
 * - The identity secret (`whs_` + 256 random bits) is shown once, when the widget is made or the
 *   secret rotated; it is stored encrypted with the server key because signatures are checked with it.
 * - A verified identity gets the same visitor token on every device: the token is an HMAC of the
 *   widget id and the identity id with a server key, so its conversations follow it; anonymous
 *   visitors get a random token.
 */
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { jwtVerify } from 'jose';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { DataSource, Repository } from 'typeorm';
import { SecretBox } from '../agents/secret-box';
import { auditSecret } from '../audit/audit-diff';
import { AuditTargets } from '../audit/audit-targets';
import { Clock } from '../common/clock';
import { isCrossOrigin, type OriginHeaders, type SelfOrigin } from '../auth/origin-check';
import { ServerSecret } from '../auth/server-secret';
import { AppError } from '../common/app-error';
import { ClusterChannel } from '../common/cluster-channel';
import { RATE_LIMITER, RateLimiter } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { newVisitorSecret, visitorKeyOf, type Visitor } from '../conversations/visitor-identity';
import { queuedWrite } from '../database/write-queue';
import {
  originAllowed,
  type PublicWidget,
  type Widget,
  type WidgetIdentity,
  type WidgetPosition,
  type WidgetSettings,
  type WidgetVisitor,
  type WidgetVisitorRequest,
  type WidgetWithSecret,
} from '../shared/contracts/widgets';
import { WidgetRow } from './widget.entity';

export const WIDGET_CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 5_000;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const HMAC_HEX = /^[0-9a-f]{64}$/i;

export const WIDGET_MESSAGES = {
  notFound: 'No such widget. It may have been deleted: check the widget id in the snippet.',
  foreignOrigin: (origin: string) => `This widget may not be used on ${origin}: add it to the widget's allowed origins in the console.`,
  verticalNotOffered: (vertical: string) => `This widget does not offer ${vertical}.`,
  rateLimited: (perMinute: number, seconds: number) => `This chat takes ${perMinute} ${perMinute === 1 ? 'message' : 'messages'} a minute from all its visitors. Try again in ${seconds} s.`,
  identityRequired: 'This widget accepts only a verified identity: the signature is missing or wrong.',
} as const;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function toWidget(row: WidgetRow): Widget {
  return {
    id: row.id,
    name: row.name,
    allowedOrigins: row.allowedOrigins,
    verticals: row.verticals,
    defaultVertical: row.defaultVertical,
    greeting: row.greeting,
    color: row.color,
    textColor: row.textColor,
    position: row.position as WidgetPosition,
    defaultLanguage: row.defaultLanguage,
    launcherLabel: row.launcherLabel,
    requireIdentity: row.requireIdentity,
    messagesPerMinute: row.messagesPerMinute,
    secretRotatedAt: iso(row.secretRotatedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

export function toPublicWidget(row: WidgetRow): PublicWidget {
  return {
    id: row.id,
    verticals: row.verticals,
    defaultVertical: row.defaultVertical,
    greeting: row.greeting,
    color: row.color,
    textColor: row.textColor,
    position: row.position as WidgetPosition,
    defaultLanguage: row.defaultLanguage,
    launcherLabel: row.launcherLabel,
    requireIdentity: row.requireIdentity,
  };
}


@Injectable()
export class WidgetsService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, { row: WidgetRow | null; loadedAt: number }>();
  private readonly channel: ClusterChannel<{ id: string }>;
  private readonly secrets: SecretBox;

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @InjectRepository(WidgetRow) private readonly widgets: Repository<WidgetRow>,
    @Inject(RATE_LIMITER) private readonly limiter: RateLimiter,
    private readonly serverSecret: ServerSecret,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
    targets: AuditTargets,
  ) {
    // The audit records what a change did, field by field; the secret only as a fingerprint.
    targets.register('widget', {
      snapshot: async (id) => {
        const row = await this.widgets.findOneBy({ id });
        if (!row) return null;
        const { secretCipher, secretRotatedAt, createdAt, updatedAt, ...fields } = row;
        return { title: row.name, fields: { ...fields, secret: auditSecret(secretCipher) } };
      },
    });
    this.secrets = new SecretBox(config, 'widget-secrets');
    this.channel = new ClusterChannel<{ id: string }>({
      redisUrl: config.redisUrl,
      redisPrefix: config.redisPrefix,
      name: 'widgets',
      onMessage: (message) => (message?.id ? this.cache.delete(message.id) : this.cache.clear()),
      onReconnect: () => this.cache.clear(),
    });
  }

  async onModuleInit(): Promise<void> {
    await this.channel.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.channel.close();
  }

  // --- console ----------------------------------------------------------------------------------

  async list(): Promise<Widget[]> {
    const rows = await this.widgets.find({ order: { createdAt: 'ASC' } });
    return rows.map(toWidget);
  }

  async get(id: string): Promise<Widget> {
    return toWidget(await this.row(id));
  }

  async create(settings: WidgetSettings): Promise<WidgetWithSecret> {
    const now = this.clock.now();
    const id = randomUUID();
    const secret = `whs_${randomBytes(32).toString('base64url')}`;
    const row = this.widgets.create({
      id,
      ...this.columnsOf(settings),
      secretCipher: this.secrets.encrypt(secret, id),
      secretRotatedAt: now,
      createdAt: now,
      updatedAt: now,
    });
    await queuedWrite(this.dataSource, () => this.widgets.insert(row));
    return { widget: toWidget(row), secret };
  }

  async update(id: string, settings: WidgetSettings): Promise<Widget> {
    const row = await this.row(id);
    Object.assign(row, this.columnsOf(settings), { updatedAt: this.clock.now() });
    await queuedWrite(this.dataSource, () => this.widgets.update({ id }, { ...this.columnsOf(settings), updatedAt: row.updatedAt }));
    await this.changed(id);
    return toWidget(row);
  }

  async remove(id: string): Promise<{ id: string }> {
    const result = await queuedWrite(this.dataSource, () => this.widgets.delete({ id }));
    if (!result.affected) throw new AppError('not_found', WIDGET_MESSAGES.notFound);
    await this.changed(id);
    return { id };
  }

  /** A new identity secret: signatures made with the old one stop working at once. */
  async rotateSecret(id: string): Promise<WidgetWithSecret> {
    const row = await this.row(id);
    const secret = `whs_${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    Object.assign(row, { secretCipher: this.secrets.encrypt(secret, id), secretRotatedAt: now, updatedAt: now });
    await queuedWrite(this.dataSource, () => this.widgets.update({ id }, { secretCipher: row.secretCipher, secretRotatedAt: now, updatedAt: now }));
    await this.changed(id);
    return { widget: toWidget(row), secret };
  }

  /** Chat requests per widget since `since` (epoch ms), for Analytics. */
  async requestsPerWidget(since: number): Promise<Array<{ id: string; name: string; requests: number }>> {
    const rows: Array<{ widget_id: string; requests: string | number }> = await this.dataSource.query(
      `SELECT widget_id, COUNT(*) AS requests FROM usage_events WHERE kind = 'chat' AND widget_id IS NOT NULL AND created_at >= ${Math.floor(since)} GROUP BY widget_id`,
    );
    const counts = new Map(rows.map((r) => [r.widget_id, Number(r.requests)]));
    const widgets = await this.widgets.find({ order: { createdAt: 'ASC' } });
    return widgets.map((w) => ({ id: w.id, name: w.name, requests: counts.get(w.id) ?? 0 }));
  }

  // --- public -----------------------------------------------------------------------------------

  /** A widget by id (cached), or null when there is none (never made, or deleted). */
  async find(id: string): Promise<WidgetRow | null> {
    if (typeof id !== 'string' || id.length > 36 || !/^[0-9a-f-]+$/i.test(id)) return null;
    const now = this.clock.now();
    const cached = this.cache.get(id);
    if (cached && now - cached.loadedAt < WIDGET_CACHE_TTL_MS) return cached.row;
    const row = await this.widgets.findOneBy({ id });
    if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
    this.cache.set(id, { row, loadedAt: now });
    return row;
  }

  /** The widget, or 404 `not_found`. */
  async require(id: string): Promise<WidgetRow> {
    const row = await this.find(id);
    if (!row) throw new AppError('not_found', WIDGET_MESSAGES.notFound);
    return row;
  }

  /**
   * 403 unless the caller may use this widget: a browser call from another origin (Origin or
   * Sec-Fetch-Site says so) must come from one of its allowed origins. The iframe's own calls are
   * same-origin; calls without those headers are not made by a browser page and pass.
   */
  assertCaller(row: WidgetRow, headers: OriginHeaders, self: SelfOrigin): void {
    if (!isCrossOrigin(headers, self, [])) return;
    const origin = Array.isArray(headers.origin) ? headers.origin[0] : headers.origin;
    if (origin && origin !== 'null' && originAllowed(row.allowedOrigins, origin)) return;
    throw new AppError('forbidden', WIDGET_MESSAGES.foreignOrigin(origin && origin !== 'null' ? origin : 'this page'));
  }

  /** Before a message goes to the chat pipeline: the vertical must be one the widget offers, within its own rate limit. */
  async admitMessage(row: WidgetRow, vertical: string): Promise<void> {
    if (!row.verticals.includes(vertical)) throw new AppError('forbidden', WIDGET_MESSAGES.verticalNotOffered(vertical));
    if (row.messagesPerMinute === null) return;
    const result = await this.limiter.hit(`widget:${row.id}`, { limit: row.messagesPerMinute, windowMs: 60_000 }, this.clock.now());
    if (!result.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      throw new AppError('rate_limited', WIDGET_MESSAGES.rateLimited(row.messagesPerMinute, retryAfterSeconds), { retryAfterSeconds });
    }
  }

  /** The visitor a widget token names, or undefined for a missing or malformed one. */
  visitorOf(token: unknown): Visitor | undefined {
    return typeof token === 'string' && TOKEN_PATTERN.test(token) ? { key: visitorKeyOf(token), returning: true } : undefined;
  }

  /**
   * The token the iframe keeps: for a verified identity, the identity's own token (the same on every
   * device); otherwise the token it already has, or a new one. An identity without a valid signature
   * is ignored, or refused (403) when the widget requires verification.
   */
  async visitorToken(row: WidgetRow, request: WidgetVisitorRequest): Promise<WidgetVisitor> {
    const identity = request.identity;
    if (identity) {
      if (await this.verified(row, identity)) return { token: this.identityToken(row.id, identity.id), identified: true };
      if (row.requireIdentity) throw new AppError('forbidden', WIDGET_MESSAGES.identityRequired);
    }
    const kept = request.token && TOKEN_PATTERN.test(request.token) ? request.token : undefined;
    return { token: kept ?? newVisitorSecret(), identified: false };
  }

  private identityToken(widgetId: string, identityId: string): string {
    return createHmac('sha256', this.serverSecret.key('widget-visitors')).update(`${widgetId}\n${identityId}`).digest('base64url');
  }

  /** HMAC-SHA256(id) in hex with the widget's secret, or an HS256 JWT signed with it whose `sub` is the id and which has not expired. */
  private async verified(row: WidgetRow, identity: WidgetIdentity): Promise<boolean> {
    const signature = identity.signature?.trim();
    if (!signature) return false;
    const secret = this.secrets.decrypt(row.secretCipher, row.id);
    if (HMAC_HEX.test(signature)) {
      const expected = createHmac('sha256', secret).update(identity.id).digest();
      return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
    }
    if (signature.split('.').length !== 3) return false;
    try {
      const { payload } = await jwtVerify(signature, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(this.clock.now()),
      });
      return payload.sub === identity.id;
    } catch {
      return false;
    }
  }

  // --- internals --------------------------------------------------------------------------------

  private async row(id: string): Promise<WidgetRow> {
    const row = /^[0-9a-f-]{1,36}$/i.test(id) ? await this.widgets.findOneBy({ id }) : null;
    if (!row) throw new AppError('not_found', WIDGET_MESSAGES.notFound);
    return row;
  }

  private columnsOf(settings: WidgetSettings) {
    return {
      name: settings.name,
      allowedOrigins: settings.allowedOrigins,
      verticals: settings.verticals,
      defaultVertical: settings.defaultVertical,
      greeting: settings.greeting,
      color: settings.color.toLowerCase(),
      textColor: settings.textColor.toLowerCase(),
      position: settings.position,
      defaultLanguage: settings.defaultLanguage,
      launcherLabel: settings.launcherLabel,
      requireIdentity: settings.requireIdentity,
      messagesPerMinute: settings.messagesPerMinute ?? null,
    };
  }

  private async changed(id: string): Promise<void> {
    this.cache.delete(id);
    await this.channel.publish({ id }).catch(() => undefined);
  }
}
