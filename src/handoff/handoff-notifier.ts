/**
 * Who hears of a handoff besides the inbox: the members on duty by mail, the configured webhook
 * (a signed POST through the job queue, retried with backoff), and a visitor who left an email
 * address and has no page open when a person replies (by mail).
 *
 * Webhook request: `POST <url>` with a JSON body `{ id, event, at, conversation: {...} }` and the
 * headers `X-Handoff-Delivery` (the body's id, the same on every retry), `X-Handoff-Timestamp`
 * (Unix seconds) and `X-Handoff-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with
 * the webhook secret>` (no signature header without a secret). A receiver checks the signature
 * and refuses old timestamps (replays). Any answer but 2xx, or none in 10 s, is retried: 5 tries,
 * 1 s apart doubling. The URL is checked again before each try (a private or loopback address is
 * refused unless the settings allow it).
 */
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHmac, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { safeFetch, SafeFetchError } from '../common/safe-fetch';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { portableSql } from '../database/sql';
import { writeTransaction } from '../database/write-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import { MailOutboxService } from '../mail/mail-outbox.service';
import type { OutgoingMail } from '../mail/mail.types';
import { ACCESS } from '../shared/contracts/roles';
import { HandoffSettingsService } from './handoff-settings.service';

export const HANDOFF_WEBHOOK_JOB = 'handoff.webhook';
const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_BACKOFF_MS = 1000;
const WEBHOOK_TIMEOUT_MS = 10_000;

export interface HandedOff {
  conversationId: string;
  vertical: string;
  reason: string;
  title: string;
  question: string | null;
  requestedAt: number;
  withinHours: boolean;
  visitorEmail: string | null;
}

interface WebhookJob {
  id: string;
  event: 'handoff.requested';
  at: string;
  conversation: Omit<HandedOff, 'requestedAt' | 'visitorEmail'> & { requestedAt: string; visitorLeftEmail: boolean };
}

/** The signature header of a webhook body sent at `timestamp` (Unix seconds). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function mail(to: string, subject: string, lines: string[]): OutgoingMail {
  const text = `${lines.join('\n')}\n`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#0f172a">${lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</body></html>\n`;
  return { to, subject, text, html };
}

@Injectable()
export class HandoffNotifier implements OnModuleInit {
  private readonly logger = new Logger('Handoff');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly mails: MailOutboxService,
    private readonly settings: HandoffSettingsService,
    private readonly adminEvents: AdminEventsService,
  ) {}

  onModuleInit(): void {
    this.jobs.register<WebhookJob>(HANDOFF_WEBHOOK_JOB, (job) => this.deliver(job), { concurrency: 4 });
  }

  /** A person was asked for: mail the members on duty, queue the webhook. Never throws. */
  async handedOff(h: HandedOff): Promise<void> {
    try {
      const settings = await this.settings.get();
      if (settings.webhook.url) {
        const job: WebhookJob = {
          id: randomUUID(),
          event: 'handoff.requested',
          at: new Date().toISOString(),
          conversation: {
            conversationId: h.conversationId,
            vertical: h.vertical,
            reason: h.reason,
            title: h.title,
            question: h.question,
            requestedAt: new Date(h.requestedAt).toISOString(),
            withinHours: h.withinHours,
            visitorLeftEmail: h.visitorEmail !== null,
          },
        };
        await this.jobs.enqueue(HANDOFF_WEBHOOK_JOB, job, { attempts: WEBHOOK_ATTEMPTS, backoffMs: WEBHOOK_BACKOFF_MS, jobId: job.id });
      }
      const members = await this.onDuty(settings.onDuty);
      const link = `${this.config.publicUrl ?? `http://localhost:${this.config.port}`}/admin`;
      const subject = `A visitor asked for a person (${h.vertical})`;
      await this.send(
        members.map((m) =>
          mail(m.email, subject, [
            `A visitor asked for a person in ${h.vertical}${h.withinHours ? '' : ' (outside business hours: they left a message)'}.`,
            h.question ? `The question the assistant could not answer: "${h.question}"` : `Conversation: "${h.title}"`,
            `Open the Inbox to take it: ${link}`,
          ]),
        ),
        'handoff',
      );
    } catch (error) {
      this.logger.warn(`Could not notify of the handoff of ${h.conversationId}: ${(error as Error).message}`);
    }
  }

  /** A person replied: a visitor with no page open who left an address gets the reply by mail. Never throws. */
  async humanReplied(r: { conversationId: string; visitorKey: string; to: string; author: string; text: string; language: string | null }): Promise<void> {
    try {
      if (await this.adminEvents.visitorOnline(r.visitorKey)) return;
      await this.send([mail(r.to, `${r.author} replied to your question`, [`${r.author} replied:`, r.text, 'Open the chat again to continue the conversation.'])], 'handoff-reply');
    } catch (error) {
      this.logger.warn(`Could not mail the reply in ${r.conversationId}: ${(error as Error).message}`);
    }
  }

  private async onDuty(ids: string[]): Promise<{ email: string }[]> {
    const roles = ACCESS.conversationsAnswer;
    const rows: { id: string; email: string; role: string }[] = await this.dataSource.query(
      portableSql(this.dataSource, `SELECT id, email, role FROM admin_users WHERE disabled_at IS NULL`),
    );
    return rows.filter((r) => (roles as readonly string[]).includes(r.role) && (ids.length === 0 || ids.includes(r.id)));
  }

  private async send(mails: OutgoingMail[], kind: string): Promise<void> {
    if (mails.length === 0) return;
    const ids = await writeTransaction(this.dataSource, async (m) => Promise.all(mails.map((one) => this.mails.add(m, one, { kind }))));
    await Promise.all(ids.map((id) => this.mails.dispatch(id)));
  }

  /** One try of a webhook delivery; throws (the queue retries) unless the receiver answered 2xx. */
  async deliver(job: WebhookJob): Promise<void> {
    const settings = await this.settings.getWithSecret();
    const url = settings.webhook.url;
    if (!url) return;
    const body = JSON.stringify(job);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'support-assistant-webhook',
      'x-handoff-delivery': job.id,
      'x-handoff-timestamp': String(timestamp),
    };
    if (settings.webhookSecret) headers['x-handoff-signature'] = webhookSignature(settings.webhookSecret, timestamp, body);
    let status: number;
    try {
      // Connects only to the address that was checked (no second lookup), follows no redirect.
      const response = await safeFetch(url, { method: 'POST', headers, body, allow: this.settings.allowList(settings.webhook.allowPrivateAddresses), maxRedirects: 0, timeoutMs: WEBHOOK_TIMEOUT_MS, maxBytes: 64 * 1024 });
      status = response.status;
    } catch (error) {
      // A URL refused by the address check is not tried again (the settings must change first).
      if (error instanceof SafeFetchError && (error.code === 'address_refused' || error.code === 'invalid_url' || error.code === 'scheme_not_allowed')) {
        this.logger.warn(`Webhook ${job.id} not sent: ${error.message}`);
        return;
      }
      throw error;
    }
    if (status < 200 || status >= 300) throw new Error(`The webhook answered ${status}`);
  }
}
