import { useId, useState, type FormEvent } from 'react';
import { CHAT_LIMIT_FIELDS, CHAT_LIMIT_KEYS, ChatLimitsUpdateSchema, type ChatLimits } from '@shared/contracts/limits';
import { check } from '@shared/contracts/rules';
import { CONFIG } from '../strings';

/**
 * 'Chat Rate Limits': messages per minute and per hour per IP, visitor, socket and API key,
 * concurrent replies per visitor and open sockets per IP. Saved on their own (PUT
 * /api/config/global `chatLimits`), checked first with the server's contract; every server uses
 * the new figures from the next message.
 */
export function ChatLimitsForm(props: { limits: ChatLimits; onSave(limits: ChatLimits): Promise<unknown> }) {
  const ids = useId();
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(CHAT_LIMIT_KEYS.map((k) => [k, String(props.limits[k])])));
  const [status, setStatus] = useState<{ kind: 'saving' | 'saved' } | { kind: 'error'; message: string } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const values = Object.fromEntries(CHAT_LIMIT_KEYS.map((k) => [k, draft[k].trim() === '' ? Number.NaN : Number(draft[k])]));
    const checked = check(ChatLimitsUpdateSchema, values);
    if (!checked.ok) {
      setStatus({ kind: 'error', message: checked.problem.message });
      return;
    }
    setStatus({ kind: 'saving' });
    try {
      await props.onSave(values as ChatLimits);
      setStatus({ kind: 'saved' });
    } catch (e) {
      setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <form className="config-settings" onSubmit={submit} noValidate>
      <section className="config-card" aria-labelledby={`${ids}-title`}>
        <h3 id={`${ids}-title`}>{CONFIG.limits.title}</h3>
        <p className="config-hint">{CONFIG.limits.hint}</p>
        <div className="config-row is-three">
          {CHAT_LIMIT_KEYS.map((key) => (
            <div className="config-field" key={key}>
              <label htmlFor={`${ids}-${key}`}>{CHAT_LIMIT_FIELDS[key].label}</label>
              <input
                id={`${ids}-${key}`}
                type="number"
                min={1}
                max={CHAT_LIMIT_FIELDS[key].max}
                step={1}
                value={draft[key]}
                onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))}
              />
            </div>
          ))}
        </div>
        <div className="config-actions">
          <button type="submit" className="config-button is-primary" disabled={status?.kind === 'saving'}>
            {CONFIG.limits.save}
          </button>
          {status?.kind === 'saved' && <span role="status">{CONFIG.limits.saved}</span>}
          {status?.kind === 'error' && <span role="alert" className="config-error">{status.message}</span>}
        </div>
      </section>
    </form>
  );
}
