import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Download, Plus, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { CONFIG_QUERY_KEY, configApi, type AgentConfig, type AgentUpdate, type GlobalSettingsUpdate, type KeyTestRequest, type SystemConfig, type ValidationReport } from './api/config-api';
import { AgentDialog } from './components/AgentDialog';
import { AgentList } from './components/AgentList';
import { NewAgentDialog } from './components/NewAgentDialog';
import { Modal } from '../../../components/Modal';
import type { KeyTestState } from '../components/KeyBadge';
import type { ChatLimits } from '@shared/contracts/limits';
import { ChatLimitsForm } from './components/ChatLimitsForm';
import { SettingsForm } from './components/SettingsForm';
import { ValidationPanel } from './components/ValidationPanel';
import { EmbeddingsSection } from '../embeddings/EmbeddingsSection';
import { SpeechSection } from './components/SpeechSection';
import { CONFIG } from './strings';
import { NoticeStack, useNotices } from '../../../components/Notices';
import './configuration.css';

/** Saves the export as a file through a temporary link. */
function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * The Configuration tab 'System Configuration': agents with
 * their keys (masked), the Configure dialog with the key test, Validate and Export, and the global
 * settings. Everything is read from and saved to the Config API.
 */
export function ConfigurationTab() {
  const queryClient = useQueryClient();
  const config = useQuery({
    queryKey: CONFIG_QUERY_KEY,
    queryFn: async () => {
      try {
        return await configApi.get();
      } catch (error) {
        console.error('Config load failed', error);
        throw error;
      }
    },
  });
  const [editing, setEditing] = useState<AgentConfig | null>(null);
  const [keyTests, setKeyTests] = useState<Record<string, KeyTestState>>({});
  const [report, setReport] = useState<ValidationReport | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const notices = useNotices();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<AgentConfig | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);

  const agentCreated = (agent: AgentConfig) => {
    setConfig((c) => ({ ...c, agents: [...c.agents, agent] }));
    setAdding(false);
    setReport(null);
    notices.notify(CONFIG.created(agent.agentName), { tone: 'success' });
    // The key, model and prompt are set in the Configure dialog.
    setEditing(agent);
    void queryClient.invalidateQueries({ queryKey: CONFIG_QUERY_KEY });
  };

  const removeAgent = async (agent: AgentConfig) => {
    setRemoveBusy(true);
    try {
      await configApi.deleteAgent(agent.agentId);
      setConfig((c) => ({ ...c, agents: c.agents.filter((a) => a.agentId !== agent.agentId) }));
      setKeyTests(({ [agent.agentId]: _old, ...rest }) => rest);
      setReport(null);
      notices.notify(CONFIG.removed(agent.agentName), { tone: 'success' });
      void queryClient.invalidateQueries({ queryKey: CONFIG_QUERY_KEY });
    } catch (error) {
      console.error('Agent delete failed', error);
      notices.notify(CONFIG.removeFailed(error instanceof Error ? error.message : String(error)), { tone: 'error' });
    } finally {
      setRemoveBusy(false);
      setRemoving(null);
    }
  };

  const validate = useMutation({
    mutationFn: configApi.validate,
    onMutate: () => setNotice(null),
    onSuccess: setReport,
    onError: (error: Error) => setNotice(CONFIG.validation.failed(error.message)),
  });
  const exportConfig = useMutation({
    mutationFn: configApi.exportFile,
    onMutate: () => setNotice(null),
    onSuccess: ({ name, blob }) => download(name, blob),
    onError: (error: Error) => setNotice(CONFIG.exportFailed(error.message)),
  });

  const setConfig = (update: (current: SystemConfig) => SystemConfig) =>
    queryClient.setQueryData<SystemConfig>(CONFIG_QUERY_KEY, (current) => (current ? update(current) : current));

  const saveAgent = async (agentId: string, update: AgentUpdate) => {
    const before = config.data?.agents.find((a) => a.agentId === agentId);
    const saved = await configApi.updateAgent(agentId, update);
    setConfig((c) => ({ ...c, agents: c.agents.map((a) => (a.agentId === agentId ? saved : a)) }));
    if (update.llmConfig?.apiKey || update.llmConfig?.provider !== before?.llmConfig.provider) setKeyTests(({ [agentId]: _old, ...rest }) => rest);
    setEditing(null);
    notices.notify(CONFIG.saved(saved.agentName), { tone: 'success' });
    setReport(null);
    void queryClient.invalidateQueries({ queryKey: CONFIG_QUERY_KEY });
  };

  const saveSettings = async (settings: GlobalSettingsUpdate) => {
    // The chat limits and the budgets have forms of their own: this one never sends them (a stale copy would undo their changes).
    const { chatLimits: _limits, budgets: _budgets, ...own } = settings;
    const saved = await configApi.updateGlobal(own);
    setConfig((c) => ({ ...c, global: saved }));
    setReport(null);
  };

  /** The chat rate limits (only they are sent). */
  const saveLimits = async (chatLimits: ChatLimits) => {
    const saved = await configApi.updateGlobal({ chatLimits });
    setConfig((c) => ({ ...c, global: saved }));
  };

  const testKey = async (request: KeyTestRequest) => {
    const agentId = request.agentId!;
    const typed = Boolean(request.apiKey);
    setKeyTests((t) => ({ ...t, [agentId]: { state: 'testing', typed } }));
    let result: KeyTestState;
    try {
      const outcome = await configApi.testApiKey(request);
      result = { state: outcome.isValid ? 'valid' : 'invalid', reason: outcome.reason, typed };
    } catch (error) {
      // A failed test call counts as Invalid.
      console.error('API key test failed', error);
      result = { state: 'invalid', reason: error instanceof Error ? error.message : String(error), typed };
    }
    setKeyTests((t) => ({ ...t, [agentId]: result }));
  };

  const agents = config.data?.agents ?? [];

  return (
    <div className="config-tab">
      <div className="config-header">
        <h2>{CONFIG.title}</h2>
        <div className="config-header-actions">
          <button type="button" className="config-button is-secondary" onClick={() => validate.mutate()} disabled={validate.isPending || !config.data}>
            <ShieldCheck size={16} aria-hidden="true" />
            {validate.isPending ? CONFIG.validating : CONFIG.validate}
          </button>
          <button type="button" className="config-button is-secondary" onClick={() => exportConfig.mutate()} disabled={exportConfig.isPending || !config.data}>
            <Download size={16} aria-hidden="true" />
            {exportConfig.isPending ? CONFIG.exporting : CONFIG.export}
          </button>
        </div>
      </div>
      {notice && (
        <div className="config-alert is-error" role="alert">
          {notice}
        </div>
      )}
      {(config.data?.settingsProblems.length ?? 0) > 0 && (
        <div className="config-alert is-error" role="alert">
          <p>{CONFIG.settingsUnreadable}</p>
          <ul>
            {config.data!.settingsProblems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {report && <ValidationPanel report={report} />}

      <section className="config-card" aria-labelledby="config-agents-title">
        <div className="config-section-head">
          <h3 id="config-agents-title">{CONFIG.agentsTitle}</h3>
          <button type="button" className="config-button is-secondary" onClick={() => setAdding(true)} disabled={!config.data}>
            <Plus size={16} aria-hidden="true" />
            {CONFIG.addAgent}
          </button>
        </div>
        {config.isPending ? (
          <p className="config-empty" role="status">
            {CONFIG.loading}
          </p>
        ) : config.isError ? (
          <p className="config-empty" role="alert">
            {CONFIG.loadFailed}
          </p>
        ) : (
          <AgentList agents={agents} keyTests={keyTests} onConfigure={setEditing} onRemove={setRemoving} verticals={config.data?.global.verticals} />
        )}
      </section>

      {config.data && <SettingsForm settings={config.data.global} onSave={saveSettings} />}
      {config.data && <ChatLimitsForm limits={config.data.global.chatLimits} onSave={saveLimits} />}
      {config.data && <EmbeddingsSection agents={agents} />}
      {config.data && <SpeechSection />}

      {editing && (
        <AgentDialog
          key={editing.agentId}
          agent={editing}
          keyTest={keyTests[editing.agentId]}
          onTestKey={testKey}
          onSave={(update) => saveAgent(editing.agentId, update)}
          onClose={() => setEditing(null)}
          onProviderChange={() => setKeyTests(({ [editing.agentId]: _old, ...rest }) => rest)}
          globalTemperature={config.data?.global.responseTemperature}
        />
      )}
      {adding && <NewAgentDialog onCreated={agentCreated} onClose={() => setAdding(false)} />}
      <Modal open={removing !== null} title={CONFIG.removeTitle} description={removing ? CONFIG.removeDescription(removing.agentName, removing.agentId) : undefined} onClose={() => setRemoving(null)} closeLabel={CONFIG.close} className="config-dialog">
        <div className="config-actions">
          <button type="button" className="config-button is-secondary" onClick={() => setRemoving(null)}>
            {CONFIG.cancel}
          </button>
          <button type="button" className="config-button is-danger" disabled={removeBusy} onClick={() => removing && void removeAgent(removing)}>
            {removeBusy ? CONFIG.removing : CONFIG.remove}
          </button>
        </div>
      </Modal>
      <NoticeStack notices={notices.notices} onDismiss={notices.dismiss} />
    </div>
  );
}

export default ConfigurationTab;
