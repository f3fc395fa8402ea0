import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronDown, ChevronRight, Download, FilterX } from 'lucide-react';
import { Fragment, useEffect, useId, useState, type FormEvent } from 'react';
import { AUDIT_RETENTION_DAYS, type AuditChange, type AuditEntry, type AuditValue } from '@shared/contracts/audit';
import { can } from '@shared/contracts/roles';
import { useAuth } from '../../auth';
import { auditApi, NO_FILTERS, type AuditFilterValues } from './api/audit-api';
import { AUDIT } from './strings';
import '../security/security.css';
import './audit.css';

const PAGE_SIZE = 20;
/** Typing in the text filters asks the server once the typing pauses. */
const TYPING_PAUSE_MS = 300;

function moment(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

function shown(value: AuditValue | undefined): string {
  if (value === undefined) return AUDIT.absent;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The field-level before/after of one entry; a secret shows only that it changed. */
function ChangesView({ entry }: { entry: AuditEntry }) {
  if (entry.changes.length === 0) return <p className="security-text">{AUDIT.noChanges}</p>;
  return (
    <table className="audit-diff" aria-label={`${entry.action}: ${AUDIT.before} / ${AUDIT.after}`}>
      <thead>
        <tr>
          <th scope="col">{AUDIT.field}</th>
          <th scope="col">{AUDIT.before}</th>
          <th scope="col">{AUDIT.after}</th>
        </tr>
      </thead>
      <tbody>
        {entry.changes.map((change: AuditChange, i) => (
          <tr key={`${change.field}-${i}`}>
            <th scope="row">
              <code>{change.field}</code>
            </th>
            {change.secret ? (
              <td colSpan={2} className="audit-secret">
                {AUDIT.secretChanged}
              </td>
            ) : (
              <>
                <td className={change.before === undefined ? 'audit-absent' : 'audit-before'}>{shown(change.before)}</td>
                <td className={change.after === undefined ? 'audit-absent' : 'audit-after'}>{shown(change.after)}</td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How long entries are kept: owners change it, admins read it. */
function RetentionCard() {
  const queryClient = useQueryClient();
  const { user } = useAuth();
  const ids = useId();
  const settings = useQuery({ queryKey: ['audit', 'settings'], queryFn: ({ signal }) => auditApi.settings(signal) });
  const [days, setDays] = useState('');
  const save = useMutation({ mutationFn: (value: number) => auditApi.setRetention(value), onSuccess: (data) => queryClient.setQueryData(['audit', 'settings'], data) });
  useEffect(() => {
    if (settings.data) setDays(String(settings.data.retentionDays));
  }, [settings.data]);
  const owner = can(user?.role, 'auditRetention');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(Number(days));
  };
  return (
    <section className="security-card">
      <h3>{AUDIT.retentionTitle}</h3>
      {settings.data && <p className="security-text">{AUDIT.retention(settings.data.retentionDays)}</p>}
      {owner ? (
        <form className="audit-retention" onSubmit={submit} noValidate>
          <label htmlFor={`${ids}-days`}>{AUDIT.retentionLabel}</label>
          <input id={`${ids}-days`} type="number" inputMode="numeric" min={AUDIT_RETENTION_DAYS.min} max={AUDIT_RETENTION_DAYS.max} value={days} onChange={(e) => (setDays(e.target.value), save.reset())} />
          <button type="submit" className="security-button" disabled={save.isPending || !settings.data}>
            {AUDIT.retentionSave}
          </button>
          {save.isSuccess && (
            <span className="security-ok" role="status">
              {AUDIT.retentionSaved}
            </span>
          )}
          {save.error instanceof Error && (
            <span className="security-error" role="alert">
              {save.error.message}
            </span>
          )}
        </form>
      ) : (
        <p className="security-text">{AUDIT.retentionOwners}</p>
      )}
    </section>
  );
}

/**
 * The Audit tab (owners and admins): the log newest first, filtered by member, action, target
 * (kind), words of the target and dates; each entry opens its field-level before/after; the
 * filtered log downloads as CSV or JSON. Nothing here edits or deletes an entry.
 */
export function AuditTab() {
  const ids = useId();
  const [typed, setTyped] = useState<AuditFilterValues>(NO_FILTERS);
  const [filters, setFilters] = useState<AuditFilterValues>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Set<string>>(new Set());

  // Selects and dates apply at once; the text filters after a pause in typing.
  useEffect(() => {
    const timer = setTimeout(() => {
      setFilters(typed);
      setPage(1);
    }, TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const set = (key: keyof AuditFilterValues, value: string, immediate = false) => {
    const next = { ...typed, [key]: value };
    setTyped(next);
    if (immediate) {
      setFilters(next);
      setPage(1);
    }
  };

  const log = useQuery({
    queryKey: ['audit', filters, page],
    queryFn: ({ signal }) => auditApi.page(filters, page, PAGE_SIZE, signal),
    placeholderData: keepPreviousData,
  });
  const data = log.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.pageSize)) : 1;
  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const filtered = Object.values(filters).some((v) => v !== '');

  return (
    <div className="security audit">
      <div className="security-card-head">
        <h2 className="security-heading">{AUDIT.title}</h2>
        <span className="audit-exports">
          <a className="security-button" href={auditApi.exportUrl(filters, 'csv')} download>
            <Download size={16} aria-hidden="true" />
            {AUDIT.exportCsv}
          </a>
          <a className="security-button" href={auditApi.exportUrl(filters, 'json')} download>
            <Download size={16} aria-hidden="true" />
            {AUDIT.exportJson}
          </a>
        </span>
      </div>
      <p className="security-text">{AUDIT.intro}</p>
      <section className="security-card">
        <form className="audit-filters" role="search" aria-label={AUDIT.filters} onSubmit={(e) => e.preventDefault()}>
          <label>
            <span>{AUDIT.member}</span>
            <input id={`${ids}-member`} value={typed.member} placeholder={AUDIT.memberPlaceholder} onChange={(e) => set('member', e.target.value)} />
          </label>
          <label>
            <span>{AUDIT.action}</span>
            <select value={typed.action} onChange={(e) => set('action', e.target.value, true)}>
              <option value="">{AUDIT.anyAction}</option>
              {(data?.actions ?? []).map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{AUDIT.target}</span>
            <select value={typed.target} onChange={(e) => set('target', e.target.value, true)}>
              <option value="">{AUDIT.anyTarget}</option>
              {(data?.targetKinds ?? []).map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{AUDIT.search}</span>
            <input type="search" value={typed.search} placeholder={AUDIT.searchPlaceholder} onChange={(e) => set('search', e.target.value)} />
          </label>
          <label>
            <span>{AUDIT.from}</span>
            <input type="date" value={typed.from} onChange={(e) => set('from', e.target.value, true)} />
          </label>
          <label>
            <span>{AUDIT.to}</span>
            <input type="date" value={typed.to} onChange={(e) => set('to', e.target.value, true)} />
          </label>
          {filtered && (
            <button type="button" className="security-button audit-clear" onClick={() => (setTyped(NO_FILTERS), setFilters(NO_FILTERS), setPage(1))}>
              <FilterX size={16} aria-hidden="true" />
              {AUDIT.clear}
            </button>
          )}
        </form>
        {log.error instanceof Error && (
          <p className="security-error" role="alert">
            {log.error.message || AUDIT.loadFailed}
          </p>
        )}
        {data && data.entries.length === 0 && <p className="security-text">{AUDIT.empty}</p>}
        {data && data.entries.length > 0 && (
          <table className="security-table audit-table">
            <thead>
              <tr>
                <th scope="col">{AUDIT.time}</th>
                <th scope="col">{AUDIT.who}</th>
                <th scope="col">{AUDIT.what}</th>
                <th scope="col">{AUDIT.on}</th>
                <th scope="col">{AUDIT.from_}</th>
                <th scope="col">
                  <span className="sr-only">{AUDIT.showChanges(0)}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((entry) => {
                const expanded = open.has(entry.id);
                return (
                  <Fragment key={entry.id}>
                    <tr className={expanded ? 'is-open' : undefined}>
                      <td data-label={AUDIT.time}>{moment(entry.at)}</td>
                      <td data-label={AUDIT.who}>
                        <span>
                          <strong>{entry.actor.name || entry.actor.email || AUDIT.actorKinds[entry.actor.kind]}</strong>
                          <small>
                            {[entry.actor.name ? entry.actor.email : null, entry.actor.role, entry.actor.kind === 'member' ? null : AUDIT.actorKinds[entry.actor.kind]].filter(Boolean).join(' · ')}
                          </small>
                        </span>
                      </td>
                      <td data-label={AUDIT.what}>
                        <code className="audit-action">{entry.action}</code>
                      </td>
                      <td data-label={AUDIT.on}>
                        {entry.target ? (
                          <span>
                            <strong>{entry.target.title ?? entry.target.id ?? entry.target.kind}</strong>
                            <small>{entry.target.kind}</small>
                          </span>
                        ) : (
                          AUDIT.absent
                        )}
                      </td>
                      <td data-label={AUDIT.from_}>{entry.ip ?? AUDIT.absent}</td>
                      <td className="security-cell-action">
                        <button type="button" className="security-button audit-toggle" aria-expanded={expanded} aria-controls={`${ids}-${entry.id}`} onClick={() => toggle(entry.id)}>
                          {expanded ? <ChevronDown size={16} aria-hidden="true" /> : <ChevronRight size={16} aria-hidden="true" />}
                          {expanded ? AUDIT.hideChanges : AUDIT.showChanges(entry.changes.length)}
                        </button>
                      </td>
                    </tr>
                    {expanded && (
                      <tr className="audit-details" id={`${ids}-${entry.id}`}>
                        <td colSpan={6}>
                          <ChangesView entry={entry} />
                          <dl className="audit-meta">
                            <dt>{AUDIT.requestId}</dt>
                            <dd>
                              <code>{entry.requestId ?? AUDIT.absent}</code>
                            </dd>
                            <dt>{AUDIT.userAgent}</dt>
                            <dd>{entry.userAgent ?? AUDIT.absent}</dd>
                          </dl>
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        )}
        {data && data.total > 0 && (
          <nav className="audit-pages" aria-label={AUDIT.page(page, pages, data.total)}>
            <button type="button" className="security-button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              {AUDIT.previous}
            </button>
            <span>{AUDIT.page(page, pages, data.total)}</span>
            <button type="button" className="security-button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
              {AUDIT.next}
            </button>
          </nav>
        )}
      </section>
      <RetentionCard />
    </div>
  );
}

export default AuditTab;
