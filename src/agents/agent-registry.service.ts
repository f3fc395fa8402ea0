import { ConsoleLogger, Inject, Injectable, Logger, LogLevel, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Setting } from '../database/setting.entity';
import { writeTransaction } from '../database/write-queue';
import type { EnabledVerticalId } from '../shared/catalog/verticals';
import { Agent } from './agent.entity';
import { seedAgents } from './agent-seed';
import type { AgentDefinition } from './agent.types';
import { ConfigChangeBus } from './config-change-bus';
import { DEFAULT_GLOBAL_SETTINGS, GLOBAL_SETTINGS_KEY, GlobalSettings, readStoredSettings } from './global-settings';
import { SecretBox, SecretBoxError } from './secret-box';

/** Settings rows of this feature. */
export const SEEDED_KEY = 'agents.seeded';
export const KEY_CHECK_KEY = 'agents.key-check';

/** Even without any change message, a cached configuration is re-read after this long. */
const MAX_CACHE_AGE_MS = 60_000;

const LOG_LEVELS: Record<AppConfig['logLevel'], LogLevel[]> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** The process-wide logger Debug Mode installs (once) so it can change the levels of every logger. */
let verboseLogger: ConsoleLogger | undefined;

/** An agent row with its key decrypted (or the reason it could not be). */
export interface LoadedAgent {
  row: Agent;
  apiKey?: string;
  keyError?: string;
}

export interface ConfigSnapshot {
  agents: LoadedAgent[];
  global: GlobalSettings;
  /** Stored global settings that could not be read and were replaced by their defaults. */
  settingsProblems: string[];
  loadedAt: number;
}

/** Shown to visitors whose chat reaches an agent with an unreadable key. */
export const UNREADABLE_KEY_MESSAGE =
  'This assistant cannot be used right now: its API key could not be read on the server. An administrator needs to enter the key again.';

/**
 * The agents the chat pipeline picks from, and the global settings, read from the database
 * through a cache. Every change made through the Config API reloads this server's cache before
 * the API answers and tells the other servers (ConfigChangeBus), which drop theirs; so a change
 * is used by the next message on every server.
 *
 * At start it refuses to run when stored keys were encrypted with another server key (a clear
 * start-up error rather than every agent failing), and seeds the agents on the very first start.
 */
