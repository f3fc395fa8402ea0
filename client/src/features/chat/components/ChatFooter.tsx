import { Clock, Shield } from 'lucide-react';
import { useStrings } from '../i18n';

/**
 * Copyright, 'Available 24/7', and the 'Admin Dashboard' link to the console, in every footer:
 * an administrator on a new browser finds the way in from the page itself (the console asks
 * for a sign-in; the link grants nothing). A plain link (a page load): the chat page does not
 * need the router, and the widget's iframe, which shares this page's parts, stays without it.
 */
export function ChatFooter() {
  const t = useStrings().footer;
  return (
    <footer className="chat-footer">
      <p>{t.copyright(new Date().getFullYear())}</p>
      <p className="chat-footer-availability">
        <Clock aria-hidden="true" size={14} />
        {t.availability}
      </p>
      <a href="/admin" className="chat-footer-admin">
        <Shield aria-hidden="true" size={14} />
        {t.admin}
      </a>
    </footer>
  );
}
