/**
 * What the log says while Redis is away: one line when it goes down, a reminder a minute while it
 * stays down (with how many connection errors and failed commands were kept quiet), and one line
 * when it is back. Every Redis connection of the process (BullMQ producer and workers, the
 * Socket.IO adapter, the configuration bus, the rate limiter) reports here, so an outage is a few
 * lines a minute in all, not one line per reconnect attempt per connection (~400 a minute).
 */
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { redactUrl } from './redact-url';

export const OUTAGE_REMINDER_MS = 60_000;
/** Errors that are not about the connection (a bad command, a script error) are still logged, each message at most this often. */
const OTHER_ERROR_EVERY_MS = 60_000;

const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|Connection is closed|Stream isn't writeable|connect ETIMEDOUT|Socket closed unexpectedly|MaxRetriesPerRequest|Reached the max retries per request|LOADING|READONLY|CLUSTERDOWN|enableOfflineQueue/i;

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export function isRedisConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown } | undefined;
  if (e?.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e?.code === 'string' && CONNECTION_ERROR.test(e.code)) return true;
  return CONNECTION_ERROR.test(messageOf(error));
}


const registry = new Map<string, RedisOutageLog>();

export class RedisOutageLog {
  private readonly logger = new Logger('Redis');
  /** Connections currently failing. */
  private readonly down = new Set<string>();
  private downSince = 0;
  private quiet = 0;
  private lastReason = '';
  private reminder: NodeJS.Timeout | undefined;
  private readonly otherErrors = new Map<string, number>();
  private nextId = 0;

  private constructor(private readonly where: string) {}

  /** The log of one Redis (by URL) for this process: all its connections share it. */
  static for(redisUrl: string): RedisOutageLog {
    const where = redactUrl(redisUrl, 'redis');
    let log = registry.get(where);
    if (!log) registry.set(where, (log = new RedisOutageLog(where)));
    return log;
  }

  /** Routes a connection's 'error' events here and tells when it is ready again; returns the id it reports under. */
  watch(client: Redis, name: string): string {
    const id = `${name}#${(this.nextId += 1)}`;
    client.on('error', (error: unknown) => this.error(id, error));
    client.on('ready', () => this.ready(id));
    client.on('end', () => this.forget(id));
    return id;
  }

  /** An error event of a watched connection. */
  private error(source: string, error: unknown): void {
    if (isRedisConnectionError(error)) this.failed(source, messageOf(error));
    else this.other(source, error);
  }

  /** An error a library re-emits for connections it made itself (BullMQ queues and workers): counted, the watched ones announce the outage. */
  echoed(source: string, error: unknown): void {
    if (isRedisConnectionError(error)) this.quiet += 1;
    else this.other(source, error);
  }

  /** A command that failed: quiet when the connection failed (the outage is announced once), otherwise logged (at most once a minute per message). */
  commandFailed(source: string, error: unknown): void {
    // A connection error before the outage is known: the connection's own error event announces it.
    if (isRedisConnectionError(error)) {
      this.quiet += 1;
      return;
    }
    this.other(source, error);
  }

  get isDown(): boolean {
    return this.down.size > 0;
  }

  private failed(source: string, reason: string): void {
    this.lastReason = reason;
    if (this.down.size === 0) {
      this.downSince = Date.now();
      this.quiet = 0;
      this.down.add(source);
      this.logger.warn(`Redis at ${this.where} is unreachable (${reason}); jobs and mail wait, socket fan-out, configuration changes and rate limits fall back to this server until it is back`);
      this.reminder = setInterval(() => this.remind(), OUTAGE_REMINDER_MS);
      this.reminder.unref();
      return;
    }
    this.down.add(source);
    this.quiet += 1;
  }

  private ready(source: string): void {
    if (!this.down.delete(source) || this.down.size > 0) return;
    if (this.reminder) clearInterval(this.reminder);
    this.reminder = undefined;
    const seconds = Math.round((Date.now() - this.downSince) / 1000);
    this.logger.log(`Redis at ${this.where} is back after ${seconds} s (${this.quiet} connection errors and failed commands not logged)`);
  }

  /** A connection we closed: it no longer counts as down. */
  private forget(source: string): void {
    if (!this.down.delete(source) || this.down.size > 0) return;
    if (this.reminder) clearInterval(this.reminder);
    this.reminder = undefined;
  }

  private remind(): void {
    const seconds = Math.round((Date.now() - this.downSince) / 1000);
    this.logger.warn(`Redis at ${this.where} still unreachable after ${seconds} s (${this.down.size} connections waiting; ${this.quiet} errors not logged; last: ${this.lastReason})`);
  }

  private other(source: string, error: unknown): void {
    const message = messageOf(error);
    const now = Date.now();
    if (now - (this.otherErrors.get(message) ?? 0) < OTHER_ERROR_EVERY_MS) return;
    this.otherErrors.set(message, now);
    this.logger.error(`Redis error (${source}, ${this.where}): ${message}`);
  }
}
