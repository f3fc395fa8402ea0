import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Check, Copy, KeyRound, Plus } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { API_KEY_SCOPES, ApiKeyCreateSchema, type ApiKeyCreate, type ApiKeyInfo, type ApiKeyScope, type IssuedApiKey } from '@shared/contracts/api-keys';
import { check } from '@shared/contracts/rules';
import { Modal } from '../../../components/Modal';
import { ApiError } from '../../../lib/api';
import { copyText } from '../../../lib/clipboard';
import { apiKeysApi } from './api/api-keys-api';
import { API_KEYS } from './strings';
import '../security/security.css';
import './api-keys.css';

const KEYS_QUERY = ['api-keys'] as const;
const REQUIRE_QUERY = ['api-keys', 'require'] as const;
const DAY_MS = 86_400_000;
type Expiry = keyof typeof API_KEYS.expiryChoices;

function day(iso: string | null, fallback: string): string {
  return iso ? new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' }) : fallback;
}

function moment(iso: string | null, fallback: string): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : fallback;
}

/** The issue form: name, scopes, expiry, own rate limit. Checked with the server's contract before it is sent. */
function NewKeyForm({ busy, serverError, onSubmit, onCancel }: { busy: boolean; serverError?: string; onSubmit(input: ApiKeyCreate): void; onCancel(): void }) {
  const ids = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['chat']);
  const [expiry, setExpiry] = useState<Expiry>('never');
  const [date, setDate] = useState('');
  const [rate, setRate] = useState('');
  const [problem, setProblem] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expiresAt = expiry === 'never' ? null : expiry === 'date' ? (date ? new Date(`${date}T23:59:59`).toISOString() : 'none') : new Date(Date.now() + Number(expiry) * DAY_MS).toISOString();
    const input = { name, scopes, expiresAt, rateLimitPerMinute: rate.trim() === '' ? null : Number(rate) };
    const result = check(ApiKeyCreateSchema, input);
    if (!result.ok) return setProblem(result.problem.message);
    setProblem('');
    onSubmit(input);
  };
  const toggle = (scope: ApiKeyScope, on: boolean) => setScopes((current) => (on ? API_KEY_SCOPES.filter((s) => s === scope || current.includes(s)) : current.filter((s) => s !== scope)));
  const shown = problem || serverError;

  return (
    <form className="keys-form" onSubmit={submit} noValidate>
      <label className="keys-field">
        <span>{API_KEYS.name}</span>
        <input value={name} onChange={(e) => (setName(e.target.value), setProblem(''))} placeholder={API_KEYS.namePlaceholder} maxLength={100} autoFocus />
      </label>
      <fieldset className="keys-scopes">
        <legend>{API_KEYS.scopes}</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} className="keys-scope">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
            <span>
              <code>{API_KEYS.scopeNames[scope]}</code>
              <small>{API_KEYS.scopeHints[scope]}</small>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="keys-row">
        <label className="keys-field">
          <span>{API_KEYS.expiry}</span>
          <select value={expiry} onChange={(e) => setExpiry(e.target.value as Expiry)}>
            {(Object.keys(API_KEYS.expiryChoices) as Expiry[]).map((choice) => (
              <option key={choice} value={choice}>
                {API_KEYS.expiryChoices[choice]}
              </option>
            ))}
          </select>
        </label>
        {expiry === 'date' && (
          <label className="keys-field">
            <span>{API_KEYS.expiryDate}</span>
            <input type="date" value={date} onChange={(e) => setDate(e.target.value)} />
          </label>
        )}
      </div>
      <label className="keys-field">
        <span>{API_KEYS.rateLimitLabel}</span>
        <input type="number" min={1} step={1} inputMode="numeric" value={rate} onChange={(e) => setRate(e.target.value)} aria-describedby={`${ids}-rate`} />
        <small id={`${ids}-rate`}>{API_KEYS.rateLimitHint}</small>
      </label>
      {shown && (
        <p className="security-error" role="alert">
          {shown}
        </p>
      )}
      <div className="keys-actions">
        <button type="button" className="security-button" onClick={onCancel} disabled={busy}>
          {API_KEYS.cancel}
        </button>
        <button type="submit" className="security-button is-primary" disabled={busy}>
          {busy ? API_KEYS.creating : API_KEYS.create}
        </button>
      </div>
    </form>
  );
}

