import { Clock, Shield } from 'lucide-react';
import { useStrings } from '../i18n';

/**
 * Copyright, 'Available 24/7', and the 'Admin Dashboard' link for
 * administrators only: a visitor has no use for it, so it shows when this browser is signed in
 * to the console (`isAdmin`). A plain link (a page load): the chat page does not need the router,
 * and the widget's iframe, which shares this page's parts, stays without it.
 */
export function ChatFooter({ isAdmin = false }: { isAdmin?: boolean }) {
  const t = useStrings().footer;
  return (
    <footer className="chat-footer">
      <p>{t.copyright(new Date().getFullYear())}</p>
      <p className="chat-footer-availability">
        <Clock aria-hidden="true" size={14} />
        {t.availability}
      </p>
      {isAdmin && (
        <a href="/admin" className="chat-footer-admin">
          <Shield aria-hidden="true" size={14} />
          {t.admin}
        </a>
      )}
    </footer>
  );
}
