import { useId, useState, type FormEvent } from 'react';
import { UserRound } from 'lucide-react';
import type { HandoffInfo } from '@shared/contracts/handoff';
import { useStrings } from '../i18n';

/** What the page knows of a request for a person. */
export interface HandoffView {
  info: HandoffInfo;
  /** The server's words for the visitor (in their language; outside hours it names the next opening). */
  message: string;
  withinHours: boolean;
  emailSaved: boolean;
}

/**
 * Over the message box: "Talk to a person" when the assistant could not help (or the visitor
 * wants one), then the queue place, the expected wait, who answers and whether they are typing,
 * an email for the answer, and outside business hours a message to leave.
 */
export function HandoffPanel({
  view,
  offer,
  asking,
  failed,
  typing,
  onAsk,
  onLeave,
}: {
  view: HandoffView | null;
  offer: boolean;
  asking: boolean;
  failed: boolean;
  typing: string | null;
  onAsk(): void;
  onLeave(email: string, message?: string): void;
}) {
  const t = useStrings().handoff;
  const ids = useId();
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState('');
  const state = view?.info.state;
  if (!view || state === 'bot') {
    if (!offer && !failed) return null;
    return (
      <div className="handoff-panel" role="region" aria-label={t.ask}>
        <p className="handoff-text">{failed ? t.failed : t.offer}</p>
        <button type="button" className="handoff-ask" onClick={onAsk} disabled={asking}>
          <UserRound aria-hidden="true" size={16} />
          {asking ? t.asking : t.ask}
        </button>
      </div>
    );
  }
  if (state === 'resolved') {
    return (
      <div className="handoff-panel" role="status">
        <p className="handoff-text">{t.resolved}</p>
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (email.trim() === '') return;
    onLeave(email.trim(), view.withinHours ? undefined : message.trim() || undefined);
  };
  const { queuePosition, expectedWaitSeconds, assignee } = view.info;
  return (
    <div className="handoff-panel" role="region" aria-label={t.ask}>
      <div className="handoff-status" role="status">
        {state === 'open' && assignee ? (
          <p className="handoff-text">{t.joined(assignee.name)}</p>
        ) : (
          <>
            {view.message && <p className="handoff-text">{view.message}</p>}
            {view.withinHours && queuePosition != null && (
              <p className="handoff-text">
                {t.queue(queuePosition)}
                {expectedWaitSeconds != null && ` ${t.wait(Math.max(1, Math.round(expectedWaitSeconds / 60)))}`}
              </p>
            )}
          </>
        )}
        {typing && (
          <p className="handoff-typing" data-testid="human-typing">
            {t.typing(typing)}
          </p>
        )}
      </div>
      {view.emailSaved ? (
        <p className="handoff-text">{t.emailSaved}</p>
      ) : (
        state === 'waiting' && (
          <form className="handoff-form" onSubmit={submit}>
            {!view.withinHours && (
              <>
                <label htmlFor={`${ids}-message`}>{t.messageLabel}</label>
                <textarea id={`${ids}-message`} rows={2} value={message} onChange={(e) => setMessage(e.target.value)} />
              </>
            )}
            <label htmlFor={`${ids}-email`}>{t.emailLabel}</label>
            <div className="handoff-row">
              <input id={`${ids}-email`} type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
              <button type="submit" className="handoff-ask">
                {view.withinHours ? t.send : t.leaveMessage}
              </button>
            </div>
          </form>
        )
      )}
    </div>
  );
}
