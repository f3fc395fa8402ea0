import { Zap } from 'lucide-react';
import type { ConnectionStatus } from '../api/chat-connection';
import { useStrings } from '../i18n';

/** The brand banner: logo, name, tagline, and a small connection indicator. */
export function ChatHeader({ status }: { status: ConnectionStatus | null }) {
  const t = useStrings();
  return (
    <header className="chat-header">
      <div className="chat-header-inner">
        <div className="brand">
          <span className="brand-logo" aria-hidden="true">
            <Zap size={26} strokeWidth={2.4} />
          </span>
          <div>
            <h1 className="brand-name">{t.brand.name}</h1>
            <p className="brand-tagline">{t.brand.tagline}</p>
          </div>
        </div>
        <ConnectionPill status={status} />
      </div>
    </header>
  );
}

/**
 * The connection indicator; `status` null (the first connection, still within its first moment)
 * keeps its place empty rather than flash "Connecting".
 */
export function ConnectionPill({ status }: { status: ConnectionStatus | null }) {
  const t = useStrings();
  if (status === null) return <span className="connection-pill is-pending" data-status="pending" aria-hidden="true" />;
  return (
    <span className={`connection-pill is-${status}`} data-status={status}>
      <span className="connection-dot" aria-hidden="true" />
      {t.chat.status[status]}
    </span>
  );
}
