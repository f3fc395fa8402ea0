/**
 * Hybrid retrieval's vectors: the embeddings settings (Configuration tab; off by default), the
 * job that embeds every chunk lacking a vector of the current model (after each knowledge write,
 * when the settings change, and at start: a backfill that re-embeds when the model changes), and
 * the question's vector at search time, scored against the vertical's vectors by brute force
 * (a dot product per chunk over an in-memory copy; see bench/knowledge.ts for its cost).
 *
 * The question's embedding call has EMBEDDING_TIMEOUT_MS: when it fails or is late the search
 * uses BM25 alone at once, and /health reports embeddings degraded until a call succeeds again.
 * Every embedding call is a usage event of kind 'embedding' with its tokens and cost.
 */
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AgentRegistryService } from '../agents/agent-registry.service';
import { ConfigChangeBus } from '../agents/config-change-bus';
import { auditSecret } from '../audit/audit-diff';
import { AuditTargets } from '../audit/audit-targets';
import { maskApiKey, SecretBox } from '../agents/secret-box';
import { UsageRecorderService } from '../analytics/usage-recorder.service';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { portableSql } from '../database/sql';
import { queuedWrite } from '../database/write-queue';
import { describeError } from '../jobs/in-process-job-queue';
import { JOB_QUEUE, JobQueue } from '../jobs/job-queue';
import type { SemanticHit, SemanticSearch, SemanticSearchResult } from '../knowledge/semantic-search';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { keyTestReason, toLlmError } from '../llm/adapters/provider-errors';
import { embeddingCostUsd, getProvider } from '../shared/catalog/providers';
import type {
  EmbeddingConfig,
  EmbeddingKeyTestInput,
  EmbeddingKeyTestResult,
  EmbeddingSettings,
  EmbeddingSettingsUpdateSchema,
  EmbeddingStatus,
} from '../shared/contracts/embeddings';
import { bytesInto, EmbeddingConnection, embedTexts, vectorToBytes } from './embedding-client';
import type { z } from 'zod';

export const EMBEDDINGS_SYNC_JOB = 'embeddings-sync';
/** The settings row (JSON; the key encrypted). */
export const EMBEDDING_SETTINGS_KEY = 'config.embeddings';
/** Chunks per embeddings request of the backfill. */
const BATCH = 64;
/** Longest one backfill request may take. */
const BATCH_TIMEOUT_MS = 60_000;
/** Chunks a search takes from the vectors (best cosine first) besides BM25's. */
export const SEMANTIC_CANDIDATES = 50;
/** A vertical's vectors are read again after this long (another server's backfill), or at once after a write here. */
const VECTOR_CACHE_MS = 10_000;
/** Characters of a chunk sent to be embedded (its title, then its text). */
const MAX_EMBED_CHARS = 8000;
/** What the key test embeds (a few tokens). */
const KEY_TEST_TEXT = 'How do I reset my password?';

interface StoredSettings extends Omit<EmbeddingSettings, 'apiKey'> {
  apiKeyCipher: string | null;
}

const DEFAULT_SETTINGS: Readonly<StoredSettings> = Object.freeze({
  enabled: false,
  provider: 'openai',
  model: 'text-embedding-3-small',
  baseUrl: null,
  endpoint: null,
  apiVersion: null,
  keyFromAgent: null,
  apiKeyCipher: null,
});

/** One vertical's vectors in memory: row i is chunk ids[i], its values at [i * dims, (i + 1) * dims). */
interface VectorSet {
  loadedAt: number;
  dims: number;
  ids: number[];
  itemIds: string[];
  titles: string[];
  ords: number[];
  matrix: Float32Array;
}

