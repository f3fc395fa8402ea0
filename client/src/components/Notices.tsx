import { X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import './notices.css';

/** 'error' notices are announced at once (role="alert"); the others politely (role="status"). */
export type NoticeTone = 'info' | 'success' | 'error';

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
    setNotices((current) => [...current, notice]);
    return notice.id;
  }, []);
  return { notices, notify, dismiss };
}

export type Notify = ReturnType<typeof useNotices>['notify'];

function NoticeView({ notice, onDismiss, closeLabel }: { notice: Notice; onDismiss(id: number): void; closeLabel: string }) {
  const dismissRef = useRef(onDismiss);
  dismissRef.current = onDismiss;
  useEffect(() => {
    if (!notice.timeoutMs) return;
    const timer = setTimeout(() => dismissRef.current(notice.id), notice.timeoutMs);
    return () => clearTimeout(timer);
  }, [notice.id, notice.timeoutMs]);
  return (
    <div className={`notice is-${notice.tone}`} role={notice.tone === 'error' ? 'alert' : 'status'}>
      <p className="notice-text">{notice.text}</p>
      {notice.action && (
        <button
          type="button"
          className="notice-action"
          onClick={() => {
            notice.action!.run();
            onDismiss(notice.id);
          }}
        >
          {notice.action.label}
        </button>
      )}
      <button type="button" className="notice-close" aria-label={closeLabel} onClick={() => onDismiss(notice.id)}>
        <X size={16} aria-hidden="true" />
      </button>
    </div>
  );
}

/** The stack of notices, bottom right (full width on phones). */
export function NoticeStack({ notices, onDismiss, label = 'Notifications', closeLabel = 'Dismiss' }: { notices: Notice[]; onDismiss(id: number): void; label?: string; closeLabel?: string }) {
  return (
    <section className="notice-stack" aria-label={label}>
      {notices.map((notice) => (
        <NoticeView key={notice.id} notice={notice} onDismiss={onDismiss} closeLabel={closeLabel} />
      ))}
    </section>
  );
}
