/** The one-time-code mail: plain text and HTML, both saying the code expires in 10 minutes. */
import type { OutgoingMail } from '../mail/mail.types';

export const OTP_SUBJECT = 'Your Support Assistant sign-in code';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function otpMail(to: string, name: string, code: string, ttlMinutes: number): OutgoingMail {
  const greeting = name ? `Hello ${name},` : 'Hello,';
  const text = [
    greeting,
    '',
    'Use this code to sign in to the Support Assistant admin console:',
    '',
    `Verification code: ${code}`,
    '',
    `The code expires in ${ttlMinutes} minutes and works only once.`,
    'If you did not try to sign in, you can ignore this email.',
    '',
  ].join('\n');
  const html = `<!doctype html>
<html><body style="margin:0;padding:24px;background:#f1f5f9;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#0f172a">
<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:12px;padding:28px">
<p style="margin:0 0 12px">${escapeHtml(greeting)}</p>
<p style="margin:0 0 20px">Use this code to sign in to the Support Assistant admin console:</p>
<p style="margin:0 0 20px;font-size:32px;font-weight:700;letter-spacing:8px;text-align:center;background:#eff6ff;color:#1e3a8a;border-radius:8px;padding:14px 0">${code}</p>
<p style="margin:0 0 8px">The code expires in ${ttlMinutes} minutes and works only once.</p>
<p style="margin:0;color:#64748b;font-size:13px">If you did not try to sign in, you can ignore this email.</p>
</div>
</body></html>
`;
  return { to, subject: OTP_SUBJECT, text, html };
}