@Injectable()
export class AgentRegistryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Agents');
  private snapshot: ConfigSnapshot = { agents: [], global: DEFAULT_GLOBAL_SETTINGS, settingsProblems: [], loadedAt: 0 };
  private stale = true;
  private generation = 0;
  private inflight: { generation: number; promise: Promise<ConfigSnapshot> } | undefined;
  private debugApplied = false;
  private readonly cleanups: Array<() => void> = [];
  /** Unreadable ciphertexts already logged (each is logged once, not at every reload). */
  private readonly reportedCiphers = new Set<string>();
  /** The stored global settings whose unreadable values were last logged (logged once, not at every reload). */
  private reportedSettings: string | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Agent) private readonly agents: Repository<Agent>,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly bus: ConfigChangeBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.checkServerKey();
    await this.seedOnFirstStart();
    this.cleanups.push(this.bus.subscribe(() => this.invalidate()));
    await this.bus.start();
    await this.reload();
  }

  onModuleDestroy(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    if (this.debugApplied) Logger.overrideLogger(LOG_LEVELS[this.config.logLevel]);
  }

  /** The enabled agent of the vertical, else the enabled universal agent, else undefined (use `local`). */
  async pick(vertical: string): Promise<AgentDefinition | undefined> {
    const snapshot = await this.current();
    const found =
      snapshot.agents.find((a) => a.row.enabled && a.row.vertical === vertical) ??
      snapshot.agents.find((a) => a.row.enabled && a.row.vertical === 'universal');
    const agent = found && this.toDefinition(found, snapshot.global);
    this.logger.debug(
      agent
        ? `Chat in ${vertical} -> agent ${agent.agentId} (${agent.connection.provider} ${agent.model}, temperature ${agent.temperature}, max tokens ${agent.maxTokens})${agent.unavailable ? ' [unavailable: API key unreadable]' : ''}`
        : `Chat in ${vertical} -> no enabled agent; the offline responder answers`,
    );
    return agent;
  }

  /** Every agent (enabled or not), in list order, with effective values. */
  async list(): Promise<AgentDefinition[]> {
    const snapshot = await this.current();
    return snapshot.agents.map((a) => this.toDefinition(a, snapshot.global));
  }

  /** The configuration as cached (fresh unless a change is on its way). */
  async current(): Promise<ConfigSnapshot> {
    if (!this.stale && Date.now() - this.snapshot.loadedAt < MAX_CACHE_AGE_MS) return this.snapshot;
    try {
      return await this.load();
    } catch (error) {
      // The database is unreachable: keep answering with the configuration last read.
      if (this.snapshot.loadedAt === 0) throw error;
      this.logger.warn(`Reading the agent configuration failed (${(error as Error).message}); using the one read before`);
      return this.snapshot;
    }
  }

  /** Re-reads the configuration now (after a change made on this server). */
  async reload(): Promise<ConfigSnapshot> {
    this.generation += 1;
    return this.load();
  }

  /** Drops the cache (a change made elsewhere) and starts re-reading it in the background. */
  invalidate(): void {
    this.generation += 1;
    this.stale = true;
    void this.load().catch((error: Error) => this.logger.warn(`Reloading the agent configuration failed: ${error.message}`));
  }

  /** Global settings as last loaded; synchronous for the hot path (validation, usage recording). */
  globalSettings(): GlobalSettings {
    return this.snapshot.global;
  }

  isVerticalEnabled(id: EnabledVerticalId): boolean {
    return this.snapshot.global.verticals[id] !== false;
  }

  /** Enable Analytics: when off, chats record no usage events. */
  usageRecordingEnabled(): boolean {
    return this.snapshot.global.enableAnalytics;
  }

  private load(): Promise<ConfigSnapshot> {
    const generation = this.generation;
    if (this.inflight?.generation === generation) return this.inflight.promise;
    const promise = this.read().then((snapshot) => {
      if (generation === this.generation) {
        this.snapshot = snapshot;
        this.stale = false;
        this.applyDebugMode(snapshot.global.debugMode);
        this.logger.debug(`Configuration loaded: ${snapshot.agents.length} agents`);
      }
      return snapshot;
    });
    this.inflight = { generation, promise };
    void promise.finally(() => {
      if (this.inflight?.promise === promise) this.inflight = undefined;
    }).catch(() => undefined);
    return promise;
  }

  private async read(): Promise<ConfigSnapshot> {
    const [rows, stored] = await Promise.all([
      this.agents.find({ order: { position: 'ASC', createdAt: 'ASC' } }),
      this.settings.findOneBy({ key: GLOBAL_SETTINGS_KEY }),
    ]);
    const agents = rows.map((row): LoadedAgent => {
      if (!row.apiKeyCipher) return { row };
      try {
        return { row, apiKey: this.box.decrypt(row.apiKeyCipher, row.agentId) };
      } catch (error) {
        const reason = error instanceof SecretBoxError ? error.message : 'unknown error';
        if (!this.reportedCiphers.has(row.apiKeyCipher)) {
          this.reportedCiphers.add(row.apiKeyCipher);
          this.logger.error(`The stored API key of agent ${row.agentId} cannot be decrypted: ${reason}`);
        }
        return { row, keyError: `The stored API key cannot be decrypted: ${reason}. Enter the key again.` };
      }
    });
    const read = readStoredSettings(stored?.value);
    if (read.problems.length > 0 && stored?.value !== this.reportedSettings) {
      this.reportedSettings = stored?.value;
      for (const problem of read.problems) this.logger.warn(problem);
    }
    return { agents, global: read.settings, settingsProblems: read.problems, loadedAt: Date.now() };
  }

  private toDefinition(agent: LoadedAgent, global: GlobalSettings): AgentDefinition {
    const row = agent.row;
    return {
      agentId: row.agentId,
      agentName: row.agentName,
      vertical: row.vertical,
      enabled: row.enabled,
      systemPrompt: row.systemPrompt,
      timeout: row.timeoutMs,
      model: row.model,
      temperature: row.temperature ?? global.responseTemperature,
      maxTokens: Math.min(row.maxTokens, global.maxResponseLength),
      connection: {
        provider: row.provider,
        apiKey: agent.apiKey,
        baseUrl: row.baseUrl ?? undefined,
        endpoint: row.endpoint ?? undefined,
        apiVersion: row.apiVersion ?? undefined,
      },
      unavailable: agent.keyError ? UNREADABLE_KEY_MESSAGE : undefined,
    };
  }

  /**
   * Debug Mode: every logger of the process (including those already in use, which keep the
   * levels they started with) goes through one ConsoleLogger whose levels follow the setting.
   */
  private applyDebugMode(on: boolean): void {
    if (on === this.debugApplied) return;
    if (on) {
      verboseLogger ??= new ConsoleLogger();
      Logger.overrideLogger(verboseLogger);
    }
    Logger.overrideLogger(on ? LOG_LEVELS.debug : LOG_LEVELS[this.config.logLevel]);
    this.debugApplied = on;
    this.logger.log(`Debug mode ${on ? 'on: verbose logs' : 'off'}`);
  }

  /**
   * Stored keys encrypted with another server key cannot be used by anyone: refuse to start, and
   * say which key is missing or different. Without stored keys the check just follows the key.
   */
  private async checkServerKey(): Promise<void> {
    const [stored, encrypted] = await Promise.all([
      this.settings.findOneBy({ key: KEY_CHECK_KEY }),
      this.agents.createQueryBuilder('a').where('a.api_key_cipher IS NOT NULL').getCount(),
    ]);
    if (stored && this.box.matchesKeyCheck(stored.value)) return;
    if (stored && encrypted > 0) {
      const source =
        this.box.keySource === 'APP_SECRET'
          ? 'APP_SECRET is not the one they were saved with'
          : `APP_SECRET is not set and the key file ${this.box.keySource} is missing or was replaced`;
      throw new Error(
        `Cannot start: ${encrypted} agent API key(s) in the database were encrypted with a different server key (${source}). ` +
          'Restore the original key file (or set the original APP_SECRET) and start again. ' +
          'To give up the stored keys instead, clear them (UPDATE agents SET api_key_cipher = NULL) and re-enter them in the Configuration tab.',
      );
    }
    await this.saveKeyCheck();
  }

  /** Records which key encrypts the stored API keys (see checkServerKey); from then on every key is encrypted with it. */
  private async saveKeyCheck(): Promise<void> {
    await writeTransaction(this.dataSource, (m) =>
      // An upsert, not save() (a read, then an insert): servers starting together on a new
      // database would both insert and all but one fail on the primary key.
      m.withRepository(this.settings).upsert({ key: KEY_CHECK_KEY, value: this.box.keyCheck(), updatedAt: Date.now() }, ['key']),
    );
  }

  /** First start only: the environment's agents. Safe when several servers start at once. */
  private async seedOnFirstStart(): Promise<void> {
    if (await this.settings.findOneBy({ key: SEEDED_KEY })) return;
    const now = Date.now();
    const rows = seedAgents(this.config).map(
      (seed, index): Agent => ({
        agentId: seed.agentId,
        agentName: seed.agentName,
        vertical: seed.vertical,
        enabled: seed.enabled,
        systemPrompt: seed.systemPrompt,
        timeoutMs: seed.timeoutMs,
        provider: seed.connection.provider,
        model: seed.model,
        apiKeyCipher: seed.connection.apiKey ? this.box.encrypt(seed.connection.apiKey, seed.agentId) : null,
        temperature: seed.temperature,
        maxTokens: seed.maxTokens,
        endpoint: seed.connection.endpoint ?? null,
        baseUrl: seed.connection.baseUrl ?? null,
        apiVersion: seed.connection.apiVersion ?? null,
        position: index,
        createdAt: now,
        updatedAt: now,
      }),
    );
    await writeTransaction(this.dataSource, async (m) => {
      await m.createQueryBuilder().insert().into(Agent).values(rows).orIgnore().execute();
      await m.createQueryBuilder().insert().into(Setting).values({ key: SEEDED_KEY, value: String(now), updatedAt: now }).orIgnore().execute();
    });
    this.logger.log(`Seeded ${rows.length} agents from the environment (${rows[0]?.provider ?? 'local'})`);
  }
}
