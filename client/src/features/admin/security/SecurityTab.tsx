import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LoaderCircle, LogOut, ShieldCheck, ShieldOff } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { TotpCodeSchema, type RecoveryCodes, type SessionInfo } from '@shared/contracts/auth';
import { can } from '@shared/contracts/roles';
import { check } from '@shared/contracts/rules';
import { RecoveryCodesPanel, sanitizeCode, securityApi, serverMessage, TOTP_SETUP, TotpSetup, useAuth } from '../../auth';
import { SECURITY } from './strings';
import './security.css';

const TOTP_KEY = ['security', 'totp'] as const;
const POLICY_KEY = ['security', 'policy'] as const;
const SESSIONS_KEY = ['security', 'sessions'] as const;

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';
}

/** Asks for a code from the app before a change that needs one (turning off, new recovery codes). */
function CodePrompt({ title, busy, error, onSubmit, onCancel }: { title: string; busy: boolean; error?: string; onSubmit(code: string): void; onCancel(): void }) {
  const ids = useId();
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = check(TotpCodeSchema, { code });
    if (!result.ok) return setProblem(result.problem.message);
    setProblem('');
    onSubmit(code);
  };
  const shown = problem || error;
  return (
    <form className="security-prompt" onSubmit={submit} noValidate>
      <label htmlFor={`${ids}-code`}>{SECURITY.proveLabel}</label>
      <div className="security-prompt-row">
        <input id={`${ids}-code`} className="security-code" inputMode="numeric" autoComplete="one-time-code" autoFocus placeholder="000000" value={code} onChange={(e) => setCode(sanitizeCode(e.target.value))} disabled={busy} />
        <button type="submit" className="security-button is-primary" disabled={busy || code.length !== 6}>
          {busy && <LoaderCircle className="login-spin" size={16} aria-hidden="true" />}
          {title}
        </button>
        <button type="button" className="security-button" onClick={onCancel} disabled={busy}>
          {SECURITY.cancel}
        </button>
      </div>
      {shown && (
        <p className="security-error" role="alert">
          {shown}
        </p>
      )}
    </form>
  );
}

function SecondFactorCard() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: TOTP_KEY, queryFn: ({ signal }) => securityApi.totpStatus(signal) });
  const [mode, setMode] = useState<'idle' | 'setup' | 'off' | 'codes'>('idle');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [notice, setNotice] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['security'] });
  const disable = useMutation({ mutationFn: (code: string) => securityApi.disable({ code }), onSuccess: () => (setMode('idle'), setNotice(SECURITY.turnedOff), refresh()) });
  const renew = useMutation({ mutationFn: (code: string) => securityApi.newRecoveryCodes(code), onSuccess: (result: RecoveryCodes) => (setMode('idle'), setCodes(result.recoveryCodes)) });
  const data = status.data;

  return (
    <section className="security-card" aria-labelledby="security-totp-title">
      <div className="security-card-head">
        <h3 id="security-totp-title">{SECURITY.totpTitle}</h3>
        {data && (
          <span className={`security-badge${data.enabled ? ' is-on' : ''}`}>
            {data.enabled ? <ShieldCheck size={14} aria-hidden="true" /> : <ShieldOff size={14} aria-hidden="true" />}
            {data.enabled ? SECURITY.badgeOn : SECURITY.badgeOff}
          </span>
        )}
      </div>
      {status.isError && <p className="security-error">{SECURITY.loadFailed}</p>}
      {data && !codes && mode !== 'setup' && (
        <>
          <p className="security-text">{data.enabled ? SECURITY.totpOnSince(when(data.confirmedAt)) : SECURITY.totpOff}</p>
          {data.enabled && <p className="security-text">{SECURITY.recoveryLeft(data.recoveryCodesLeft)}</p>}
          {data.enabled && data.required && <p className="security-text">{SECURITY.requiredNote}</p>}
          {notice && (
            <p className="security-ok" role="status">
              {notice}
            </p>
          )}
          {mode === 'idle' && (
            <div className="security-actions">
              {!data.enabled && (
                <button type="button" className="security-button is-primary" onClick={() => (setNotice(''), setMode('setup'))}>
                  {SECURITY.setUp}
                </button>
              )}
              {data.enabled && (
                <button type="button" className="security-button" onClick={() => setMode('codes')}>
                  {SECURITY.newRecoveryCodes}
                </button>
              )}
              {data.enabled && !data.required && (
                <button type="button" className="security-button is-danger" onClick={() => setMode('off')}>
                  {SECURITY.turnOff}
                </button>
              )}
            </div>
          )}
          {mode === 'off' && (
            <CodePrompt title={SECURITY.proveTurnOff} busy={disable.isPending} error={disable.error ? serverMessage(disable.error) : undefined} onSubmit={(code) => disable.mutate(code)} onCancel={() => (disable.reset(), setMode('idle'))} />
          )}
          {mode === 'codes' && (
            <CodePrompt title={SECURITY.proveNewCodes} busy={renew.isPending} error={renew.error ? serverMessage(renew.error) : undefined} onSubmit={(code) => renew.mutate(code)} onCancel={() => (renew.reset(), setMode('idle'))} />
          )}
        </>
      )}
      {mode === 'setup' && !codes && (
        <div className="security-setup">
          <TotpSetup onConfirmed={(result) => (setCodes(result.recoveryCodes), setMode('idle'), refresh())} />
          <button type="button" className="security-button" onClick={() => setMode('idle')}>
            {SECURITY.cancel}
          </button>
        </div>
      )}
      {codes && (
        <div className="security-setup">
          <p className="security-ok" role="status">
            {TOTP_SETUP.on}
          </p>
          <RecoveryCodesPanel codes={codes} doneLabel={TOTP_SETUP.done} onDone={() => (setCodes(null), refresh())} />
        </div>
      )}
    </section>
  );
}

