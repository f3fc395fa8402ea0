/**
 * The provider fields of a service the console configures beside the agents (speech to text,
 * embeddings): provider, model (with the provider's models offered), and where to reach it, an
 * Azure endpoint or an OpenAI-compatible base URL.
 */
export interface ProviderDraft<P extends string> {
  provider: P;
  model: string;
  endpoint: string;
  baseUrl: string;
}

export function ProviderFields<P extends string>(props: {
  /** Prefix of the fields' ids ("speech" gives "speech-provider", "speech-model"…). */
  idPrefix: string;
  draft: ProviderDraft<P>;
  set: (patch: Partial<ProviderDraft<P>>) => void;
  providers: readonly P[];
  labels: Record<P, string>;
  models: Record<P, readonly string[]>;
  /** The base URL's placeholder for a self-hosted, OpenAI-compatible server. */
  localBaseUrl: string;
}) {
  const { idPrefix, draft, set, providers, labels, models } = props;
  const id = (field: string) => `${idPrefix}-${field}`;
  return (
    <div className="config-row is-three">
      <div className="config-field">
        <label htmlFor={id('provider')}>Provider</label>
        <select id={id('provider')} value={draft.provider} onChange={(e) => set({ provider: e.target.value as P, model: models[e.target.value as P][0] })}>
          {providers.map((p) => (
            <option key={p} value={p}>
              {labels[p]}
            </option>
          ))}
        </select>
      </div>
      <div className="config-field">
        <label htmlFor={id('model')}>Model</label>
        <input id={id('model')} list={id('models')} value={draft.model} onChange={(e) => set({ model: e.target.value })} />
        <datalist id={id('models')}>
          {models[draft.provider].map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </div>
      {draft.provider === 'azure' ? (
        <div className="config-field">
          <label htmlFor={id('endpoint')}>Endpoint</label>
          <input id={id('endpoint')} type="url" value={draft.endpoint} placeholder="https://resource.openai.azure.com" onChange={(e) => set({ endpoint: e.target.value })} />
        </div>
      ) : (
        <div className="config-field">
          <label htmlFor={id('base-url')}>Base URL</label>
          <input
            id={id('base-url')}
            type="url"
            value={draft.baseUrl}
            placeholder={draft.provider === 'openai' ? 'https://api.openai.com/v1 (default)' : props.localBaseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
          />
        </div>
      )}
    </div>
  );
}