@Injectable()
export class EmbeddingsService implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, SemanticSearch {
  private readonly logger = new Logger('Embeddings');
  /** The unreadable stored settings last logged (logged once, not at every reload). */
  private reportedSettings: string | undefined;
  private settings: StoredSettings = { ...DEFAULT_SETTINGS };
  private degraded = false;
  private lastError: string | null = null;
  private readonly vectors = new Map<string, Promise<VectorSet>>();
  private unsubscribe?: () => void;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly agents: AgentRegistryService,
    private readonly box: SecretBox,
    private readonly bus: ConfigChangeBus,
    private readonly usage: UsageRecorderService,
    private readonly knowledge: KnowledgeService,
    @Optional() auditTargets?: AuditTargets,
  ) {
    auditTargets?.register('embeddings', { snapshot: async () => ({ title: 'Embeddings settings', fields: this.auditFields() }) });
  }

  /** The settings as the audit log compares them: the key only as a fingerprint of what it decrypts to. */
  private auditFields(): Record<string, unknown> {
    const { apiKeyCipher, ...rest } = this.settings;
    let key = apiKeyCipher;
    try {
      key = apiKeyCipher && this.box.decrypt(apiKeyCipher, EMBEDDING_SETTINGS_KEY);
    } catch {
      // A damaged value is compared as stored.
    }
    return { ...rest, apiKey: auditSecret(key) };
  }

  async onModuleInit(): Promise<void> {
    this.jobs.register(EMBEDDINGS_SYNC_JOB, async () => {
      await this.sync();
    });
    await this.reload();
    this.unsubscribe = this.bus.subscribe(() => {
      void this.reload().catch((error: unknown) => this.logger.warn(`Reading the embeddings settings failed: ${describeError(error)}`));
    });
    this.knowledge.attachSemanticSearch(this);
  }

  onApplicationBootstrap(): void {
    this.requestSync(0);
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  // --- settings ------------------------------------------------------------------------------

  view(): EmbeddingSettings {
    const { apiKeyCipher, ...rest } = this.settings;
    let apiKey: string | null = null;
    let keyUnreadable = false;
    if (apiKeyCipher) {
      try {
        apiKey = maskApiKey(this.box.decrypt(apiKeyCipher, EMBEDDING_SETTINGS_KEY));
      } catch {
        // Shown as no key with a flag: a text in the key field came back on save as a key with spaces (400).
        keyUnreadable = true;
      }
    }
    return { ...rest, apiKey, ...(keyUnreadable ? { keyUnreadable } : {}) };
  }

  async current(): Promise<EmbeddingConfig> {
    return { settings: this.view(), status: await this.status() };
  }

  /** Applies a checked PUT body, stores it, tells the other servers, and starts a backfill when on. */
  async update(update: z.output<typeof EmbeddingSettingsUpdateSchema>): Promise<EmbeddingConfig> {
    const next: StoredSettings = { ...this.settings };
    for (const key of ['enabled', 'provider', 'model', 'baseUrl', 'endpoint', 'apiVersion', 'keyFromAgent'] as const) {
      if (update[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = update[key];
    }
    if (update.apiKey === null) next.apiKeyCipher = null;
    else if (update.apiKey !== undefined) next.apiKeyCipher = this.box.encrypt(update.apiKey, EMBEDDING_SETTINGS_KEY);
    await queuedWrite(this.dataSource, () =>
      this.dataSource.query(
        portableSql(
          this.dataSource,
          `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        ),
        [EMBEDDING_SETTINGS_KEY, JSON.stringify(next), Date.now()],
      ),
    );
    const modelChanged = next.model !== this.settings.model || next.provider !== this.settings.provider;
    this.settings = next;
    this.vectors.clear();
    if (modelChanged || !next.enabled) {
      this.degraded = false;
      this.lastError = null;
    }
    await this.bus.publish({}).catch(() => undefined);
    this.requestSync(0);
    return this.current();
  }

  private async reload(): Promise<void> {
    const rows: { value: string }[] = await this.dataSource.query(portableSql(this.dataSource, 'SELECT value FROM settings WHERE key = $1'), [EMBEDDING_SETTINGS_KEY]);
    let stored: Partial<StoredSettings> = {};
    try {
      stored = rows[0] ? (JSON.parse(rows[0].value) as Partial<StoredSettings>) : {};
    } catch {
      if (this.reportedSettings !== rows[0]?.value) {
        this.reportedSettings = rows[0]?.value;
        this.logger.warn('The stored embeddings settings are not valid JSON: embeddings are off (the defaults) until they are saved again.');
      }
      stored = {};
    }
    const next = { ...DEFAULT_SETTINGS, ...stored };
    if (next.model !== this.settings.model || next.enabled !== this.settings.enabled) this.vectors.clear();
    this.settings = next;
  }

  /** The connection to call, with the key (its own, or the named agent's). */
  private async connection(): Promise<EmbeddingConnection> {
    const s = this.settings;
    let apiKey: string | undefined;
    if (s.keyFromAgent) {
      apiKey = (await this.agents.list()).find((a) => a.agentId === s.keyFromAgent)?.connection.apiKey;
    } else if (s.apiKeyCipher) {
      apiKey = this.box.decrypt(s.apiKeyCipher, EMBEDDING_SETTINGS_KEY);
    }
    return {
      provider: s.provider,
      model: s.model,
      apiKey,
      baseUrl: s.baseUrl ?? undefined,
      endpoint: s.endpoint ?? undefined,
      apiVersion: s.apiVersion ?? undefined,
    };
  }

  // --- key test ------------------------------------------------------------------------------

  /**
   * One embeddings call of a short text with the settings as entered (a field left out: the saved
   * one; the key likewise), within API_KEY_TEST_TIMEOUT_MS: valid with the vector's length, or
   * invalid with the reason. Like the agents' key test it is no usage event, and it leaves the
   * search's degraded state alone.
   */
  async testKey(input: EmbeddingKeyTestInput): Promise<EmbeddingKeyTestResult> {
    const s = this.settings;
    const provider = input.provider ?? s.provider;
    const model = input.model ?? s.model;
    const label = getProvider(provider)!.label;
    const invalid = (reason: string): EmbeddingKeyTestResult => ({ isValid: false, reason, provider, model, latencyMs: 0 });
    const keyFromAgent = input.keyFromAgent === undefined ? s.keyFromAgent : input.keyFromAgent;
    let apiKey: string | undefined;
    if (keyFromAgent) {
      const agent = (await this.agents.current()).agents.find((a) => a.row.agentId === keyFromAgent);
      if (!agent) throw new AppError('not_found', `No agent with the id "${keyFromAgent}".`);
      if (agent.keyError) return invalid(agent.keyError);
      if (!agent.apiKey && provider !== 'openai-compatible') return invalid(`${agent.row.agentName} has no API key to lend.`);
      apiKey = agent.apiKey;
    } else if (input.apiKey !== undefined) {
      apiKey = input.apiKey ?? undefined;
    } else if (s.apiKeyCipher) {
      try {
        apiKey = this.box.decrypt(s.apiKeyCipher, EMBEDDING_SETTINGS_KEY);
      } catch {
        return invalid('The saved key is unreadable: enter it again.');
      }
    }
    const given = (value: string | null | undefined, saved: string | null) => (value === undefined ? saved : value) ?? undefined;
    const connection: EmbeddingConnection = {
      provider,
      model,
      apiKey,
      baseUrl: given(input.baseUrl, s.baseUrl),
      endpoint: given(input.endpoint, s.endpoint),
      apiVersion: given(input.apiVersion, s.apiVersion),
    };
    if (!apiKey && provider !== 'openai-compatible') return invalid(`No API key to test: enter the ${label} key.`);
    if (provider === 'azure' && !(connection.endpoint ?? connection.baseUrl)) return invalid(`No endpoint to test: enter the ${label} endpoint.`);
    if (provider === 'openai-compatible' && !(connection.baseUrl ?? connection.endpoint)) return invalid("No address to test: enter the server's base URL.");

    const timeoutMs = this.config.apiKeyTestTimeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const { vectors } = await embedTexts(connection, [KEY_TEST_TEXT], signal);
      const dimensions = vectors[0].length;
      this.logger.debug(`Embeddings key test (${provider}): valid, ${dimensions} dimensions, ${elapsed()} ms`);
      return { isValid: true, reason: `${label} accepted the key: ${model} returned a vector of ${dimensions} numbers.`, provider, model, dimensions, latencyMs: elapsed() };
    } catch (error) {
      const failure = toLlmError(error, signal);
      const reason =
        failure.status === 404
          ? provider === 'azure'
            ? `${label} has no deployment named ${model} (HTTP 404): check the deployment name, the endpoint and the API version.`
            : `${label} has no model named ${model} (HTTP 404): check the model and the address.`
          : keyTestReason(failure, timeoutMs);
      this.logger.debug(`Embeddings key test (${provider}): invalid (${reason}), ${elapsed()} ms`);
      return { ...invalid(reason), latencyMs: elapsed() };
    }
  }

  // --- status and health ---------------------------------------------------------------------

  async status(): Promise<EmbeddingStatus> {
    const s = this.settings;
    const [totals]: { total: string | number; embedded: string | number }[] = await this.dataSource.query(
      portableSql(
        this.dataSource,
        `SELECT (SELECT COUNT(*) FROM knowledge_chunks) AS total,
                (SELECT COUNT(*) FROM knowledge_chunk_embeddings WHERE model = $1) AS embedded`,
      ),
      [s.model],
    );
    const total = Number(totals.total);
    const embedded = Math.min(total, Number(totals.embedded));
    return { enabled: s.enabled, model: s.enabled ? s.model : null, embedded, total, running: s.enabled && embedded < total, degraded: s.enabled && this.degraded, lastError: s.enabled ? this.lastError : null };
  }

  /** For /health: off, ok, or degraded (the last embedding call failed or was late). */
  health(): { enabled: boolean; degraded: boolean } {
    return { enabled: this.settings.enabled, degraded: this.settings.enabled && this.degraded };
  }

  // --- the backfill --------------------------------------------------------------------------

  /** Queues a sync (one waiting at a time); nothing when embeddings are off. Called after knowledge writes too. */
  requestSync(delayMs = 200): void {
    this.vectors.clear();
    if (!this.settings.enabled) return;
    this.jobs.enqueue(EMBEDDINGS_SYNC_JOB, {}, { jobId: EMBEDDINGS_SYNC_JOB, delayMs, attempts: 3, backoffMs: 2000 }).catch((error: unknown) => {
      this.logger.warn(`Could not queue the embeddings backfill: ${describeError(error)}`);
    });
  }

  /** Embeds, in batches, every chunk without a vector of the current model; returns how many. */
  async sync(): Promise<number> {
    let done = 0;
    for (;;) {
      const s = this.settings;
      if (!s.enabled) return done;
      const model = s.model;
      const rows: { id: number | string; vertical: string; title: string; text: string }[] = await this.dataSource.query(
        portableSql(
          this.dataSource,
          `SELECT c.id, c.vertical, c.title, c.text FROM knowledge_chunks c
            WHERE NOT EXISTS (SELECT 1 FROM knowledge_chunk_embeddings e WHERE e.chunk_id = c.id AND e.model = $1)
            ORDER BY c.id LIMIT ${BATCH}`,
        ),
        [model],
      );
      if (rows.length === 0) break;
      const texts = rows.map((r) => `${r.title}\n${r.text}`.slice(0, MAX_EMBED_CHARS));
      const result = await this.call(texts, BATCH_TIMEOUT_MS, 'embeddings-backfill', 'knowledge').catch((error: unknown) => {
        this.lastError = `The backfill stopped: ${describeError(error)}`;
        throw error;
      });
      if (this.settings.model !== model) continue; // changed meanwhile: these vectors are of the old model
      await this.store(rows.map((r, i) => ({ chunkId: Number(r.id), vertical: r.vertical, vector: result.vectors[i] })), model);
      done += rows.length;
      this.vectors.clear();
    }
    if (done > 0) this.logger.log(`Embedded ${done} chunks (${this.settings.model})`);
    return done;
  }

  /** Writes vectors (replacing another model's); a chunk deleted meanwhile is skipped. */
  private async store(rows: { chunkId: number; vertical: string; vector: Float32Array }[], model: string): Promise<void> {
    const now = Date.now();
    await queuedWrite(this.dataSource, async () => {
      for (const row of rows) {
        await this.dataSource.query(
          portableSql(
            this.dataSource,
            `INSERT INTO knowledge_chunk_embeddings (chunk_id, model, vertical, dims, vector, created_at)
             SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM knowledge_chunks WHERE id = $1)
             ON CONFLICT (chunk_id) DO UPDATE SET model = excluded.model, vertical = excluded.vertical, dims = excluded.dims,
               vector = excluded.vector, created_at = excluded.created_at`,
          ),
          [row.chunkId, model, row.vertical, row.vector.length, vectorToBytes(row.vector), now],
        );
      }
    });
  }

  // --- search --------------------------------------------------------------------------------

  active(): boolean {
    return this.settings.enabled;
  }

  /**
   * The chunks of `vertical` nearest the question (best first, at most `limit`), left out
   * `exclude`; mode 'lexical-fallback' (no hits) when the question's embedding call failed or
   * took longer than EMBEDDING_TIMEOUT_MS.
   */
  async search(query: string, vertical: string | undefined, exclude: { has(id: number): boolean } | undefined, limit = SEMANTIC_CANDIDATES): Promise<SemanticSearchResult> {
    const model = this.settings.model;
    let vector: Float32Array;
    try {
      const [result] = await Promise.all([this.call([query], this.config.embeddingTimeoutMs, 'search', vertical ?? 'knowledge'), this.vectorSet(model, vertical)]);
      vector = result.vectors[0];
      this.degraded = false;
      this.lastError = null;
    } catch (error) {
      this.degraded = true;
      this.lastError = describeError(error);
      return { mode: 'lexical-fallback', hits: [] };
    }
    const set = await this.vectorSet(model, vertical);
    if (set.dims !== vector.length || set.ids.length === 0) return { mode: 'hybrid', hits: [] };
    return { mode: 'hybrid', hits: nearest(set, vector, exclude, limit) };
  }

  private vectorSet(model: string, vertical: string | undefined): Promise<VectorSet> {
    const key = `${model}\u0000${vertical ?? ''}`;
    const cached = this.vectors.get(key);
    if (cached) {
      return cached.then((set) => {
        if (Date.now() - set.loadedAt < VECTOR_CACHE_MS) return set;
        if (this.vectors.get(key) === cached) this.vectors.delete(key);
        return this.vectorSet(model, vertical);
      });
    }
    const loading = this.loadVectors(model, vertical);
    this.vectors.set(key, loading);
    loading.catch(() => this.vectors.delete(key));
    return loading;
  }

  private async loadVectors(model: string, vertical: string | undefined): Promise<VectorSet> {
    const params: unknown[] = [model];
    let where = 'e.model = $1';
    if (vertical !== undefined) {
      params.push(vertical);
      where += ' AND e.vertical = $2';
    }
    const rows: { chunk_id: number | string; item_id: string; title: string; ord: number | string; dims: number | string; vector: Uint8Array }[] = await this.dataSource.query(
      portableSql(
        this.dataSource,
        `SELECT e.chunk_id, c.item_id, c.title, c.ord, e.dims, e.vector FROM knowledge_chunk_embeddings e JOIN knowledge_chunks c ON c.id = e.chunk_id WHERE ${where} ORDER BY e.chunk_id`,
      ),
      params,
    );
    // The most common length wins (a model whose vectors changed length mid-way).
    const dims = rows.length === 0 ? 0 : Number(rows[rows.length - 1].dims);
    const kept = rows.filter((r) => Number(r.dims) === dims);
    const matrix = new Float32Array(kept.length * dims);
    kept.forEach((r, i) => bytesInto(r.vector, dims, matrix, i * dims));
    return {
      loadedAt: Date.now(),
      dims,
      ids: kept.map((r) => Number(r.chunk_id)),
      itemIds: kept.map((r) => r.item_id),
      titles: kept.map((r) => r.title),
      ords: kept.map((r) => Number(r.ord)),
      matrix,
    };
  }

  /** One embeddings request within `timeoutMs`, recorded as a usage event (kind 'embedding'). */
  private async call(texts: string[], timeoutMs: number, requestId: string, vertical: string): Promise<{ vectors: Float32Array[] }> {
    const s = this.settings;
    const started = performance.now();
    const startedAt = Date.now();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let tokens = 0;
    let failure: string | undefined;
    try {
      const result = await embedTexts(await this.connection(), texts, abort.signal);
      tokens = result.tokens;
      return result;
    } catch (error) {
      failure = abort.signal.aborted ? `The embedding call took longer than ${timeoutMs} ms` : describeError(error);
      throw new Error(failure);
    } finally {
      clearTimeout(timer);
      if (this.agents.usageRecordingEnabled()) {
        void this.usage.record({
          createdAt: startedAt,
          requestId,
          agentId: 'embeddings',
          vertical,
          provider: s.provider,
          model: s.model,
          channel: 'rest',
          kind: 'embedding',
          status: failure ? 'error' : 'success',
          errorCode: failure ? (abort.signal.aborted ? 'embedding_timeout' : 'embedding_failed') : null,
          errorMessage: failure ? failure.slice(0, 500) : null,
          promptTokens: tokens,
          completionTokens: 0,
          costUsd: embeddingCostUsd(s.provider, s.model, tokens),
          latencyMs: Math.round(performance.now() - started),
          ttftMs: null,
          language: null,
          answered: null,
        });
      }
    }
  }
}

/** The `limit` rows of `set` with the highest dot product with `query` (brute force), best first. */
export function nearest(set: VectorSet, query: Float32Array, exclude: { has(id: number): boolean } | undefined, limit: number): SemanticHit[] {
  const { dims, matrix, ids } = set;
  const best: { row: number; score: number }[] = [];
  let floor = -Infinity;
  for (let row = 0; row < ids.length; row++) {
    let dot = 0;
    const base = row * dims;
    for (let i = 0; i < dims; i++) dot += matrix[base + i] * query[i];
    if (best.length >= limit && dot <= floor) continue;
    if (exclude?.has(ids[row])) continue;
    best.push({ row, score: dot });
    if (best.length > limit) {
      best.sort((a, b) => b.score - a.score);
      best.length = limit;
      floor = best[best.length - 1].score;
    }
  }
  best.sort((a, b) => b.score - a.score);
  return best.map(({ row, score }) => ({ chunkId: ids[row], itemId: set.itemIds[row], title: set.titles[row], ord: set.ords[row], score }));
}