function PolicyCard() {
  const queryClient = useQueryClient();
  const policy = useQuery({ queryKey: POLICY_KEY, queryFn: ({ signal }) => securityApi.policy(signal) });
  const save = useMutation({
    mutationFn: (requireSecondFactor: boolean) => securityApi.setPolicy({ requireSecondFactor }),
    onSuccess: (saved) => {
      queryClient.setQueryData(POLICY_KEY, saved);
      void queryClient.invalidateQueries({ queryKey: ['security'] });
    },
  });
  return (
    <section className="security-card" aria-labelledby="security-policy-title">
      <h3 id="security-policy-title">{SECURITY.policyTitle}</h3>
      <label className="security-switch">
        <input type="checkbox" role="switch" checked={policy.data?.requireSecondFactor ?? false} disabled={!policy.data || save.isPending} onChange={(e) => save.mutate(e.target.checked)} />
        <span>{SECURITY.policyLabel}</span>
      </label>
      <p className="security-text">{SECURITY.policyHint}</p>
      {save.error && (
        <p className="security-error" role="alert">
          {serverMessage(save.error) ?? SECURITY.loadFailed}
        </p>
      )}
    </section>
  );
}

function SessionsCard() {
  const auth = useAuth();
  const owner = can(auth.user?.role, 'teamSecurity');
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<'mine' | 'all'>('mine');
  const sessions = useQuery({ queryKey: [...SESSIONS_KEY, scope], queryFn: ({ signal }) => securityApi.sessions(scope, signal) });
  const end = useMutation({
    mutationFn: (session: SessionInfo) => securityApi.endSession(session.id),
    onSuccess: (result) => {
      if (result.current) void auth.logout();
      else void queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
  });
  return (
    <section className="security-card" aria-labelledby="security-sessions-title">
      <div className="security-card-head">
        <h3 id="security-sessions-title">{SECURITY.sessionsTitle}</h3>
        {owner && (
          <label className="security-switch">
            <input type="checkbox" role="switch" checked={scope === 'all'} onChange={(e) => setScope(e.target.checked ? 'all' : 'mine')} />
            <span>{SECURITY.everyone}</span>
          </label>
        )}
      </div>
      <p className="security-text">{SECURITY.sessionsIntro}</p>
      {sessions.isError && <p className="security-error">{serverMessage(sessions.error) ?? SECURITY.loadFailed}</p>}
      {sessions.data?.length === 0 && <p className="security-text">{SECURITY.noSessions}</p>}
      {sessions.data && sessions.data.length > 0 && (
        <table className="security-table">
          <thead>
            <tr>
              <th scope="col">{SECURITY.browser}</th>
              {scope === 'all' && <th scope="col">{SECURITY.member}</th>}
              <th scope="col">{SECURITY.ip}</th>
              <th scope="col">{SECURITY.signedIn}</th>
              <th scope="col">{SECURITY.lastActive}</th>
              <th scope="col">
                <span className="sr-only">{SECURITY.end}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((session) => (
              <tr key={session.id}>
                <td data-label={SECURITY.browser}>
                  <strong>{session.browser}</strong>
                  {session.current && <span className="security-badge is-on">{SECURITY.thisBrowser}</span>}
                </td>
                {scope === 'all' && (
                  <td data-label={SECURITY.member}>
                    {session.user.name || session.user.email}
                    <small>{session.user.email}</small>
                  </td>
                )}
                <td data-label={SECURITY.ip}>{session.ip ?? SECURITY.unknownIp}</td>
                <td data-label={SECURITY.signedIn}>{when(session.signedInAt)}</td>
                <td data-label={SECURITY.lastActive}>{when(session.lastActiveAt)}</td>
                <td className="security-cell-action">
                  <button type="button" className="security-button is-danger" aria-label={SECURITY.endLabel(session.browser)} disabled={end.isPending} onClick={() => end.mutate(session)}>
                    <LogOut size={14} aria-hidden="true" />
                    {end.isPending && end.variables?.id === session.id ? SECURITY.ending : SECURITY.end}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The console's Security tab (every member): your second factor and your sessions; the team policy for owners. */
export function SecurityTab() {
  const { user } = useAuth();
  return (
    <div className="security">
      <h2 className="security-heading">{SECURITY.title}</h2>
      <SecondFactorCard />
      {can(user?.role, 'teamSecurity') && <PolicyCard />}
      <SessionsCard />
    </div>
  );
}

export default SecurityTab;
