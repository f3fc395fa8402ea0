/**
 * The typed configuration. Only this folder reads process.env: `loadConfig` validates every
 * setting once at start and throws a ConfigError that names each bad setting.
 */
import { isValidEmail, normalizeEmail } from '../shared/contracts/auth';
import * as path from 'node:path';
import proxyaddr from 'proxy-addr';
import { parseAllowList } from '../common/address-check';

export interface AppConfig {
  port: number;
  dataDir: string;
  /** postgres://... when set; otherwise SQLite at dataDir/app.db */
  databaseUrl?: string;
  /** Postgres: how long connecting may take (the start fails with a clear message after it; a pool connection during an outage too). */
  databaseConnectTimeoutMs: number;
  /**
   * Postgres: the longest one statement may wait for its answer (client read timeout and the
   * server's statement_timeout). A database that stops answering on an open connection then
   * fails the request with 503 instead of holding it for as long as the database is silent.
   * Migrations at start are not bound by it.
   */
  databaseQueryTimeoutMs: number;
  /** Postgres only: schema to use (tests isolate suites with it). */
  databaseSchema?: string;
  redisUrl?: string;
  /** Prefix of every Redis key (BullMQ queues, Socket.IO channels, counters); servers that work together share it. */
  redisPrefix: string;
  smtpUrl?: string;
  appSecret?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  azureOpenaiEndpoint?: string;
  azureOpenaiApiKey?: string;
  azureOpenaiApiVersion: string;
  /** OpenAI-compatible server (Ollama, vLLM, llama.cpp server). */
  llmBaseUrl?: string;
  llmApiKey?: string;
  /** Model used by agents of the configured provider when none is named. */
  llmModel?: string;
  healthIntervalMs: number;
  /** Descriptors of the listening socket the event loop polls: each accepts one waiting connection per turn (src/common/accept-handles.ts). */
  acceptHandles: number;
  chatTimeoutMs: number;
  /** Per-agent upstream timeout (ms) for the environment-defined agents. */
  agentTimeoutMs: number;
  /** Longest a question rewrite (into the knowledge base's language) may take before the search goes on without it. */
  rewriteTimeoutMs: number;
  /** Longest an embedding call for a question may take before the search falls back to BM25 alone. */
  embeddingTimeoutMs: number;
  corsOrigins: string[];
  /**
   * Peers whose forwarding headers (X-Forwarded-For, -Host, -Proto) are believed: IPs, CIDRs, or
   * the names loopback, linklocal, uniquelocal. Empty (the default): nobody's.
   */
  trustProxy: string[];
  /**
   * FETCH_ALLOW_PRIVATE: addresses, CIDR ranges and host names that fetches made for users (website
   * import, webhooks) may reach although they are not public. Empty (the default): public addresses only.
   */
  fetchAllowPrivate: string[];
  /** Pause between two page requests of a website import when robots.txt names no crawl delay (ms; default 1 a second). */
  siteImportDelayMs: number;
  /** Graceful shutdown budget for running streams (ms). */
  shutdownGraceMs: number;
  /** Serve the built client from this folder when it exists. */
  clientDir: string;
  /** Usage events are written in batches at most this often (ms). */
  usageFlushMs: number;
  /** Pause between word groups of the offline responder's stream (ms). */
  localResponderDelayMs: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** LOG_FORMAT: JSON lines (default when NODE_ENV=production) or readable text. */
  logFormat: 'json' | 'text';
  seedSampleKnowledge: boolean;
  /** Admin created or updated at start (ADMIN_EMAIL, lower-cased); code login always, password login when adminPassword is set. */
  adminEmail?: string;
  adminPassword?: string;
  adminName?: string;
  /** Session cookie `Secure` flag: true/false force it; undefined sets it when the request came over HTTPS. */
  cookieSecure?: boolean;
  /** Sender of the app's mail (one-time codes). */
  mailFrom: string;
  /** Where people reach the app (PUBLIC_URL), for links in mail; unset: the address the request came to. */
  publicUrl?: string;
  /** How often each server re-enqueues outbox mail that is still pending (ms). */
  outboxSweepMs: number;
  /** Sign-in requests (check-methods, login-password, request-otp, verify-otp) one IP may make per 15 minutes. */
  signInIpLimit: number;
  /** How often the /admin socket namespace re-checks the sessions of its connected sockets (ms). */
  adminSocketCheckMs: number;
  /** Upper bound on one API key test (POST /api/config/test-api-key), in ms. */
  apiKeyTestTimeoutMs: number;
}