/** The new key, shown this once, with a copy button. */
function IssuedKey({ issued, onDone }: { issued: IssuedApiKey; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="keys-form">
      <p className="keys-warning" role="status">
        {API_KEYS.createdWarning}
      </p>
      <div className="keys-secret">
        <code data-testid="issued-api-key">{issued.key}</code>
        <button type="button" className="security-button" onClick={() => void copyText(issued.key).then(setCopied)}>
          {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
          {copied ? API_KEYS.copied : API_KEYS.copy}
        </button>
      </div>
      <div className="keys-actions">
        <button type="button" className="security-button is-primary" onClick={onDone}>
          {API_KEYS.done}
        </button>
      </div>
    </div>
  );
}

/**
 * The console's API keys tab (owners and admins): the keys with their prefix, scopes, last use,
 * expiry and status; issuing one (shown once); revoking; and whether /interact requires a key.
 */
export function ApiKeysTab() {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [issued, setIssued] = useState<IssuedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyInfo | null>(null);
  const keys = useQuery({ queryKey: KEYS_QUERY, queryFn: ({ signal }) => apiKeysApi.list(signal) });
  const required = useQuery({ queryKey: REQUIRE_QUERY, queryFn: ({ signal }) => apiKeysApi.requireApiKey(signal) });
  const reload = () => void queryClient.invalidateQueries({ queryKey: KEYS_QUERY });
  const issue = useMutation({ mutationFn: apiKeysApi.issue, onSuccess: (result) => (setIssued(result), reload()) });
  const revoke = useMutation({ mutationFn: (key: ApiKeyInfo) => apiKeysApi.revoke(key.id), onSuccess: () => (setRevoking(null), reload()) });
  const setRequired = useMutation({ mutationFn: apiKeysApi.setRequireApiKey, onSuccess: (value) => queryClient.setQueryData(REQUIRE_QUERY, value) });
  const closeCreate = () => {
    setCreating(false);
    setIssued(null);
    issue.reset();
  };

  return (
    <div className="security">
      <div className="security-card-head">
        <h2 className="security-heading">{API_KEYS.title}</h2>
        <button type="button" className="security-button is-primary" onClick={() => setCreating(true)}>
          <Plus size={16} aria-hidden="true" />
          {API_KEYS.newKey}
        </button>
      </div>
      <p className="security-text">{API_KEYS.intro}</p>
      <section className="security-card">
        <label className="security-switch">
          <input type="checkbox" role="switch" checked={required.data ?? false} disabled={required.data === undefined || setRequired.isPending} onChange={(e) => setRequired.mutate(e.target.checked)} />
          <span>{API_KEYS.requireTitle}</span>
        </label>
        <p className="security-text">{API_KEYS.requireHint}</p>
        {setRequired.error instanceof ApiError && <p className="security-error">{setRequired.error.message}</p>}
      </section>
      <section className="security-card">
        {keys.isError && <p className="security-error">{API_KEYS.loadFailed}</p>}
        {keys.data?.length === 0 && <p className="security-text">{API_KEYS.empty}</p>}
        {keys.data && keys.data.length > 0 && (
          <table className="security-table keys-table">
            <thead>
              <tr>
                <th scope="col">{API_KEYS.name}</th>
                <th scope="col">{API_KEYS.scopes}</th>
                <th scope="col">{API_KEYS.lastUsed}</th>
                <th scope="col">{API_KEYS.expires}</th>
                <th scope="col">{API_KEYS.rateLimit}</th>
                <th scope="col">{API_KEYS.status}</th>
                <th scope="col">
                  <span className="sr-only">{API_KEYS.revoke}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id} className={key.status === 'active' ? undefined : 'is-inactive'}>
                  <td data-label={API_KEYS.name}>
                    <strong>{key.name}</strong>
                    <small>
                      <KeyRound size={12} aria-hidden="true" /> <code>{key.prefix}…</code>
                    </small>
                  </td>
                  <td data-label={API_KEYS.scopes}>
                    <span className="keys-chips">
                      {key.scopes.map((scope) => (
                        <code key={scope} className="keys-chip">
                          {scope}
                        </code>
                      ))}
                    </span>
                  </td>
                  <td data-label={API_KEYS.lastUsed}>{moment(key.lastUsedAt, API_KEYS.notUsed)}</td>
                  <td data-label={API_KEYS.expires}>{day(key.expiresAt, API_KEYS.never)}</td>
                  <td data-label={API_KEYS.rateLimit}>{key.rateLimitPerMinute ? API_KEYS.perMinute(key.rateLimitPerMinute) : API_KEYS.noLimit}</td>
                  <td data-label={API_KEYS.status}>
                    <span className={`security-badge ${key.status === 'active' ? 'is-on' : key.status === 'expired' ? 'is-warn' : 'is-off'}`}>{API_KEYS.statuses[key.status]}</span>
                  </td>
                  <td className="security-cell-action">
                    {key.status !== 'revoked' && (
                      <button type="button" className="security-button is-danger" aria-label={API_KEYS.revokeLabel(key.name)} onClick={() => setRevoking(key)}>
                        {API_KEYS.revoke}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <Modal open={creating} title={issued ? API_KEYS.createdTitle : API_KEYS.newKey} onClose={closeCreate} closeLabel={API_KEYS.close} className="keys-dialog">
        {issued ? (
          <IssuedKey issued={issued} onDone={closeCreate} />
        ) : (
          <NewKeyForm busy={issue.isPending} serverError={issue.error instanceof Error ? issue.error.message : undefined} onSubmit={(input) => issue.mutate(input)} onCancel={closeCreate} />
        )}
      </Modal>
      <Modal open={revoking !== null} title={revoking ? API_KEYS.revokeTitle(revoking.name) : ''} description={API_KEYS.revokeText} onClose={() => setRevoking(null)} closeLabel={API_KEYS.close} className="keys-dialog">
        {revoke.error instanceof Error && <p className="security-error">{revoke.error.message}</p>}
        <div className="keys-actions">
          <button type="button" className="security-button" onClick={() => setRevoking(null)}>
            {API_KEYS.cancel}
          </button>
          <button type="button" className="security-button is-primary keys-revoke" disabled={revoke.isPending} onClick={() => revoking && revoke.mutate(revoking)}>
            {revoke.isPending ? API_KEYS.revoking : API_KEYS.revoke}
          </button>
        </div>
      </Modal>
    </div>
  );
}

export default ApiKeysTab;
