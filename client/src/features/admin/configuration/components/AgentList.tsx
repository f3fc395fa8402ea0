import { Key, Settings2 } from 'lucide-react';
import type { AgentConfig } from '../api/config-api';
import { CONFIG } from '../strings';
import { KeyBadge, type KeyTestState } from './KeyBadge';

function keyText(agent: AgentConfig): string {
  if (agent.keyStatus === 'unreadable') return CONFIG.keyUnreadable;
  return agent.llmConfig.apiKey || CONFIG.noKey;
}

/** 'Agent API Key Management': one card per agent (enabled dot, name, id, badge, Configure; provider, model, masked key). */
export function AgentList(props: { agents: AgentConfig[]; keyTests: Record<string, KeyTestState>; onConfigure(agent: AgentConfig): void }) {
  const { agents, keyTests, onConfigure } = props;
  if (agents.length === 0) return <p className="config-empty">{CONFIG.noAgents}</p>;
  return (
    <ul className="config-agents" aria-label={CONFIG.agentsTitle}>
      {agents.map((agent) => (
        <li key={agent.agentId} className="config-agent" aria-label={agent.agentName}>
          <div className="config-agent-head">
            <span
              className={`config-dot ${agent.enabled ? 'is-on' : 'is-off'}`}
              role="img"
              aria-label={agent.enabled ? CONFIG.enabled : CONFIG.disabled}
              title={agent.enabled ? CONFIG.enabled : CONFIG.disabled}
            />
            <div className="config-agent-names">
              <span className="config-agent-name">{agent.agentName}</span>
              <span className="config-agent-id">{agent.agentId}</span>
            </div>
            <KeyBadge test={keyTests[agent.agentId]} />
            <button type="button" className="config-button is-secondary" onClick={() => onConfigure(agent)} aria-label={`${CONFIG.configure} ${agent.agentName}`}>
              <Settings2 size={16} aria-hidden="true" />
              {CONFIG.configure}
            </button>
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
      ))}
    </ul>
  );
}