/** Passwords: at least 12 and at most 128 characters, no composition rules. */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** Trimmed and lower-cased: admin emails are unique case-insensitively. */
export { isValidEmail, normalizeEmail };

/** The password rule, or undefined when the password is acceptable. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  return undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  str(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.str(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return Number(raw);
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${parsed.protocol}")`);
        return undefined;
      }
      return raw;
    } catch {
      this.problems.push(`${name} is not a valid URL`);
      return undefined;
    }
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.str(name);
    if (raw === undefined) return fallback;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }
}

export function loadConfig(env: Env = process.env, overrides: Partial<AppConfig> = {}): AppConfig {
  const r = new Reader(env);
  const corsRaw = r.str('CORS_ORIGINS');
  const corsOrigins = corsRaw ? corsRaw.split(',').map((o) => o.trim()).filter(Boolean) : [];
  for (const origin of corsOrigins) {
    if (origin === '*') continue;
    try {
      new URL(origin);
    } catch {
      r.problems.push(`CORS_ORIGINS has an entry that is not an origin URL: "${origin}"`);
    }
  }
  const trustRaw = r.str('TRUST_PROXY');
  const trustProxy = trustRaw && trustRaw.toLowerCase() !== 'none' ? trustRaw.split(',').map((e) => e.trim()).filter(Boolean) : [];
  for (const entry of trustProxy) {
    try {
      proxyaddr.compile(entry);
    } catch {
      r.problems.push(`TRUST_PROXY has an entry that is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal: "${entry}"`);
    }
  }
  const fetchAllowRaw = r.str('FETCH_ALLOW_PRIVATE');
  const fetchAllowPrivate = fetchAllowRaw ? fetchAllowRaw.split(',').map((e) => e.trim()).filter(Boolean) : [];
  for (const entry of fetchAllowPrivate) {
    try {
      parseAllowList([entry]);
    } catch {
      r.problems.push(`FETCH_ALLOW_PRIVATE has an entry that is not an IP address, a CIDR range or a host name: "${entry}"`);
    }
  }
  const logLevel = (r.str('LOG_LEVEL') ?? 'log') as AppConfig['logLevel'];
  if (!['error', 'warn', 'log', 'debug'].includes(logLevel)) {
    r.problems.push(`LOG_LEVEL must be one of error, warn, log, debug (got "${logLevel}")`);
  }
  const logFormat = (r.str('LOG_FORMAT') ?? (process.env.NODE_ENV === 'production' ? 'json' : 'text')) as AppConfig['logFormat'];
  if (!['json', 'text'].includes(logFormat)) {
    r.problems.push(`LOG_FORMAT must be json or text (got "${logFormat}")`);
  }
  const appSecret = r.str('APP_SECRET');
  if (appSecret !== undefined && appSecret.length < 32) {
    r.problems.push('APP_SECRET must be at least 32 characters long');
  }
  const adminEmailRaw = r.str('ADMIN_EMAIL');
  const adminEmail = adminEmailRaw === undefined ? undefined : normalizeEmail(adminEmailRaw);
  if (adminEmail !== undefined && !isValidEmail(adminEmail)) {
    r.problems.push(`ADMIN_EMAIL is not an email address (got "${adminEmailRaw}")`);
  }
  // The password is not trimmed: spaces are allowed characters. Never echoed in a message.
  const adminPassword = env.ADMIN_PASSWORD === undefined || env.ADMIN_PASSWORD === '' ? undefined : env.ADMIN_PASSWORD;
  if (adminPassword !== undefined) {
    const problem = passwordProblem(adminPassword);
    if (problem) r.problems.push(`ADMIN_PASSWORD ${problem}`);
    if (adminEmail === undefined) r.problems.push('ADMIN_PASSWORD is set but ADMIN_EMAIL is not');
  }
  const adminName = r.str('ADMIN_NAME');
  if (adminName !== undefined && adminName.length > 100) r.problems.push('ADMIN_NAME must be at most 100 characters long');
  if (adminName !== undefined && adminEmail === undefined) r.problems.push('ADMIN_NAME is set but ADMIN_EMAIL is not');
  const cookieSecure = r.str('COOKIE_SECURE') === undefined ? undefined : r.bool('COOKIE_SECURE', false);
  const mailFrom = r.str('MAIL_FROM') ?? 'Support Assistant <no-reply@localhost>';
  const mailFromAddress = /<([^>]*)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom;
  if (!isValidEmail(mailFromAddress)) r.problems.push(`MAIL_FROM must be an address or "Name <address>" (got "${mailFrom}")`);
  const config: AppConfig = {
    port: r.int('PORT', 3000, 0, 65535),
    dataDir: path.resolve(r.str('DATA_DIR') ?? './data'),
    databaseUrl: r.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    databaseSchema: r.str('DATABASE_SCHEMA'),
    databaseConnectTimeoutMs: r.int('DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 300_000),
    databaseQueryTimeoutMs: r.int('DATABASE_QUERY_TIMEOUT_MS', 10_000, 500, 600_000),
    redisUrl: r.url('REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: r.str('REDIS_PREFIX') ?? 'sa',
    smtpUrl: r.url('SMTP_URL', ['smtp:', 'smtps:']),
    appSecret,
    openaiApiKey: r.str('OPENAI_API_KEY'),
    openaiBaseUrl: r.url('OPENAI_BASE_URL', ['http:', 'https:']),
    anthropicApiKey: r.str('ANTHROPIC_API_KEY'),
    anthropicBaseUrl: r.url('ANTHROPIC_BASE_URL', ['http:', 'https:']),
    azureOpenaiEndpoint: r.url('AZURE_OPENAI_ENDPOINT', ['http:', 'https:']),
    azureOpenaiApiKey: r.str('AZURE_OPENAI_API_KEY'),
    azureOpenaiApiVersion: r.str('AZURE_OPENAI_API_VERSION') ?? '2024-10-21',
    llmBaseUrl: r.url('LLM_BASE_URL', ['http:', 'https:']),
    llmApiKey: r.str('LLM_API_KEY'),
    llmModel: r.str('LLM_MODEL'),
    healthIntervalMs: r.int('HEALTH_INTERVAL_MS', 30000, 100, 3_600_000),
    acceptHandles: r.int('ACCEPT_HANDLES', 64, 1, 256),
    chatTimeoutMs: r.int('CHAT_TIMEOUT_MS', 130000, 1000, 3_600_000),
    agentTimeoutMs: r.int('AGENT_TIMEOUT_MS', 30000, 100, 3_600_000),
    rewriteTimeoutMs: r.int('REWRITE_TIMEOUT_MS', 3000, 50, 60_000),
    embeddingTimeoutMs: r.int('EMBEDDING_TIMEOUT_MS', 1500, 50, 60_000),
    corsOrigins,
    trustProxy,
    fetchAllowPrivate,
    siteImportDelayMs: r.int('SITE_IMPORT_DELAY_MS', 1000, 0, 60_000),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 25000, 0, 600_000),
    clientDir: path.resolve(r.str('CLIENT_DIR') ?? path.join(__dirname, '..', '..', 'dist', 'client')),
    usageFlushMs: r.int('USAGE_FLUSH_MS', 250, 10, 60_000),
    localResponderDelayMs: r.int('LOCAL_RESPONDER_DELAY_MS', 12, 0, 1000),
    logLevel,
    logFormat,
    seedSampleKnowledge: r.bool('SEED_SAMPLE_KNOWLEDGE', true),
    adminEmail,
    adminPassword,
    adminName,
    cookieSecure,
    mailFrom,
    publicUrl: r.url('PUBLIC_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    outboxSweepMs: r.int('OUTBOX_SWEEP_MS', 30000, 100, 3_600_000),
    signInIpLimit: r.int('SIGN_IN_IP_LIMIT', 100, 1, 1_000_000),
    adminSocketCheckMs: r.int('ADMIN_SOCKET_CHECK_MS', 60000, 100, 3_600_000),
    apiKeyTestTimeoutMs: r.int('API_KEY_TEST_TIMEOUT_MS', 10000, 100, 120_000),
  };
  if (config.azureOpenaiApiKey && !config.azureOpenaiEndpoint) {
    r.problems.push('AZURE_OPENAI_API_KEY is set but AZURE_OPENAI_ENDPOINT is not');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return { ...config, ...overrides };
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/**
 * The embedded mode in full (no DATABASE_URL, no REDIS_URL): this server is the only one, and the
 * only writer of its SQLite file. What it writes it knows of at once, so caches of what it wrote
 * need no statement to stay exact (the knowledge search, the conversations' history).
 */
export function soleServer(config: Pick<AppConfig, 'databaseUrl' | 'redisUrl'>): boolean {
  return !config.databaseUrl && !config.redisUrl;
}
