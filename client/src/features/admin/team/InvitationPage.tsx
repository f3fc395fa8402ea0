import { useMutation, useQuery } from '@tanstack/react-query';
import { KeyRound, Mail, UserPlus, UserRound } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { ROLE_LABELS } from '@shared/contracts/roles';
import { check } from '@shared/contracts/rules';
import { InvitationAcceptSchema } from '@shared/contracts/team';
import { Banner } from '../../auth';
import { teamApi } from './api/team-api';
import { INVITATION, ROLE_HINTS } from './strings';
import './team.css';

/**
 * "/admin/invitation/:token", the page the invitation mail links to (no session needed): shows
 * the email and role, and asks for a name and either a password or code sign-in. Once accepted,
 * the link is used up and the page offers the sign-in screen. A used, withdrawn, expired or
 * unknown link shows the server's reason.
 */
export function InvitationPage() {
  const ids = useId();
  const { token = '' } = useParams();
  const preview = useQuery({ queryKey: ['invitation', token], queryFn: ({ signal }) => teamApi.preview(token, signal), retry: false });
  const [name, setName] = useState('');
  const [method, setMethod] = useState<'password' | 'code'>('password');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [problem, setProblem] = useState('');
  const accept = useMutation({ mutationFn: (input: { name: string; password?: string }) => teamApi.accept(token, input) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input = method === 'password' ? { name, password } : { name };
    const result = check(InvitationAcceptSchema, input);
    if (!result.ok) return setProblem(result.problem.message);
    if (method === 'password' && password !== repeat) return setProblem(INVITATION.mismatch);
    setProblem('');
    accept.mutate(input);
  };
  const error = problem || (accept.error instanceof Error ? accept.error.message : '');

  let body;
  if (preview.isPending) {
    body = (
      <p className="login-subtitle" role="status">
        {INVITATION.loading}
      </p>
    );
  } else if (preview.isError) {
    body = (
      <>
        <Banner kind="error">{preview.error.message}</Banner>
        <a className="login-primary invitation-link" href="/admin">
          {INVITATION.signIn}
        </a>
      </>
    );
  } else if (accept.isSuccess) {
    body = (
      <>
        <Banner kind="success">{INVITATION.done}</Banner>
        <a className="login-primary invitation-link" href="/admin">
          {INVITATION.signIn}
        </a>
      </>
    );
  } else {
    const invite = preview.data;
    body = (
      <form className="login-form" onSubmit={submit} noValidate>
        <p className="login-who">
          <strong>{INVITATION.invitedAs(ROLE_LABELS[invite.role])}</strong>
          {invite.invitedBy && <> {INVITATION.invitedBy(invite.invitedBy)}</>}
          <small className="invitation-role-hint">{ROLE_HINTS[invite.role]}</small>
        </p>
        <label className="login-label" htmlFor={`${ids}-email`}>
          {INVITATION.email}
        </label>
        <div className="login-field">
          <Mail size={18} aria-hidden="true" />
          <input id={`${ids}-email`} type="email" autoComplete="username" value={invite.email} readOnly />
        </div>
        <label className="login-label" htmlFor={`${ids}-name`}>
          {INVITATION.name}
        </label>
        <div className="login-field">
          <UserRound size={18} aria-hidden="true" />
          <input id={`${ids}-name`} autoComplete="name" autoFocus value={name} maxLength={100} onChange={(e) => (setName(e.target.value), setProblem(''))} />
        </div>
        <fieldset className="invitation-methods">
          <legend className="login-label">{INVITATION.method}</legend>
          <label>
            <input type="radio" name={`${ids}-method`} checked={method === 'password'} onChange={() => setMethod('password')} />
            {INVITATION.withPassword}
          </label>
          <label>
            <input type="radio" name={`${ids}-method`} checked={method === 'code'} onChange={() => (setMethod('code'), setProblem(''))} />
            {INVITATION.withCode}
          </label>
        </fieldset>
        {method === 'password' && (
          <>
            <label className="login-label" htmlFor={`${ids}-password`}>
              {INVITATION.password}
            </label>
            <div className="login-field">
              <KeyRound size={18} aria-hidden="true" />
              <input id={`${ids}-password`} type="password" autoComplete="new-password" value={password} onChange={(e) => (setPassword(e.target.value), setProblem(''))} aria-describedby={`${ids}-password-hint`} />
            </div>
            <p id={`${ids}-password-hint`} className="login-hint">
              {INVITATION.passwordHint}
            </p>
            <label className="login-label" htmlFor={`${ids}-repeat`}>
              {INVITATION.repeat}
            </label>
            <div className="login-field">
              <KeyRound size={18} aria-hidden="true" />
              <input id={`${ids}-repeat`} type="password" autoComplete="new-password" value={repeat} onChange={(e) => (setRepeat(e.target.value), setProblem(''))} />
            </div>
          </>
        )}
        {error && <Banner kind="error">{error}</Banner>}
        <button type="submit" className="login-primary" disabled={accept.isPending}>
          {accept.isPending ? INVITATION.accepting : INVITATION.accept}
        </button>
        <p className="login-hint">{INVITATION.expires(new Date(invite.expiresAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }))}</p>
      </form>
    );
  }

  return (
    <main className="login-page">
      <section className="login-card" aria-labelledby={`${ids}-title`}>
        <div className="login-badge" aria-hidden="true">
          <UserPlus size={28} />
        </div>
        <h1 id={`${ids}-title`} className="login-title">
          {preview.isError ? INVITATION.unusable : INVITATION.title}
        </h1>
        {body}
      </section>
    </main>
  );
}

export default InvitationPage;
