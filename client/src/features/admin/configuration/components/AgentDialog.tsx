import { Loader2 } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { PROVIDER_MODELS } from '@shared/catalog/providers';
import { Modal } from '../../../../components/Modal';
import type { AgentConfig, AgentUpdate, AgentVertical, KeyTestRequest, ProviderId } from '../api/config-api';
import { CONFIG } from '../strings';
import { ChoiceField, PROVIDER_OPTIONS, VERTICAL_OPTIONS, verticalOptionLabel } from './ChoiceField';
import { KeyBadge, type KeyTestState } from '../../components/KeyBadge';
import { KEY_TEST } from '../../strings';


/** The defaults an empty field falls back to. */
export const FIELD_DEFAULTS = { temperature: 0.7, maxTokens: 2000, timeout: 30000 };

interface Draft {
  agentName: string;
  vertical: AgentVertical;
  enabled: boolean;
  systemPrompt: string;
  timeout: string;
  provider: ProviderId;
  model: string;
  apiKey: string;
  temperature: string;
  maxTokens: string;
  endpoint: string;
  baseUrl: string;
  apiVersion: string;
}

/** The model a provider starts with (its catalog default). */
export const defaultModel = (provider: ProviderId) => (PROVIDER_MODELS[provider] ?? [])[0] ?? '';

/** The contract's words for a temperature outside 0..1 (src/shared/contracts/config.ts). */
export const TEMPERATURE_RANGE = 'Temperature must be between 0 and 1';

/** Empty: the global Response Temperature applies; else a number from 0 to 1. */
export function temperatureProblem(text: string): string | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? null : TEMPERATURE_RANGE;
}

function draftOf(agent: AgentConfig): Draft {
  const llm = agent.llmConfig;
  return {
    agentName: agent.agentName,
    vertical: agent.vertical,
    enabled: agent.enabled,
    systemPrompt: agent.systemPrompt,
    timeout: String(agent.timeout || FIELD_DEFAULTS.timeout),
    provider: llm.provider,
    model: llm.model,
    apiKey: '',
    // null: the agent has none of its own (the global Response Temperature applies).
    temperature: llm.temperature === null ? '' : String(llm.temperature),
    maxTokens: String(llm.maxTokens || FIELD_DEFAULTS.maxTokens),
    endpoint: llm.endpoint ?? '',
    baseUrl: llm.baseUrl ?? '',
    apiVersion: llm.apiVersion ?? '',
  };
}

/** Temperature null (the global one) when empty; max tokens 2000 and timeout 30000 when empty. */
export function updateOf(draft: Draft): AgentUpdate & { llmConfig: NonNullable<AgentUpdate['llmConfig']> } {
  const number = (text: string) => (text.trim() === '' ? NaN : Number(text));
  const temperature = number(draft.temperature);
  const maxTokens = number(draft.maxTokens);
  const timeout = number(draft.timeout);
  return {
    agentName: draft.agentName,
    vertical: draft.vertical,
    enabled: draft.enabled,
    systemPrompt: draft.systemPrompt,
    timeout: Number.isNaN(timeout) ? FIELD_DEFAULTS.timeout : timeout,
    llmConfig: {
      provider: draft.provider,
      model: draft.model,
      ...(draft.apiKey.trim() ? { apiKey: draft.apiKey.trim() } : {}),
      temperature: Number.isNaN(temperature) ? null : temperature,
      maxTokens: Number.isNaN(maxTokens) ? FIELD_DEFAULTS.maxTokens : maxTokens,
      endpoint: draft.endpoint.trim() || null,
      baseUrl: draft.baseUrl.trim() || null,
      apiVersion: draft.apiVersion.trim() || null,
    },
  };
}

export interface AgentDialogProps {
  agent: AgentConfig;
  keyTest: KeyTestState | undefined;
  onTestKey(request: KeyTestRequest): void;
  onSave(update: AgentUpdate): Promise<void>;
  onClose(): void;
  /** The provider was changed: a test of the previous one no longer says anything. */
  onProviderChange?(): void;
  /** The global Response Temperature, which applies while the field is empty. */
  globalTemperature?: number;
}

