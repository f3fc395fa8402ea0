import { useId, useState, type FormEvent } from 'react';
import { Modal } from '../../../../components/Modal';
import type { AgentConfig, AgentVertical, ProviderId } from '../api/config-api';
import { configApi } from '../api/config-api';
import { CONFIG } from '../strings';
import { ChoiceField, PROVIDER_OPTIONS, VERTICAL_OPTIONS, verticalOptionLabel } from './ChoiceField';


/** 'Add agent': name, vertical and provider (POST /api/config/agents; the id is made from the name). */
export function NewAgentDialog({ onCreated, onClose }: { onCreated(agent: AgentConfig): void; onClose(): void }) {
  const ids = useId();
  const [agentName, setAgentName] = useState('');
  const [vertical, setVertical] = useState<AgentVertical>('universal');
  const [provider, setProvider] = useState<ProviderId>('openai');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onCreated(await configApi.createAgent({ agentName, vertical, llmConfig: { provider } }));
    } catch (e) {
      setError(CONFIG.createFailed(e instanceof Error ? e.message : String(e)));
      setBusy(false);
    }
  };

  return (
    <Modal open title={CONFIG.newAgentTitle} description={CONFIG.newAgentDescription} onClose={onClose} closeLabel={CONFIG.close} className="config-dialog">
      <form className="config-form" onSubmit={submit} noValidate>
        {error && (
          <div className="config-alert is-error" role="alert">
            {error}
          </div>
        )}
        <div className="config-field">
          <label htmlFor={`${ids}-name`}>{CONFIG.fields.agentName}</label>
          <input id={`${ids}-name`} value={agentName} onChange={(e) => setAgentName(e.target.value)} maxLength={100} />
        </div>
        <div className="config-row">
          <ChoiceField<AgentVertical> id={`${ids}-vertical`} label={CONFIG.fields.vertical} value={vertical} options={VERTICAL_OPTIONS} optionLabel={verticalOptionLabel} onChange={setVertical} />
          <ChoiceField<ProviderId> id={`${ids}-provider`} label={CONFIG.fields.provider} value={provider} options={PROVIDER_OPTIONS} onChange={setProvider} />
        </div>
        <div className="config-actions">
          <button type="button" className="config-button is-secondary" onClick={onClose}>
            {CONFIG.cancel}
          </button>
          <button type="submit" className="config-button is-primary" disabled={busy}>
            {busy ? CONFIG.creating : CONFIG.create}
          </button>
        </div>
      </form>
    </Modal>
  );
}
