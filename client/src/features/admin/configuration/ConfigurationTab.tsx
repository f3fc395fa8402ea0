import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Download, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { CONFIG_QUERY_KEY, configApi, type AgentConfig, type AgentUpdate, type GlobalSettings, type KeyTestRequest, type SystemConfig, type ValidationReport } from './api/config-api';
import { AgentDialog } from './components/AgentDialog';
import { AgentList } from './components/AgentList';
import type { KeyTestState } from './components/KeyBadge';
import { SettingsForm } from './components/SettingsForm';
import { ValidationPanel } from './components/ValidationPanel';
import { CONFIG } from './strings';
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
 * The Configuration tab 'System Configuration' (product-spec sections 2, 4 and 5): agents with
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
    const saved = await configApi.updateAgent(agentId, update);
    setConfig((c) => ({ ...c, agents: c.agents.map((a) => (a.agentId === agentId ? saved : a)) }));
    if (update.llmConfig?.apiKey) setKeyTests(({ [agentId]: _old, ...rest }) => rest);
    setEditing(null);
    setReport(null);
    void queryClient.invalidateQueries({ queryKey: CONFIG_QUERY_KEY });
  };

  const saveSettings = async (settings: GlobalSettings) => {
    const saved = await configApi.updateGlobal(settings);
    setConfig((c) => ({ ...c, global: saved }));
    setReport(null);
  };

  const testKey = async (request: KeyTestRequest) => {
    const agentId = request.agentId!;
    setKeyTests((t) => ({ ...t, [agentId]: { state: 'testing' } }));
    let result: KeyTestState;
    try {
      const outcome = await configApi.testApiKey(request);
      result = { state: outcome.isValid ? 'valid' : 'invalid', reason: outcome.reason };
    } catch (error) {
      // A failed test call counts as Invalid (product-spec section 8).
      console.error('API key test failed', error);
      result = { state: 'invalid', reason: error instanceof Error ? error.message : String(error) };
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
      {report && <ValidationPanel report={report} />}

      <section className="config-card" aria-labelledby="config-agents-title">
        <h3 id="config-agents-title">{CONFIG.agentsTitle}</h3>
        {config.isPending ? (
          <p className="config-empty" role="status">
            {CONFIG.loading}
          </p>
        ) : config.isError ? (
          <p className="config-empty" role="alert">
            {CONFIG.loadFailed}
          </p>
        ) : (
          <AgentList agents={agents} keyTests={keyTests} onConfigure={setEditing} />
        )}
      </section>

      {config.data && <SettingsForm settings={config.data.global} onSave={saveSettings} />}

      {editing && (
        <AgentDialog
          key={editing.agentId}
          agent={editing}
          keyTest={keyTests[editing.agentId]}
          onTestKey={testKey}
          onSave={(update) => saveAgent(editing.agentId, update)}
          onClose={() => setEditing(null)}
        />
      )}
    </div>
  );
}

export default ConfigurationTab;
