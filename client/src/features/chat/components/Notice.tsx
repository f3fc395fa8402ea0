import { CircleAlert, X } from 'lucide-react';
import { useStrings } from '../i18n';

/**
 * A message for the visitor inside the page (not a browser alert): announced by screen readers
 * (role="alert"), kept until dismissed or replaced.
 */
export function Notice({ message, onDismiss }: { message: string | null; onDismiss(): void }) {
  const t = useStrings();
  if (!message) return null;
  return (
    <div className="page-notice" role="alert">
      <CircleAlert aria-hidden="true" size={18} />
      <span className="page-notice-text">{message}</span>
      <button type="button" className="page-notice-close" onClick={onDismiss} aria-label={t.notice.dismiss} title={t.notice.dismiss}>
        <X aria-hidden="true" size={18} />
      </button>
    </div>
  );
}
