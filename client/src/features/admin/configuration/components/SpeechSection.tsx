import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { SPEECH_MODELS, SPEECH_PROVIDER_IDS, SPEECH_PROVIDER_LABELS, SpeechSettingsUpdateSchema, type SpeechProviderId, type SpeechSettings, type SpeechSettingsUpdate } from '@shared/contracts/speech';
import type { SuccessEnvelope as Data } from '@shared/contracts/http';
import { apiRequest } from '../../../../lib/api';
import { ProviderFields } from '../../components/ProviderFields';

const SPEECH_QUERY_KEY = ['config', 'speech'] as const;

const speechApi = {
  async get(): Promise<SpeechSettings> {
    return (await apiRequest<Data<SpeechSettings>>('/api/config/speech')).data;
  },
  async update(update: SpeechSettingsUpdate): Promise<SpeechSettings> {
    return (await apiRequest<Data<SpeechSettings>>('/api/config/speech', { method: 'PUT', body: update, contract: SpeechSettingsUpdateSchema })).data;
  },
};

interface Draft {
  enabled: boolean;
  provider: SpeechProviderId;
  model: string;
  baseUrl: string;
  endpoint: string;
  apiVersion: string;
  apiKey: string;
}

function draftOf(s: SpeechSettings): Draft {
  return { enabled: s.enabled, provider: s.provider, model: s.model, baseUrl: s.baseUrl ?? '', endpoint: s.endpoint ?? '', apiVersion: s.apiVersion ?? '', apiKey: s.apiKey ?? '' };
}

/**
 * Configuration tab, "Speech to text": the provider that turns recordings into text for browsers
 * without speech recognition (Firefox). Off by default; off, their visitors see no microphone.
 */
export function SpeechSection() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: SPEECH_QUERY_KEY, queryFn: speechApi.get });
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (settings.data && !draft) setDraft(draftOf(settings.data));
  }, [settings.data, draft]);
  const save = useMutation({
    mutationFn: (d: Draft) => speechApi.update({ ...d }),
    onSuccess: (saved) => {
      queryClient.setQueryData(SPEECH_QUERY_KEY, saved);
      setDraft(draftOf(saved));
    },
  });
  if (!draft) return null;
  const set = (patch: Partial<Draft>) => {
    setDraft({ ...draft, ...patch });
    save.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft);
  };
  return (
    <form className="config-settings" onSubmit={submit} noValidate>
      <section className="config-card" aria-labelledby="speech-title">
        <h3 id="speech-title">Speech to text</h3>
        <p className="config-hint">
          Browsers without speech recognition (Firefox) record the visitor&apos;s question and send it here to be turned into text, at most 60 seconds at a time. Off, their
          visitors see no microphone. Each recording is billed by the provider per minute and counted in Analytics.
        </p>
        <div className="config-switch">
          <input id="speech-enabled" type="checkbox" role="switch" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          <label htmlFor="speech-enabled">Transcribe recordings</label>
        </div>
        <ProviderFields<SpeechProviderId> idPrefix="speech" draft={draft} set={set} providers={SPEECH_PROVIDER_IDS} labels={SPEECH_PROVIDER_LABELS} models={SPEECH_MODELS} localBaseUrl="http://localhost:8000/v1" />
        <div className="config-row is-three">
          {draft.provider === 'azure' && (
            <div className="config-field">
              <label htmlFor="speech-api-version">API Version</label>
              <input id="speech-api-version" value={draft.apiVersion} placeholder="2024-10-21" onChange={(e) => set({ apiVersion: e.target.value })} />
            </div>
          )}
          <div className="config-field">
            <label htmlFor="speech-key">API Key</label>
            <input
              id="speech-key"
              type="password"
              autoComplete="off"
              value={draft.apiKey}
              placeholder={draft.provider === 'openai-compatible' ? 'none needed for most local servers' : 'sk-…'}
              aria-describedby={settings.data?.keyUnreadable ? 'speech-key-unreadable' : undefined}
              onChange={(e) => set({ apiKey: e.target.value })}
            />
            {settings.data?.keyUnreadable && (
              <p id="speech-key-unreadable" className="config-hint">
                The saved key cannot be read by this server (it was encrypted with another APP_SECRET): enter it again.
              </p>
            )}
          </div>
        </div>
        <div className="config-actions">
          {save.isSuccess && (
            <span className="config-status" role="status">
              Saved
            </span>
          )}
          {save.isError && (
            <span className="config-status is-error" role="alert">
              {save.error.message}
            </span>
          )}
          <button type="submit" className="config-button is-primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save Speech to text'}
          </button>
        </div>
      </section>
    </form>
  );
}
