import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { EMBEDDING_MODELS, EMBEDDING_PROVIDER_IDS, type EmbeddingProviderId } from '@shared/catalog/providers';
import { EMBEDDING_PROVIDER_LABELS } from '@shared/contracts/embeddings';
import { KeyBadge, type KeyTestState } from '../components/KeyBadge';
import { ProviderFields } from '../components/ProviderFields';
import { KEY_TEST } from '../strings';
import { EMBEDDING_STATUS_QUERY_KEY, EMBEDDINGS_QUERY_KEY, embeddingsApi, progressLine, type EmbeddingConfig, type EmbeddingSettingsUpdate } from './embeddings-api';

interface Draft {
  enabled: boolean;
  provider: EmbeddingProviderId;
  model: string;
  baseUrl: string;
  endpoint: string;
  apiVersion: string;
  keyFromAgent: string;
  apiKey: string;
}

function draftOf(config: EmbeddingConfig): Draft {
  const s = config.settings;
  return { enabled: s.enabled, provider: s.provider, model: s.model, baseUrl: s.baseUrl ?? '', endpoint: s.endpoint ?? '', apiVersion: s.apiVersion ?? '', keyFromAgent: s.keyFromAgent ?? '', apiKey: s.apiKey ?? '' };
}

/** What a save or a test sends: the draft's connection, its own key only when no agent lends one. */
function connectionOf(d: Draft): Omit<EmbeddingSettingsUpdate, 'enabled'> {
  return {
    provider: d.provider,
    model: d.model,
    baseUrl: d.baseUrl,
    endpoint: d.endpoint,
    apiVersion: d.apiVersion,
    keyFromAgent: d.keyFromAgent,
    ...(d.keyFromAgent ? {} : { apiKey: d.apiKey }),
  };
}

/**
 * Configuration tab, "Embeddings": hybrid retrieval (BM25 fused with vectors) on or off, the
 * provider (OpenAI, Azure OpenAI, an OpenAI-compatible server), model, address and key (its own,
 * or an agent's). Off by default; turning it on or changing the model starts a backfill.
 */
export function EmbeddingsSection({ agents }: { agents: { agentId: string; agentName: string }[] }) {
  const queryClient = useQueryClient();
  const config = useQuery({ queryKey: EMBEDDINGS_QUERY_KEY, queryFn: embeddingsApi.get });
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (config.data && !draft) setDraft(draftOf(config.data));
  }, [config.data, draft]);
  const save = useMutation({
    mutationFn: (d: Draft) => embeddingsApi.update({ enabled: d.enabled, ...connectionOf(d) }),
    onSuccess: (saved) => {
      queryClient.setQueryData(EMBEDDINGS_QUERY_KEY, saved);
      queryClient.setQueryData(EMBEDDING_STATUS_QUERY_KEY, saved.status);
      setDraft(draftOf(saved));
    },
  });
  // The test of the settings as entered; any edit makes its result stale.
  const keyTest = useMutation({ mutationFn: (d: Draft) => embeddingsApi.test(connectionOf(d)) });
  if (!draft) return null;
  const set = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    keyTest.reset();
  };
  // A failed test call counts as Invalid, as for the agents' keys.
  const test: KeyTestState | undefined = keyTest.isPending
    ? { state: 'testing' }
    : keyTest.data
      ? { state: keyTest.data.isValid ? 'valid' : 'invalid', reason: keyTest.data.reason }
      : keyTest.error
        ? { state: 'invalid', reason: keyTest.error.message }
        : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft);
  };
  const status = config.data?.status;
  return (
    <form className="config-settings" onSubmit={submit} noValidate>
      <section className="config-card" aria-labelledby="embeddings-title">
        <h3 id="embeddings-title">Embeddings</h3>
        <p className="config-hint">Hybrid retrieval: questions are matched by meaning (vectors) as well as by keywords (BM25). Off, search uses keywords only.</p>
        <div className="config-switch">
          <input id="embeddings-enabled" type="checkbox" role="switch" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          <label htmlFor="embeddings-enabled">Use embeddings</label>
        </div>
        <ProviderFields<EmbeddingProviderId> idPrefix="embeddings" draft={draft} set={set} providers={EMBEDDING_PROVIDER_IDS} labels={EMBEDDING_PROVIDER_LABELS} models={EMBEDDING_MODELS} localBaseUrl="http://localhost:11434/v1" />
        <div className="config-row is-three">
          {draft.provider === 'azure' && (
            <div className="config-field">
              <label htmlFor="embeddings-api-version">API Version</label>
              <input id="embeddings-api-version" value={draft.apiVersion} placeholder="2024-10-21" onChange={(e) => set({ apiVersion: e.target.value })} />
            </div>
          )}
          <div className="config-field">
            <label htmlFor="embeddings-key-source">API Key</label>
            <select id="embeddings-key-source" value={draft.keyFromAgent} onChange={(e) => set({ keyFromAgent: e.target.value })}>
              <option value="">Its own key</option>
              {agents.map((a) => (
                <option key={a.agentId} value={a.agentId}>
                  {`Use the key of ${a.agentName}`}
                </option>
              ))}
            </select>
          </div>
          {!draft.keyFromAgent && (
            <div className="config-field">
              <label htmlFor="embeddings-key">Key</label>
              <input
                id="embeddings-key"
                type="password"
                autoComplete="off"
                value={draft.apiKey}
                placeholder="sk-…"
                aria-describedby={config.data?.settings.keyUnreadable ? 'embeddings-key-unreadable' : undefined}
                onChange={(e) => set({ apiKey: e.target.value })}
              />
              {config.data?.settings.keyUnreadable && (
                <p id="embeddings-key-unreadable" className="config-hint">
                  The saved key cannot be read by this server (it was encrypted with another APP_SECRET): enter it again.
                </p>
              )}
            </div>
          )}
        </div>
        {test && test.state !== 'testing' && (
          <p className="config-hint" role="status">
            {test.reason}
          </p>
        )}
        <div className="config-actions">
          {status?.enabled && (
            <span className="config-status" role="status">
              {progressLine(status)}
              {status.degraded ? ' (the last embedding call failed: searching by keywords only)' : ''}
            </span>
          )}
          {save.isError && (
            <span className="config-status is-error" role="alert">
              {save.error.message}
            </span>
          )}
          <button
            type="button"
            className="config-button is-secondary"
            onClick={() => keyTest.mutate(draft)}
            disabled={keyTest.isPending}
            aria-label={keyTest.isPending ? 'Testing embeddings key' : 'Test embeddings key'}
            aria-busy={keyTest.isPending}
          >
            {keyTest.isPending && <Loader2 size={16} className="config-spin" aria-hidden="true" />}
            {KEY_TEST.test}
          </button>
          <KeyBadge test={test} />
          <button type="submit" className="config-button is-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save Embeddings'}
          </button>
        </div>
      </section>
    </form>
  );
}
