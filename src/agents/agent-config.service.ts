import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { auditSecret } from '../audit/audit-diff';
import { AuditTargets, type TargetSnapshot } from '../audit/audit-targets';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Setting } from '../database/setting.entity';
import { writeTransaction } from '../database/write-queue';
import { listModels } from '../llm/adapters/list-models';
import { keyTestReason } from '../llm/adapters/provider-errors';
import type { ProviderConnection } from '../llm/llm.types';
import { DEFAULT_MODELS, getProvider, ProviderId } from '../shared/catalog/providers';
import { ENABLED_VERTICAL_IDS, getVertical } from '../shared/catalog/verticals';
import type { ConfigChangedPayload } from '../shared/contracts/socket';
import { Agent } from './agent.entity';
import { AgentRegistryService, ConfigSnapshot, LoadedAgent } from './agent-registry.service';
import { ConfigChangeBus } from './config-change-bus';
import {
  AGENT_DEFAULTS,
  AGENT_ID_PATTERN,
  AGENT_LIMITS as LIMITS,
  type AgentConfigDto,
  type AgentInput,
  type ConfigExport,
  type GlobalSettingsUpdateSchema,
  type KeyTestInput,
} from '../shared/contracts/config';
import type { z } from 'zod';
import { applySettingsUpdate, GLOBAL_SETTINGS_KEY, GlobalSettings, MAX_RESPONSE_LENGTH_LIMIT, publicSettingsOf } from './global-settings';
import { maskApiKey, SecretBox } from './secret-box';

import type { ConfigProblem, KeyTestResult as SharedKeyTestResult, SystemConfigDto, ValidationReport } from '../shared/contracts/config';

export type { ConfigProblem, SystemConfigDto, ValidationReport };

/** The shared key-test result, always with the provider tried and the time it took here. */
export interface KeyTestResult extends SharedKeyTestResult {
  provider: ProviderId;
  latencyMs: number;
}

export type { ConfigExport };

/**
 * The Config API's logic: agents CRUD with encrypted keys,
 * global settings, validation, export, and the API key test through the vendor's SDK.
 * Every change reloads this server's cache, tells the other servers, and pushes `config:changed`
 * to the admin consoles.
 */
