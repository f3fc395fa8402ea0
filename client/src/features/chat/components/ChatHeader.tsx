import { Zap } from 'lucide-react';
import type { ConnectionStatus } from '../api/chat-connection';
import { BRAND, CHAT } from '../strings';

/** The brand banner: logo, name, tagline, and a small connection indicator. */
export function ChatHeader({ status }: { status: ConnectionStatus }) {
  return (
    <header className="chat-header">
      <div className="chat-header-inner">
        <div className="brand">
          <span className="brand-logo" aria-hidden="true">
            <Zap size={26} strokeWidth={2.4} />
          </span>
          <div>
            <h1 className="brand-name">{BRAND.name}</h1>
            <p className="brand-tagline">{BRAND.tagline}</p>
          </div>
        </div>
        <span className={`connection-pill is-${status}`} data-status={status}>
          <span className="connection-dot" aria-hidden="true" />
          {CHAT.status[status]}
        </span>
      </div>
    </header>
  );
}
