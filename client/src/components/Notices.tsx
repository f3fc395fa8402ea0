import { CircleAlert, CircleCheck, Info, TriangleAlert, X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import './notices.css';

/** 'error' and 'warning' notices are announced at once (role="alert"); the others politely (role="status"). */
export type NoticeTone = 'info' | 'success' | 'warning' | 'error';

const ICONS = { info: Info, success: CircleCheck, warning: TriangleAlert, error: CircleAlert } as const;

export interface Notice {
  id: number;
  text: string;
  tone: NoticeTone;
  /** A button inside the notice (e.g. Undo); the notice closes when it is pressed. */
  action?: { label: string; run(): void };
  /** Milliseconds before it closes by itself; 0 keeps it until closed. */
  timeoutMs: number;
}

export type NotifyOptions = Partial<Pick<Notice, 'tone' | 'action' | 'timeoutMs'>>;

let lastId = 0;

/** At most this many notices show at once. */
export const MAX_NOTICES = 3;

/**
 * In-page notices (toasts) instead of `window.alert`: the page stays usable, screen readers hear
 * them, and a notice may carry one action. Errors stay 20 s, the others 8 s, unless told otherwise;
 * each can be dismissed.
 */
export function useNotices() {
  const [notices, setNotices] = useState<Notice[]>([]);
  const dismiss = useCallback((id: number) => setNotices((current) => current.filter((n) => n.id !== id)), []);
  const notify = useCallback((text: string, options: NotifyOptions = {}) => {
    const tone = options.tone ?? 'info';
    const notice: Notice = { id: ++lastId, text, tone, action: options.action, timeoutMs: options.timeoutMs ?? (tone === 'error' ? 20000 : 8000) };
    // The same message again replaces the one shown (a failure repeated does not pile up), and
    // only the newest few stay: older ones have been read or are out of date.
    setNotices((current) => [...current.filter((n) => n.text !== text), notice].slice(-MAX_NOTICES));
    return notice.id;
  }, []);
  return { notices, notify, dismiss };
}

export type Notify = ReturnType<typeof useNotices>['notify'];

export interface NoticeBoxProps {
  text: string;
  tone: NoticeTone;
  /** A button inside the notice (e.g. Undo); the notice closes when it is pressed. */
  action?: { label: string; run(): void };
  /** Milliseconds before it closes by itself; 0 or absent keeps it until closed. */
  timeoutMs?: number;
  onDismiss(): void;
  closeLabel: string;
  /** In the page's flow (the chat page, above the conversation) rather than in a toast stack. */
  inline?: boolean;
}

/**
 * One notice, the only one of the app: a toast of the console's stack (NoticeStack) or a notice in
 * the chat page's flow (`inline`). Its tone gives its colours, icon and how urgently screen readers
 * hear it; it can be dismissed, and may close by itself or carry one action.
 */
export function NoticeBox({ text, tone, action, timeoutMs, onDismiss, closeLabel, inline }: NoticeBoxProps) {
  const dismissRef = useRef(onDismiss);
  dismissRef.current = onDismiss;
  useEffect(() => {
    if (!timeoutMs) return;
    const timer = setTimeout(() => dismissRef.current(), timeoutMs);
    return () => clearTimeout(timer);
  }, [timeoutMs]);
  const Icon = ICONS[tone];
  return (
    <div className={`notice is-${tone}${inline ? ' is-inline' : ''}`} role={tone === 'error' || tone === 'warning' ? 'alert' : 'status'}>
      <Icon className="notice-icon" size={18} aria-hidden="true" />
      <p className="notice-text">{text}</p>
      {action && (
        <button
          type="button"
          className="notice-action"
          onClick={() => {
            action.run();
            onDismiss();
          }}
        >
          {action.label}
        </button>
      )}
      <button type="button" className="notice-close" aria-label={closeLabel} title={closeLabel} onClick={onDismiss}>
        <X size={16} aria-hidden="true" />
      </button>
    </div>
  );
}

/**
 * The stack of notices, in a corner of the window (see notices.css). The newest shows whole; the
 * older ones (at most MAX_NOTICES in all) fold into thin edges above it, so the stack stays the
 * height of one notice and covers no form; hovering or focusing the stack opens them all.
 */
export function NoticeStack({ notices, onDismiss, label = 'Notifications', closeLabel = 'Dismiss' }: { notices: Notice[]; onDismiss(id: number): void; label?: string; closeLabel?: string }) {
  return (
    <section className="notice-stack" aria-label={label}>
      {notices.map((notice, i) => (
        <div key={notice.id} className={i < notices.length - 1 ? 'notice-slot is-folded' : 'notice-slot'}>
          <NoticeBox text={notice.text} tone={notice.tone} action={notice.action} timeoutMs={notice.timeoutMs} onDismiss={() => onDismiss(notice.id)} closeLabel={closeLabel} />
        </div>
      ))}
    </section>
  );
}
