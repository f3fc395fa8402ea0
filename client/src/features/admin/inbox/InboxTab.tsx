import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { InboxConversation, InboxItem, InboxMessage } from '@shared/contracts/handoff';
import { can } from '@shared/contracts/roles';
import { Lock, X } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../../lib/api';
import { formatPercent } from '../../../lib/format';
import { useAuth } from '../../auth';
import { formatWhen, languageName, verticalName } from '../conversations/format';
import { inboxApi } from './api/inbox-api';
import { INBOX_QUERY, useInboxConversation, useInboxList } from './hooks/useInbox';
import { INBOX } from './strings';
import '../knowledge/knowledge.css';
import '../conversations/conversations.css';
import './inbox.css';

/** How long after the last keystroke the visitor stops seeing "typing". */
export const TYPING_IDLE_MS = 2500;

/** A refusal as the member should read it: 409 means another member acted on the conversation first. */
function problemText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof ApiError && error.status === 409 ? INBOX.conflict(message) : INBOX.failed(message);
}

function InboxList({ title, items, empty, selectedId, onSelect, me }: { title: string; items: InboxItem[]; empty: string; selectedId: string | null; onSelect(id: string): void; me?: string }) {
  const headingId = useId();
  return (
    <section className="ib-list-section" aria-labelledby={headingId}>
      <h2 className="ib-list-title" id={headingId}>
        {title} <span className="kb-badge">{items.length}</span>
      </h2>
      {items.length === 0 ? (
        <p className="kb-list-empty">{empty}</p>
      ) : (
        <ul className="kb-list ib-list" aria-labelledby={headingId}>
          {items.map((item) => {
            const a = item.handoff.assignee;
            return (
              <li key={item.conversationId}>
                <button
                  type="button"
                  className={`kb-row${item.conversationId === selectedId ? ' is-selected' : ''}`}
                  aria-current={item.conversationId === selectedId ? 'true' : undefined}
                  onClick={() => onSelect(item.conversationId)}
                >
                  <span className="kb-row-title">
                    <span className="kb-row-title-text">{item.title || INBOX.untitled}</span>
                    {item.unread > 0 && <span className="ib-unread">{INBOX.unread(item.unread)}</span>}
                  </span>
                  {/* The question that led to the handoff, when it is not the first question already shown. */}
                  {item.question && item.question !== item.title && <span className="kb-row-preview">{item.question}</span>}
                  <span className="kb-row-meta">
                    <span className="kb-badge is-vertical">{verticalName(item.vertical)}</span>
                    {item.language && <span className="kb-badge">{languageName(item.language)}</span>}
                    {item.handoff.state === 'waiting' && item.handoff.requestedAt && <span className="kb-badge">{INBOX.waitingFor(formatWhen(item.handoff.requestedAt))}</span>}
                    {a && <span className={`kb-badge${a.id === me ? ' tone is-ok' : ''}`}>{a.id === me ? INBOX.yours : INBOX.assignedTo(a.name)}</span>}
                    {!item.withinHours && <span className="kb-badge tone is-warn">{INBOX.outsideHours}</span>}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function MessageView({ message }: { message: InboxMessage }) {
  const label = message.role === 'human' && message.author ? `${INBOX.roles.human} · ${message.author.name}` : message.role === 'note' && message.author ? `${INBOX.roles.note} · ${message.author.name}` : INBOX.roles[message.role];
  return (
    <li className={`cv-message ib-message is-${message.role}`}>
      <div className="cv-message-head">
        <span className="cv-message-role">
          {message.role === 'note' && <Lock size={12} aria-hidden="true" />} {label}
        </span>
        <time dateTime={message.createdAt}>{formatWhen(message.createdAt)}</time>
      </div>
      <p className="cv-message-text">{message.content}</p>
      {message.role === 'agent' && (
        <div className="cv-reply-meta">
          {message.answered === true && <span className="kb-badge tone is-ok">{INBOX.answered}</span>}
          {message.answered === false && <span className="kb-badge tone is-warn">{INBOX.notFound}</span>}
          {message.confidence !== null && (
            <span className="kb-badge">
              {INBOX.confidence} {formatPercent(message.confidence)}
            </span>
          )}
        </div>
      )}
      {message.role === 'agent' && message.sources.length > 0 && (
        <div className="cv-sources">
          <span className="cv-sources-label">{INBOX.sources}</span>
          <ul>
            {message.sources.map((s) => (
              <li key={s.id}>{s.title}</li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

/** Tells the visitor that the member is typing, and that they stopped once the keys rest. */
function useTypingSignal(conversationId: string, active: boolean) {
  const typing = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stop = (announce: boolean) => {
    clearTimeout(timer.current);
    if (typing.current && announce) void inboxApi.typing(conversationId, false).catch(() => undefined);
    typing.current = false;
  };
  useEffect(() => () => stop(true), [conversationId]); // eslint-disable-line react-hooks/exhaustive-deps
  return {
    keystroke() {
      if (!active) return;
      if (!typing.current) {
        typing.current = true;
        void inboxApi.typing(conversationId, true).catch(() => undefined);
      }
      clearTimeout(timer.current);
      timer.current = setTimeout(() => stop(true), TYPING_IDLE_MS);
    },
    // A reply ends the typing on the server's side.
    sent: () => stop(false),
    stop: () => stop(true),
  };
}

function ConversationPane({ data, onClose, mayAssign, me }: { data: InboxConversation; onClose(): void; mayAssign: boolean; me?: string }) {
  const queryClient = useQueryClient();
  const ids = useId();
  const { item, messages } = data;
  const state = item.handoff.state;
  const active = state === 'waiting' || state === 'open';
  const [text, setText] = useState('');
  const [internal, setInternal] = useState(false);
  const [assignee, setAssignee] = useState('');
  const reload = () => void queryClient.invalidateQueries({ queryKey: INBOX_QUERY });
  const members = useQuery({ queryKey: ['inbox-members'], queryFn: ({ signal }) => inboxApi.members(signal), enabled: mayAssign });
  const answerers = (members.data ?? []).filter((m) => m.status === 'active' && can(m.role, 'conversationsAnswer'));
  const typing = useTypingSignal(item.conversationId, active && !internal);

  const take = useMutation({ mutationFn: (assigneeId?: string) => inboxApi.take(item.conversationId, { version: item.handoff.version, assigneeId }), onSettled: reload });
  const resolve = useMutation({ mutationFn: () => inboxApi.resolve(item.conversationId, { version: item.handoff.version }), onSettled: reload });
  const send = useMutation({
    mutationFn: () => inboxApi.send(item.conversationId, { text: text.trim(), internal }),
    onSuccess: () => {
      typing.sent();
      setText('');
    },
    onSettled: reload,
  });
  const error = take.error ?? resolve.error ?? send.error;
  const clearErrors = () => (take.reset(), resolve.reset(), send.reset());
  const mayWrite = internal || active;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim() || !mayWrite) return;
    clearErrors();
    send.mutate();
  };

  return (
    <article className="cv-transcript ib-conversation" aria-labelledby={`${ids}-title`}>
      <header className="cv-transcript-head">
        <div className="cv-transcript-heading">
          <h2 id={`${ids}-title`}>{item.title || INBOX.untitled}</h2>
          <p className="cv-transcript-sub">
            <span className={`kb-badge ib-state is-${state}`}>{INBOX.state[state] ?? state}</span>
            {` ${verticalName(item.vertical)}`}
            {item.language && ` · ${languageName(item.language)}`}
            {item.reason && ` · ${INBOX.reasons[item.reason] ?? item.reason}`}
            {item.handoff.assignee && ` · ${item.handoff.assignee.id === me ? INBOX.yours : INBOX.assignedTo(item.handoff.assignee.name)}`}
            {item.visitorEmail && ` · ${INBOX.email}`}
          </p>
        </div>
        <div className="kb-editor-actions">
          {state === 'waiting' && (
            <button type="button" className="kb-button is-primary" disabled={take.isPending} onClick={() => (clearErrors(), take.mutate(undefined))}>
              {take.isPending ? INBOX.taking : INBOX.take}
            </button>
          )}
          {active && (
            <button type="button" className="kb-button" disabled={resolve.isPending} onClick={() => (clearErrors(), typing.stop(), resolve.mutate())}>
              {resolve.isPending ? INBOX.resolving : INBOX.resolve}
            </button>
          )}
          <button type="button" className="kb-icon-button" onClick={onClose} aria-label={INBOX.close} title={INBOX.close}>
            <X size={18} aria-hidden="true" />
          </button>
        </div>
      </header>
      {mayAssign && active && answerers.length > 0 && (
        <form
          className="ib-assign"
          onSubmit={(event) => {
            event.preventDefault();
            if (!assignee) return;
            clearErrors();
            take.mutate(assignee);
          }}
        >
          <label htmlFor={`${ids}-assignee`}>{INBOX.assignTo}</label>
          <select id={`${ids}-assignee`} className="kb-select" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
            <option value="">{INBOX.chooseMember}</option>
            {answerers.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name || m.email}
              </option>
            ))}
          </select>
          <button type="submit" className="kb-button" disabled={!assignee || take.isPending}>
            {INBOX.assign}
          </button>
        </form>
      )}
      {item.question && item.question !== item.title && (
        <p className="ib-question">
          <strong>{INBOX.question}:</strong> {item.question}
        </p>
      )}
      {error && (
        <p className="ib-error" role="alert">
          {problemText(error)}
        </p>
      )}
      {messages.length === 0 ? <p className="kb-placeholder">{INBOX.noMessages}</p> : <ol className="stack-list ib-transcript">{messages.map((m) => <MessageView key={m.id} message={m} />)}</ol>}
      {!active && <p className="ib-resolved">{INBOX.resolvedNote}</p>}
      <form className={`ib-composer${internal ? ' is-internal' : ''}`} onSubmit={submit}>
        <label className="kb-visually-hidden" htmlFor={`${ids}-reply`}>
          {internal ? INBOX.internal : INBOX.reply}
        </label>
        <textarea
          id={`${ids}-reply`}
          className="ib-textarea"
          rows={3}
          value={text}
          placeholder={internal ? INBOX.notePlaceholder : INBOX.replyPlaceholder}
          disabled={!mayWrite}
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value) typing.keystroke();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
          }}
        />
        <div className="ib-composer-actions">
          <label className="ib-toggle">
            <input
              type="checkbox"
              checked={internal}
              onChange={(e) => {
                if (e.target.checked) typing.stop();
                setInternal(e.target.checked);
              }}
            />
            <Lock size={14} aria-hidden="true" /> {INBOX.internal}
          </label>
          <button type="submit" className="kb-button is-primary" disabled={!text.trim() || !mayWrite || send.isPending}>
            {send.isPending ? INBOX.sending : internal ? INBOX.addNote : INBOX.send}
          </button>
        </div>
      </form>
    </article>
  );
}

/**
 * The Inbox tab (agents, admins, owners): conversations waiting for a person (longest first) and
 * open ones (the member's own first); a conversation's transcript with the assistant's sources
 * and confidence, members' replies and internal notes; take, assign (members who may read the
 * team), reply (the visitor sees typing while the member writes), note, resolve. The console
 * keeps the lists live (useInboxWatch reloads them on `inbox:changed`).
 */
export function InboxTab() {
  const { user } = useAuth();
  const [selected, setSelected] = useState<string | null>(null);
  const list = useInboxList();
  const conversation = useInboxConversation(selected);
  const mayAssign = can(user?.role, 'team');

  return (
    <div className="cv-tab">
      <div className="kb-tab ib-tab">
        <aside className="cv-side ib-side">
          {list.data ? (
            <>
              <InboxList title={INBOX.waiting} items={list.data.waiting} empty={INBOX.noneWaiting} selectedId={selected} onSelect={setSelected} me={user?.id} />
              <InboxList title={INBOX.open} items={list.data.open} empty={INBOX.noneOpen} selectedId={selected} onSelect={setSelected} me={user?.id} />
            </>
          ) : (
            <p className="kb-list-empty" role="status">
              {list.isError ? INBOX.loadFailed : INBOX.loading}
            </p>
          )}
        </aside>
        <div className="kb-main">
          {selected === null ? (
            <p className="kb-placeholder">{INBOX.placeholder}</p>
          ) : conversation.data ? (
            <ConversationPane key={selected} data={conversation.data} onClose={() => setSelected(null)} mayAssign={mayAssign} me={user?.id} />
          ) : (
            <p className="kb-placeholder" role="status">
              {conversation.isError ? INBOX.conversationFailed : INBOX.conversationLoading}
            </p>
          )}
        </div>
      </div>
    </div>
  );
}

export default InboxTab;
