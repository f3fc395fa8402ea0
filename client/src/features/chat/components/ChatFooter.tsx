import { Clock, Shield } from 'lucide-react';
import { Link } from 'react-router';
import { FOOTER } from '../strings';

export function ChatFooter() {
  return (
    <footer className="chat-footer">
      <p>{FOOTER.copyright(new Date().getFullYear())}</p>
      <p className="chat-footer-availability">
        <Clock aria-hidden="true" size={14} />
        {FOOTER.availability}
      </p>
      <Link to="/admin" className="chat-footer-admin">
        <Shield aria-hidden="true" size={14} />
        {FOOTER.admin}
      </Link>
    </footer>
  );
}