@Injectable()
export class AgentConfigService {
  private readonly logger = new Logger('AgentConfig');

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(Agent) private readonly agents: Repository<Agent>,
    @InjectRepository(Setting) private readonly settings: Repository<Setting>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: AgentRegistryService,
    private readonly box: SecretBox,
    private readonly bus: ConfigChangeBus,
    private readonly adminEvents: AdminEventsService,
    @Optional() auditTargets?: AuditTargets,
  ) {
    auditTargets?.register('agent', { snapshot: (id) => this.agentSnapshot(id) });
    auditTargets?.register('settings', { snapshot: async () => ({ title: 'Global settings', fields: { ...(await this.registry.reload()).global } }) });
  }

  /** An agent as the audit log compares it: its settings, and whether its key changed (a fingerprint of the key, never the key). */
  private async agentSnapshot(agentId: string): Promise<TargetSnapshot | null> {
    const row = await this.agents.findOneBy({ agentId });
    if (!row) return null;
    let key: string | null = row.apiKeyCipher;
    try {
      // The stored form changes with every save (a new IV): compare what it decrypts to.
      key = row.apiKeyCipher && this.box.decrypt(row.apiKeyCipher, agentId);
    } catch {
      // A damaged value is compared as stored.
    }
    return {
      title: row.agentName,
      fields: {
        agentName: row.agentName,
        vertical: row.vertical,
        enabled: row.enabled,
        systemPrompt: row.systemPrompt,
        timeout: row.timeoutMs,
        llmConfig: {
          provider: row.provider,
          model: row.model,
          apiKey: auditSecret(key),
          temperature: row.temperature,
          maxTokens: row.maxTokens,
          endpoint: row.endpoint,
          baseUrl: row.baseUrl,
          apiVersion: row.apiVersion,
        },
      },
    };
  }

  async getConfig(): Promise<SystemConfigDto> {
    const snapshot = await this.registry.reload();
    return { agents: snapshot.agents.map(toDto), global: snapshot.global, settingsProblems: snapshot.settingsProblems };
  }

  async getAgent(agentId: string): Promise<AgentConfigDto> {
    return toDto(this.find(await this.registry.reload(), agentId));
  }

  /** A checked AgentCreateSchema body: name, vertical and provider are there. */
  async createAgent(input: AgentInput & Required<Pick<AgentInput, 'agentName' | 'vertical'>> & { llmConfig: { provider: ProviderId } }): Promise<AgentConfigDto> {
    const agentId = input.agentId ?? slugify(input.agentName);
    // A name without letters or digits makes no id: ask for one.
    if (!AGENT_ID_PATTERN.test(agentId)) throw new AppError('validation_failed', 'Give the agent an id (a slug such as billing-agent).');
    const llm = input.llmConfig;
    const now = Date.now();
    const row: Agent = {
      agentId,
      agentName: input.agentName,
      vertical: input.vertical,
      enabled: input.enabled ?? true,
      systemPrompt: input.systemPrompt ?? '',
      timeoutMs: input.timeout ?? AGENT_DEFAULTS.timeout,
      provider: llm.provider,
      model: llm.model ?? DEFAULT_MODELS[llm.provider],
      apiKeyCipher: llm.apiKey ? this.box.encrypt(llm.apiKey, agentId) : null,
      temperature: llm.temperature ?? null,
      maxTokens: llm.maxTokens ?? AGENT_DEFAULTS.maxTokens,
      endpoint: llm.endpoint ?? null,
      baseUrl: llm.baseUrl ?? null,
      apiVersion: llm.apiVersion ?? null,
      position: 0,
      createdAt: now,
      updatedAt: now,
    };
    await writeTransaction(this.dataSource, async (m) => {
      const repo = m.withRepository(this.agents);
      if (await repo.existsBy({ agentId })) throw new AppError('conflict', `An agent with the id "${agentId}" already exists.`);
      const last = await repo.createQueryBuilder('a').select('MAX(a.position)', 'max').getRawOne<{ max: number | string | null }>();
      row.position = Number(last?.max ?? -1) + 1;
      await repo.insert(row);
    });
    return this.changed({ agentId }, agentId);
  }

  async updateAgent(agentId: string, input: AgentInput): Promise<AgentConfigDto> {
    if (input.agentId !== undefined && input.agentId !== agentId) {
      throw new AppError('validation_failed', "An agent's id cannot be changed; create a new agent instead.");
    }
    await writeTransaction(this.dataSource, async (m) => {
      const repo = m.withRepository(this.agents);
      const row = await repo.findOneBy({ agentId });
      if (!row) throw new AppError('not_found', `No agent with the id "${agentId}".`);
      const llm: NonNullable<AgentInput['llmConfig']> = input.llmConfig ?? { apiKey: undefined };
      const providerChanged = llm.provider !== undefined && llm.provider !== row.provider;
      if (input.agentName !== undefined) row.agentName = input.agentName;
      if (input.vertical !== undefined) row.vertical = input.vertical;
      if (input.enabled !== undefined) row.enabled = input.enabled;
      if (input.systemPrompt !== undefined) row.systemPrompt = input.systemPrompt;
      if (input.timeout !== undefined) row.timeoutMs = input.timeout;
      if (llm.provider !== undefined) row.provider = llm.provider;
      if (llm.model !== undefined) row.model = llm.model;
      else if (providerChanged) row.model = DEFAULT_MODELS[row.provider];
      if (llm.temperature !== undefined) row.temperature = llm.temperature;
      if (llm.maxTokens !== undefined) row.maxTokens = llm.maxTokens;
      if (llm.endpoint !== undefined) row.endpoint = llm.endpoint;
      if (llm.baseUrl !== undefined) row.baseUrl = llm.baseUrl;
      if (llm.apiVersion !== undefined) row.apiVersion = llm.apiVersion;
      if (llm.apiKey === null) row.apiKeyCipher = null;
      else if (llm.apiKey !== undefined) row.apiKeyCipher = this.box.encrypt(llm.apiKey, agentId);
      row.updatedAt = Date.now();
      await repo.save(row);
    });
    return this.changed({ agentId }, agentId);
  }

  async deleteAgent(agentId: string): Promise<{ agentId: string }> {
    await writeTransaction(this.dataSource, async (m) => {
      const result = await m.withRepository(this.agents).delete({ agentId });
      if (!result.affected) throw new AppError('not_found', `No agent with the id "${agentId}".`);
    });
    await this.changed({ agentId });
    return { agentId };
  }

  async updateGlobal(update: z.output<typeof GlobalSettingsUpdateSchema>): Promise<GlobalSettings> {
    const { global: current, agents } = await this.registry.reload();
    // A new per-agent budget must name an agent that exists (one kept from an agent deleted since stays).
    const known = new Set([...agents.map((a) => `agent:${a.row.agentId}`), ...current.budgets.list.map((b) => b.scope)]);
    const unknown = update.budgets?.list?.find((b) => b.scope.startsWith('agent:') && !known.has(b.scope));
    if (unknown) throw new AppError('validation_failed', `Budget scope "${unknown.scope}" names no agent: add the agent first, or choose another scope.`);
    const next = applySettingsUpdate(current, update);
    await writeTransaction(this.dataSource, (m) =>
      // An upsert (ON CONFLICT), not save()'s SELECT-then-INSERT: servers saving the first settings
      // of a new database at once both inserted, and one answered 500 (duplicate key).
      m.withRepository(this.settings).upsert({ key: GLOBAL_SETTINGS_KEY, value: JSON.stringify(next), updatedAt: Date.now() }, ['key']),
    );
    const changed = Object.keys(next).filter((k) => JSON.stringify(next[k as keyof GlobalSettings]) !== JSON.stringify(current[k as keyof GlobalSettings]));
    this.logger.log(`Global settings saved${changed.length ? ` (${changed.join(', ')})` : ''}`);
    await this.changed({});
    const saved = (await this.registry.current()).global;
    // Open chat pages grey a switched-off vertical and take a new default language at once.
    this.adminEvents.emitPublic('settings:changed', publicSettingsOf(saved));
    return saved;
  }

  /** Real checks of the whole configuration; problems are listed, not thrown. */
  async validate(): Promise<ValidationReport> {
    const { agents, global, settingsProblems } = await this.registry.reload();
    const problems: ConfigProblem[] = settingsProblems.map((message) => ({ severity: 'error', field: 'global', message }));
    const enabledAgents = agents.filter((a) => a.row.enabled);
    const universal = enabledAgents.find((a) => a.row.vertical === 'universal');
    for (const vertical of ENABLED_VERTICAL_IDS) {
      if (!global.verticals[vertical]) continue;
      if (enabledAgents.some((a) => a.row.vertical === vertical)) continue;
      const name = getVertical(vertical)?.name ?? vertical;
      problems.push(
        universal
          ? { severity: 'warning', field: `verticals.${vertical}`, message: `${name} has no enabled agent of its own; the universal agent ${universal.row.agentId} answers it.` }
          : { severity: 'error', field: `verticals.${vertical}`, message: `${name} is enabled but has no enabled agent (and there is no enabled universal agent); the offline responder would answer.` },
      );
    }
    for (const agent of agents) {
      const row = agent.row;
      const at = (field: string, message: string, severity: ConfigProblem['severity'] = 'error') =>
        problems.push({ severity, agentId: row.agentId, field, message: `${row.agentName} (${row.agentId}): ${message}` });
      if (!row.enabled) continue;
      const provider = getProvider(row.provider);
      if (!provider) at('llmConfig.provider', `unknown provider "${row.provider}".`);
      if (!row.model.trim()) at('llmConfig.model', 'no model is set.');
      if (provider?.needsApiKey && !agent.apiKey && !agent.keyError) at('llmConfig.apiKey', `no API key is set for ${provider.label}.`);
      if (agent.keyError) at('llmConfig.apiKey', agent.keyError);
      if (row.provider === 'azure' && !row.endpoint) at('llmConfig.endpoint', 'Azure OpenAI needs the resource endpoint.');
      if (row.provider === 'openai-compatible' && !row.baseUrl && !row.endpoint) at('llmConfig.baseUrl', 'an OpenAI-compatible server needs its base URL.');
      if (row.temperature !== null && !(row.temperature >= 0 && row.temperature <= 1)) at('llmConfig.temperature', `temperature ${row.temperature} is outside 0 to 1.`);
      if (!(Number.isInteger(row.maxTokens) && row.maxTokens >= 1 && row.maxTokens <= LIMITS.maxTokens)) at('llmConfig.maxTokens', `max tokens ${row.maxTokens} is outside 1 to ${LIMITS.maxTokens}.`);
      if (!(row.timeoutMs >= LIMITS.minTimeout && row.timeoutMs <= LIMITS.maxTimeout)) at('timeout', `timeout ${row.timeoutMs} ms is outside ${LIMITS.minTimeout} to ${LIMITS.maxTimeout}.`);
      if (row.maxTokens > global.maxResponseLength) {
        at('llmConfig.maxTokens', `max tokens ${row.maxTokens} is above the global max response length (${global.maxResponseLength}), which applies instead.`, 'warning');
      }
      if (row.vertical !== 'universal' && !global.verticals[row.vertical]) {
        at('vertical', `its vertical ${getVertical(row.vertical)?.name ?? row.vertical} is switched off in the global settings.`, 'warning');
      }
      if (!row.systemPrompt.trim()) at('systemPrompt', 'the system prompt is empty.', 'warning');
    }
    if (!(global.responseTemperature >= 0 && global.responseTemperature <= 1)) {
      problems.push({ severity: 'error', field: 'responseTemperature', message: 'The global response temperature is outside 0 to 1.' });
    }
    if (!(global.maxResponseLength >= 1 && global.maxResponseLength <= MAX_RESPONSE_LENGTH_LIMIT)) {
      problems.push({ severity: 'error', field: 'maxResponseLength', message: 'The global max response length is out of range.' });
    }
    if (!ENABLED_VERTICAL_IDS.some((v) => global.verticals[v])) {
      problems.push({ severity: 'warning', field: 'verticals', message: 'Every vertical is switched off: visitors cannot chat.' });
    }
    return { valid: !problems.some((p) => p.severity === 'error'), problems, checkedAt: new Date().toISOString() };
  }

  async exportConfig(): Promise<ConfigExport> {
    const { agents, global } = await this.registry.reload();
    return {
      format: 'support-assistant-config',
      version: 1,
      exportedAt: new Date().toISOString(),
      global,
      agents: agents.map((agent) => {
        const { llmConfig, keyError: _keyError, ...rest } = toDto(agent);
        const { apiKey: _apiKey, ...llm } = llmConfig;
        return { ...rest, llmConfig: { ...llm, hasApiKey: !!agent.row.apiKeyCipher } };
      }),
    };
  }

  /**
   * Tests a key by listing the provider's models through its own SDK (a real call, bounded by the
   * key-test timeout). With an agentId and no apiKey, the agent's stored key (and address) is used.
   */
  async testApiKey(input: KeyTestInput): Promise<KeyTestResult> {
    let connection: ProviderConnection;
    let model = input.model;
    if (input.agentId) {
      const agent = this.find(await this.registry.current(), input.agentId);
      if (!input.apiKey && agent.keyError) {
        return { isValid: false, reason: agent.keyError, provider: agent.row.provider, latencyMs: 0 };
      }
      const provider = input.provider ?? agent.row.provider;
      const sameProvider = provider === agent.row.provider;
      connection = {
        provider,
        apiKey: input.apiKey ?? (sameProvider ? agent.apiKey : undefined),
        endpoint: valueOr(input.endpoint, sameProvider ? agent.row.endpoint : null),
        baseUrl: valueOr(input.baseUrl, sameProvider ? agent.row.baseUrl : null),
        apiVersion: valueOr(input.apiVersion, sameProvider ? agent.row.apiVersion : null),
      };
      model ??= sameProvider ? agent.row.model : undefined;
    } else {
      connection = {
        provider: input.provider!,
        apiKey: input.apiKey,
        endpoint: input.endpoint ?? undefined,
        baseUrl: input.baseUrl ?? undefined,
        apiVersion: input.apiVersion ?? undefined,
      };
    }
    const timeoutMs = this.config.apiKeyTestTimeoutMs;
    connection.timeoutMs = timeoutMs;
    const info = getProvider(connection.provider)!;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (connection.provider === 'local') {
      return { isValid: true, reason: 'The offline responder needs no API key.', provider: 'local', latencyMs: 0 };
    }
    if (info.needsApiKey && !connection.apiKey) {
      return { isValid: false, reason: `No API key to test: enter the ${info.label} key.`, provider: connection.provider, latencyMs: 0 };
    }
    try {
      const models = await listModels(connection, AbortSignal.timeout(timeoutMs));
      const modelAvailable = model ? models.includes(model) : undefined;
      const reason =
        `${info.label} accepted the key (${models.length} models available)` +
        (model === undefined ? '.' : modelAvailable ? `; ${model} is one of them.` : `, but ${model} is not among them.`);
      this.logger.debug(`API key test (${connection.provider}): valid, ${models.length} models, ${elapsed()} ms`);
      return { isValid: true, reason, provider: connection.provider, modelCount: models.length, modelAvailable, latencyMs: elapsed() };
    } catch (error) {
      const reason = keyTestReason(error, timeoutMs);
      this.logger.debug(`API key test (${connection.provider}): invalid (${reason}), ${elapsed()} ms`);
      return { isValid: false, reason, provider: connection.provider, latencyMs: elapsed() };
    }
  }

  private find(snapshot: ConfigSnapshot, agentId: string): LoadedAgent {
    const agent = snapshot.agents.find((a) => a.row.agentId === agentId);
    if (!agent) throw new AppError('not_found', `No agent with the id "${agentId}".`);
    return agent;
  }

  /** After a write: reload here, tell the other servers and the admin consoles. */
  private async changed(change: ConfigChangedPayload): Promise<void>;
  private async changed(change: ConfigChangedPayload, agentId: string): Promise<AgentConfigDto>;
  private async changed(change: ConfigChangedPayload, agentId?: string): Promise<AgentConfigDto | void> {
    const snapshot = await this.registry.reload();
    await this.bus.publish(change);
    this.adminEvents.emit('config:changed', change);
    if (agentId) return toDto(this.find(snapshot, agentId));
  }
}

function valueOr(given: string | null | undefined, stored: string | null): string | undefined {
  return (given === undefined ? stored : given) ?? undefined;
}

function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, LIMITS.agentId);
}

export function toDto(agent: LoadedAgent): AgentConfigDto {
  const row = agent.row;
  return {
    agentId: row.agentId,
    agentName: row.agentName,
    vertical: row.vertical,
    enabled: row.enabled,
    systemPrompt: row.systemPrompt,
    timeout: row.timeoutMs,
    llmConfig: {
      provider: row.provider,
      model: row.model,
      apiKey: agent.apiKey ? maskApiKey(agent.apiKey) : '',
      temperature: row.temperature,
      maxTokens: row.maxTokens,
      endpoint: row.endpoint,
      baseUrl: row.baseUrl,
      apiVersion: row.apiVersion,
    },
    keyStatus: agent.keyError ? 'unreadable' : agent.apiKey ? 'set' : 'missing',
    ...(agent.keyError ? { keyError: agent.keyError } : {}),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
