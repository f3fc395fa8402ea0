import { Clock, Shield } from 'lucide-react';
import { Link } from 'react-router';
import { useStrings } from '../i18n';

/**
 * Copyright, 'Available 24/7', and the 'Admin Dashboard' link to the console, in every footer:
 * an administrator on a new browser finds the way in from the page itself (the console asks
 * for a sign-in; the link grants nothing).
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
      <Link to="/admin" className="chat-footer-admin">
        <Shield aria-hidden="true" size={14} />
        {t.admin}
      </Link>
    </footer>
  );
}
