import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MailPlus, ShieldCheck, ShieldOff, UserRound } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { ROLES, ROLE_LABELS, can, type Role } from '@shared/contracts/roles';
import { check } from '@shared/contracts/rules';
import { InvitationCreateSchema, type Member } from '@shared/contracts/team';
import { Modal } from '../../../components/Modal';
import { connectAdminFeed, useLiveReload } from '../../../lib/admin-feed';
import { useAuth } from '../../auth';
import { teamApi } from './api/team-api';
import { ROLE_HINTS, TEAM } from './strings';
import '../security/security.css';
import '../api-keys/api-keys.css';
import './team.css';

const TEAM_QUERY = ['team'] as const;

type Confirm = { kind: 'remove' | 'disable' | 'reset'; member: Member };

function moment(iso: string | null, fallback: string): string {
  return iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : fallback;
}

const nameOf = (m: Pick<Member, 'name' | 'email'>) => m.name || m.email;

/** The invite dialog: email and role, checked with the server's contract before it is sent. */
function InviteForm({ roles, busy, serverError, onSubmit, onCancel }: { roles: readonly Role[]; busy: boolean; serverError?: string; onSubmit(email: string, role: Role): void; onCancel(): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [problem, setProblem] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const result = check(InvitationCreateSchema, { email, role });
    if (!result.ok) return setProblem(result.problem.message);
    setProblem('');
    onSubmit(result.value.email, role);
  };
  const shown = problem || serverError;
  return (
    <form className="keys-form" onSubmit={submit} noValidate>
      <label className="keys-field">
        <span>{TEAM.email}</span>
        <input type="email" value={email} onChange={(e) => (setEmail(e.target.value), setProblem(''))} placeholder={TEAM.emailPlaceholder} autoComplete="off" autoFocus />
      </label>
      <fieldset className="keys-scopes team-roles">
        <legend>{TEAM.role}</legend>
        {roles.map((r) => (
          <label key={r} className="keys-scope">
            <input type="radio" name="invite-role" value={r} checked={role === r} onChange={() => setRole(r)} />
            <span>
              <strong>{ROLE_LABELS[r]}</strong>
              <small>{ROLE_HINTS[r]}</small>
            </span>
          </label>
        ))}
      </fieldset>
      {shown && (
        <p className="security-error" role="alert">
          {shown}
        </p>
      )}
      <div className="keys-actions">
        <button type="button" className="security-button" onClick={onCancel} disabled={busy}>
          {TEAM.cancel}
        </button>
        <button type="submit" className="security-button is-primary" disabled={busy}>
          {busy ? TEAM.sending : TEAM.send}
        </button>
      </div>
    </form>
  );
}

/**
 * The Team tab (owners and admins): every member with role, status, second factor and last
 * sign-in; inviting by email; changing a role; disabling, enabling and removing; resetting a
 * member's second factor (owners). Admins cannot change owners, so owners' controls are not shown
 * to them. The list reloads when the team changes anywhere (team:changed).
 */