/**
 * The Configure dialog: opens with a copy of the agent; Cancel or the close icon discards the
 * edits; 'Save Configuration' saves to the server and closes. The key field is empty (the stored
 * key is kept unless a new one is typed); the test button tests the typed key, or the stored one.
 */
export function AgentDialog({ agent, keyTest, onTestKey, onSave, onClose, onProviderChange, globalTemperature }: AgentDialogProps) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent));
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = useId();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const testing = keyTest?.state === 'testing';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (temperatureError) return;
    setSaving(true);
    setError(null);
    try {
      await onSave(updateOf(draft));
    } catch (e) {
      console.error('Agent config save failed', e);
      setError(CONFIG.saveFailed(e instanceof Error ? e.message : String(e)));
      setSaving(false);
    }
  };

  const testKey = () => {
    const update = updateOf(draft);
    onTestKey({
      agentId: agent.agentId,
      provider: update.llmConfig.provider,
      apiKey: update.llmConfig.apiKey,
      model: update.llmConfig.model || undefined,
      endpoint: update.llmConfig.endpoint,
      baseUrl: update.llmConfig.baseUrl,
      apiVersion: update.llmConfig.apiVersion,
    });
  };

  const field = (name: string) => `${ids}-${name}`;
  const temperatureError = temperatureProblem(draft.temperature);
  const keyless = draft.provider === 'local';
  const changeProvider = (provider: ProviderId) => {
    setDraft((d) => ({ ...d, provider, model: defaultModel(provider), apiKey: provider === 'local' ? '' : d.apiKey }));
    onProviderChange?.();
  };
  const models = PROVIDER_MODELS[draft.provider] ?? [];

  return (
    <Modal open title={CONFIG.dialogTitle(agent.agentName)} description={agent.agentId} onClose={onClose} closeLabel={CONFIG.close} className="config-dialog">
      <form className="config-form" onSubmit={submit} noValidate>
        {error && (
          <div className="config-alert is-error" role="alert">
            {error}
          </div>
        )}
        <div className="config-field">
          <label htmlFor={field('name')}>{CONFIG.fields.agentName}</label>
          <input id={field('name')} value={draft.agentName} onChange={(e) => set('agentName', e.target.value)} maxLength={100} />
        </div>
        <div className="config-row">
          <ChoiceField<AgentVertical> id={field('vertical')} label={CONFIG.fields.vertical} value={draft.vertical} options={VERTICAL_OPTIONS} optionLabel={verticalOptionLabel} onChange={(v) => set('vertical', v)} />
          <ChoiceField<ProviderId> id={field('provider')} label={CONFIG.fields.provider} value={draft.provider} options={PROVIDER_OPTIONS} onChange={changeProvider} />
        </div>
        <div className="config-field">
          <label htmlFor={field('model')}>{CONFIG.fields.model}</label>
          <input id={field('model')} value={draft.model} onChange={(e) => set('model', e.target.value)} list={field('models')} maxLength={200} />
          <datalist id={field('models')}>
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
        {draft.provider === 'azure' && (
          <div className="config-row">
            <div className="config-field">
              <label htmlFor={field('endpoint')}>{CONFIG.fields.endpoint}</label>
              <input id={field('endpoint')} type="url" value={draft.endpoint} onChange={(e) => set('endpoint', e.target.value)} placeholder="https://<resource>.openai.azure.com" />
            </div>
            <div className="config-field">
              <label htmlFor={field('apiVersion')}>{CONFIG.fields.apiVersion}</label>
              <input id={field('apiVersion')} value={draft.apiVersion} onChange={(e) => set('apiVersion', e.target.value)} placeholder="2024-10-21" />
            </div>
          </div>
        )}
        {draft.provider === 'openai-compatible' && (
          <div className="config-field">
            <label htmlFor={field('baseUrl')}>{CONFIG.fields.baseUrl}</label>
            <input id={field('baseUrl')} type="url" value={draft.baseUrl} onChange={(e) => set('baseUrl', e.target.value)} placeholder="http://localhost:11434/v1" />
          </div>
        )}
        {keyless ? (
          <div className="config-field">
            <p className="config-hint" id={field('keyless')}>
              {CONFIG.keyNotNeeded}
            </p>
          </div>
        ) : (
          <div className="config-field">
            <label htmlFor={field('apiKey')}>{CONFIG.fields.apiKey}</label>
            <div className="config-key-row">
              <input
                id={field('apiKey')}
                type="password"
                autoComplete="off"
                value={draft.apiKey}
                onChange={(e) => set('apiKey', e.target.value)}
                placeholder={agent.llmConfig.apiKey ? CONFIG.keyPlaceholderStored(agent.llmConfig.apiKey) : CONFIG.keyPlaceholderNone}
              />
              <button type="button" className="config-button is-secondary" onClick={testKey} disabled={testing} aria-label={testing ? CONFIG.testingKey : CONFIG.testKeyLabel} aria-busy={testing}>
                {testing && <Loader2 size={16} className="config-spin" aria-hidden="true" />}
                {KEY_TEST.test}
              </button>
              <KeyBadge test={keyTest} />
            </div>
            {keyTest && keyTest.state !== 'testing' && <p className="config-hint">{keyTest.reason}</p>}
            {agent.keyError && <p className="config-hint is-error">{agent.keyError}</p>}
          </div>
        )}
        <div className="config-row is-three">
          <div className="config-field">
            <label htmlFor={field('temperature')}>{CONFIG.fields.temperature}</label>
            <input
              id={field('temperature')}
              type="number"
              min={0}
              max={1}
              step={0.1}
              value={draft.temperature}
              onChange={(e) => set('temperature', e.target.value)}
              placeholder={globalTemperature === undefined ? CONFIG.temperatureGlobal : CONFIG.temperatureGlobalValue(globalTemperature)}
              aria-invalid={temperatureError ? true : undefined}
              aria-describedby={field('temperature-hint')}
            />
            <p id={field('temperature-hint')} className={temperatureError ? 'config-hint is-error' : 'config-hint'}>
              {temperatureError ?? CONFIG.temperatureHint}
            </p>
          </div>
          <div className="config-field">
            <label htmlFor={field('maxTokens')}>{CONFIG.fields.maxTokens}</label>
            <input id={field('maxTokens')} type="number" min={1} step={1} value={draft.maxTokens} onChange={(e) => set('maxTokens', e.target.value)} placeholder={String(FIELD_DEFAULTS.maxTokens)} />
          </div>
          <div className="config-field">
            <label htmlFor={field('timeout')}>{CONFIG.fields.timeout}</label>
            <input id={field('timeout')} type="number" min={100} step={1000} value={draft.timeout} onChange={(e) => set('timeout', e.target.value)} placeholder={String(FIELD_DEFAULTS.timeout)} />
          </div>
        </div>
        <div className="config-field">
          <label htmlFor={field('prompt')}>{CONFIG.fields.systemPrompt}</label>
          <textarea id={field('prompt')} rows={3} value={draft.systemPrompt} onChange={(e) => set('systemPrompt', e.target.value)} />
        </div>
        <div className="config-switch">
          <input id={field('status')} type="checkbox" role="switch" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
          <label htmlFor={field('status')}>
            {CONFIG.fields.status}: {draft.enabled ? CONFIG.enabled : CONFIG.disabled}
          </label>
        </div>
        <div className="config-actions">
          <button type="button" className="config-button is-secondary" onClick={onClose}>
            {CONFIG.cancel}
          </button>
          <button type="submit" className="config-button is-primary" disabled={saving || temperatureError !== null}>
            {saving ? CONFIG.saving : CONFIG.save}
          </button>
        </div>
      </form>
    </Modal>
  );
}
