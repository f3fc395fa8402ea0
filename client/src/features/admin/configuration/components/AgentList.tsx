import { Key, Settings2, Trash2 } from 'lucide-react';
import type { AgentConfig } from '../api/config-api';
import { CONFIG } from '../strings';
import { KeyBadge, type KeyTestState } from '../../components/KeyBadge';

function keyText(agent: AgentConfig): string {
  if (agent.keyStatus === 'unreadable') return CONFIG.keyUnreadable;
  return agent.llmConfig.apiKey || CONFIG.noKey;
}

/** 'Agent API Key Management': one card per agent (enabled dot, name, id, badge, Configure; provider, model, masked key). */
export function AgentList(props: { agents: AgentConfig[]; keyTests: Record<string, KeyTestState>; onConfigure(agent: AgentConfig): void; onRemove?(agent: AgentConfig): void; verticals?: Record<string, boolean> }) {
  const { agents, keyTests, onConfigure, onRemove, verticals = {} } = props;
  if (agents.length === 0) return <p className="config-empty">{CONFIG.noAgents}</p>;
  return (
    <ul className="config-agents" aria-label={CONFIG.agentsTitle}>
      {agents.map((agent) => {
        // An agent of a switched-off vertical answers nobody: its dot is off too.
        const verticalOff = verticals[agent.vertical] === false;
        const on = agent.enabled && !verticalOff;
        const dotLabel = verticalOff ? CONFIG.verticalOff : agent.enabled ? CONFIG.enabled : CONFIG.disabled;
        // The card shows tests of the stored key only: a typed key that was never saved says nothing about it.
        const test = keyTests[agent.agentId];
        return (
        <li key={agent.agentId} className="config-agent" aria-label={agent.agentName}>
          <div className="config-agent-head">
            <span
              className={`config-dot ${on ? 'is-on' : 'is-off'}`}
              role="img"
              aria-label={dotLabel}
              title={dotLabel}
            />
            <div className="config-agent-names">
              <span className="config-agent-name">{agent.agentName}</span>
              <span className="config-agent-id">{agent.agentId}</span>
            </div>
            <KeyBadge test={test && !test.typed ? test : undefined} />
            <button type="button" className="config-button is-secondary" onClick={() => onConfigure(agent)} aria-label={`${CONFIG.configure} ${agent.agentName}`}>
              <Settings2 size={16} aria-hidden="true" />
              {CONFIG.configure}
            </button>
            {onRemove && (
              <button type="button" className="config-button is-secondary" onClick={() => onRemove(agent)} aria-label={CONFIG.removeLabel(agent.agentName)} title={CONFIG.removeLabel(agent.agentName)}>
                <Trash2 size={16} aria-hidden="true" />
              </button>
            )}
          </div>
          <dl className="config-agent-details">
            <div>
              <dt>{CONFIG.provider}</dt>
              <dd>{agent.llmConfig.provider}</dd>
            </div>
            <div>
              <dt>{CONFIG.model}</dt>
              <dd>{agent.llmConfig.model}</dd>
            </div>
            <div>
              <dt>{CONFIG.apiKey}</dt>
              <dd className={agent.keyStatus === 'unreadable' ? 'config-key is-unreadable' : 'config-key'} title={agent.keyError}>
                <Key size={14} aria-hidden="true" />
                {keyText(agent)}
              </dd>
            </div>
          </dl>
        </li>
        );
      })}
    </ul>
  );
}