export function TeamTab() {
  const queryClient = useQueryClient();
  const { user } = useAuth();
  const isOwner = user?.role === 'owner';
  const [inviting, setInviting] = useState(false);
  const [notice, setNotice] = useState('');
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const team = useQuery({ queryKey: TEAM_QUERY, queryFn: ({ signal }) => teamApi.team(signal) });
  useLiveReload(connectAdminFeed, ['team:changed'], TEAM_QUERY);
  const reload = () => void queryClient.invalidateQueries({ queryKey: TEAM_QUERY });

  const invite = useMutation({
    mutationFn: ({ email, role }: { email: string; role: Role }) => teamApi.invite({ email, role }),
    onSuccess: (sent) => {
      setInviting(false);
      setNotice(TEAM.sent(sent.email));
      reload();
    },
  });
  const change = useMutation({
    mutationFn: ({ id, role, disabled }: { id: string; role?: Role; disabled?: boolean }) => teamApi.update(id, { role, disabled }),
    onSuccess: () => (setNotice(''), setConfirm(null), reload()),
    onError: () => reload(),
  });
  const remove = useMutation({ mutationFn: (id: string) => teamApi.remove(id), onSuccess: () => (setConfirm(null), reload()) });
  const reset = useMutation({ mutationFn: (id: string) => teamApi.resetSecondFactor(id), onSuccess: () => (setConfirm(null), reload()) });
  const withdraw = useMutation({ mutationFn: (id: string) => teamApi.withdraw(id), onSuccess: reload });

  const roleChoices: readonly Role[] = isOwner ? ROLES : ROLES.filter((r) => r !== 'owner');
  const manageable = (m: Member) => isOwner || m.role !== 'owner';
  const rowError = change.error ?? withdraw.error;
  const confirmError = confirm?.kind === 'remove' ? remove.error : confirm?.kind === 'reset' ? reset.error : change.error;
  const confirmBusy = remove.isPending || reset.isPending || change.isPending;
  const runConfirm = () => {
    if (!confirm) return;
    if (confirm.kind === 'remove') remove.mutate(confirm.member.id);
    else if (confirm.kind === 'reset') reset.mutate(confirm.member.id);
    else change.mutate({ id: confirm.member.id, disabled: true });
  };
  const openConfirm = (next: Confirm) => {
    remove.reset();
    reset.reset();
    change.reset();
    setConfirm(next);
  };

  return (
    <div className="security">
      <div className="security-card-head">
        <h2 className="security-heading">{TEAM.title}</h2>
        <button type="button" className="security-button is-primary" onClick={() => (invite.reset(), setInviting(true))}>
          <MailPlus size={16} aria-hidden="true" />
          {TEAM.invite}
        </button>
      </div>
      <p className="security-text">{TEAM.intro}</p>
      {notice && (
        <p className="security-ok" role="status">
          {notice}
        </p>
      )}
      {rowError instanceof Error && !confirm && (
        <p className="security-error" role="alert">
          {rowError.message}
        </p>
      )}
      <section className="security-card">
        {team.isError && <p className="security-error">{TEAM.loadFailed}</p>}
        {team.data && (
          <table className="security-table team-table">
            <thead>
              <tr>
                <th scope="col">{TEAM.member}</th>
                <th scope="col">{TEAM.role}</th>
                <th scope="col">{TEAM.status}</th>
                <th scope="col">{TEAM.twoFactor}</th>
                <th scope="col">{TEAM.lastSignIn}</th>
                <th scope="col">
                  <span className="sr-only">{TEAM.actionsOf('')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {team.data.members.map((m) => {
                const self = m.id === user?.id;
                const canManage = manageable(m);
                return (
                  <tr key={m.id} className={m.status === 'active' ? undefined : 'is-inactive'}>
                    <td data-label={TEAM.member}>
                      <span className="team-member">
                        <UserRound size={16} aria-hidden="true" />
                        <span>
                          <strong>
                            {m.name || m.email}
                            {self && <span className="team-you"> ({TEAM.you})</span>}
                          </strong>
                          <small>{m.email}</small>
                        </span>
                      </span>
                    </td>
                    <td data-label={TEAM.role}>
                      {canManage ? (
                        <select
                          className="team-role"
                          aria-label={TEAM.roleOf(nameOf(m))}
                          value={m.role}
                          disabled={change.isPending}
                          onChange={(e) => change.mutate({ id: m.id, role: e.target.value as Role })}
                        >
                          {(roleChoices.includes(m.role) ? roleChoices : [m.role, ...roleChoices]).map((r) => (
                            <option key={r} value={r}>
                              {ROLE_LABELS[r]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <span>{ROLE_LABELS[m.role]}</span>
                      )}
                    </td>
                    <td data-label={TEAM.status}>
                      <span className={`security-badge ${m.status === 'active' ? 'is-on' : 'is-off'}`}>{TEAM.statuses[m.status]}</span>
                    </td>
                    <td data-label={TEAM.twoFactor}>
                      <span className={`security-badge ${m.twoFactor ? 'is-on' : 'is-off'}`}>
                        {m.twoFactor ? <ShieldCheck size={12} aria-hidden="true" /> : <ShieldOff size={12} aria-hidden="true" />}
                        {m.twoFactor ? TEAM.twoFactorOn : TEAM.twoFactorOff}
                      </span>
                    </td>
                    <td data-label={TEAM.lastSignIn}>{moment(m.lastSignInAt, TEAM.never)}</td>
                    <td className="security-cell-action">
                      {canManage && (
                        <span className="team-actions" role="group" aria-label={TEAM.actionsOf(nameOf(m))}>
                          {m.status === 'active' ? (
                            <button type="button" className="security-button" onClick={() => openConfirm({ kind: 'disable', member: m })}>
                              {TEAM.disable}
                            </button>
                          ) : (
                            <button type="button" className="security-button" disabled={change.isPending} onClick={() => change.mutate({ id: m.id, disabled: false })}>
                              {TEAM.enable}
                            </button>
                          )}
                          {can(user?.role, 'teamSecurity') && m.twoFactor && !self && (
                            <button type="button" className="security-button" onClick={() => openConfirm({ kind: 'reset', member: m })}>
                              {TEAM.resetTwoFactor}
                            </button>
                          )}
                          <button type="button" className="security-button is-danger" onClick={() => openConfirm({ kind: 'remove', member: m })}>
                            {TEAM.remove}
                          </button>
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {!isOwner && <p className="security-text team-note">{TEAM.ownersOnlyNote}</p>}
      </section>
      {team.data && team.data.invitations.length > 0 && (
        <section className="security-card" aria-labelledby="team-invitations">
          <h3 id="team-invitations">{TEAM.invitations}</h3>
          <ul className="team-invitations">
            {team.data.invitations.map((inv) => (
              <li key={inv.id}>
                <span>
                  <strong>{inv.email}</strong> · {ROLE_LABELS[inv.role]}
                  <small>
                    {inv.invitedBy ? `${TEAM.invitedBy(inv.invitedBy.name || inv.invitedBy.email)}, ` : ''}
                    {TEAM.expires(moment(inv.expiresAt, ''))}
                  </small>
                </span>
                {(isOwner || inv.role !== 'owner') && (
                  <button type="button" className="security-button" aria-label={TEAM.withdrawLabel(inv.email)} disabled={withdraw.isPending} onClick={() => withdraw.mutate(inv.id)}>
                    {TEAM.withdraw}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Modal open={inviting} title={TEAM.inviteTitle} onClose={() => setInviting(false)} closeLabel={TEAM.close} className="keys-dialog">
        <InviteForm
          roles={roleChoices}
          busy={invite.isPending}
          serverError={invite.error instanceof Error ? invite.error.message : undefined}
          onSubmit={(email, role) => invite.mutate({ email, role })}
          onCancel={() => setInviting(false)}
        />
      </Modal>
      <Modal
        open={confirm !== null}
        title={confirm ? (confirm.kind === 'remove' ? TEAM.removeTitle : confirm.kind === 'reset' ? TEAM.resetTitle : TEAM.disableTitle)(nameOf(confirm.member)) : ''}
        description={confirm?.kind === 'remove' ? TEAM.removeText : confirm?.kind === 'reset' ? TEAM.resetText : TEAM.disableText}
        onClose={() => setConfirm(null)}
        closeLabel={TEAM.close}
        className="keys-dialog"
      >
        {confirmError instanceof Error && (
          <p className="security-error" role="alert">
            {confirmError.message}
          </p>
        )}
        <div className="keys-actions">
          <button type="button" className="security-button" onClick={() => setConfirm(null)}>
            {TEAM.cancel}
          </button>
          <button type="button" className={`security-button ${confirm?.kind === 'remove' ? 'is-danger' : 'is-primary'}`} disabled={confirmBusy} onClick={runConfirm}>
            {confirmBusy ? TEAM.working : confirm?.kind === 'remove' ? TEAM.confirmRemove : confirm?.kind === 'reset' ? TEAM.confirmReset : TEAM.confirmDisable}
          </button>
        </div>
      </Modal>
    </div>
  );
}

export default TeamTab;
