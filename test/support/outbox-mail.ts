/**
 * Mail as the log transport leaves it (DATA_DIR/outbox/*.eml, see src/mail/log-mail.transport.ts):
 * the newest message to an address, decoded from quoted-printable, and the invitation link in it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { eventually } from './test-app';

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The decoded text of every mail to `email`, oldest first. */
export function mailsTo(dataDir: string, email: string): string[] {
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .filter((f) => f.endsWith(`-${email}.eml`))
    .sort()
    .map((f) => decodeQuotedPrintable(fs.readFileSync(path.join(outbox, f), 'utf8')));
}

/** Waits for the `nth` (1-based) invitation mail to `email` and answers the link in it. */
export function invitationLink(dataDir: string, email: string, nth = 1, timeoutMs = 5000): Promise<string> {
  return eventually(
    () => {
      const links = mailsTo(dataDir, email)
        .map((mail) => /Invitation link: (\S+)/.exec(mail)?.[1])
        .filter((link): link is string => Boolean(link));
      return links[nth - 1];
    },
    timeoutMs,
    `invitation mail #${nth} to ${email}`,
  );
}

/** The token at the end of an invitation link (…/admin/invitation/<token>). */
export function tokenOf(link: string): string {
  return link.slice(link.lastIndexOf('/') + 1);
}
