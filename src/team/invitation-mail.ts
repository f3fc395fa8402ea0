/** The invitation mail: plain text and HTML, with the link, the role and how long it works. */
import type { OutgoingMail } from '../mail/mail.types';
import { ROLE_LABELS, type Role } from '../shared/contracts/roles';
import { withArticle } from '../shared/contracts/rules';

export const INVITATION_SUBJECT = 'You are invited to the Support Assistant console';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function invitationMail(to: string, link: string, role: Role, invitedBy: string, ttlHours: number): OutgoingMail {
  const roleName = ROLE_LABELS[role];
  const intro = `${invitedBy} invited you to the Support Assistant admin console as ${withArticle(roleName)}.`;
  const text = [
    'Hello,',
    '',
    intro,
    '',
    'Open this link to choose your name and a password (or to sign in with emailed codes):',
    '',
    `Invitation link: ${link}`,
    '',
    `The link works once and expires in ${ttlHours} hours.`,
    'If you did not expect this invitation, you can ignore this email.',
    '',
  ].join('\n');
  const html = `<!doctype html>
<html><body style="margin:0;padding:24px;background:#f1f5f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#0f172a">
<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:12px;padding:28px">
<p style="margin:0 0 12px">Hello,</p>
<p style="margin:0 0 20px">${escapeHtml(intro)}</p>
<p style="margin:0 0 20px;text-align:center"><a href="${escapeHtml(link)}" style="display:inline-block;background:#2563eb;color:#ffffff;text-decoration:none;font-weight:600;border-radius:8px;padding:12px 22px">Accept the invitation</a></p>
<p style="margin:0 0 8px;font-size:13px;word-break:break-all">Or open: ${escapeHtml(link)}</p>
<p style="margin:0 0 8px">The link works once and expires in ${ttlHours} hours.</p>
<p style="margin:0;color:#64748b;font-size:13px">If you did not expect this invitation, you can ignore this email.</p>
</div>
</body></html>
`;
  return { to, subject: INVITATION_SUBJECT, text, html };
}

