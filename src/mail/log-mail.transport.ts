import { Logger } from '@nestjs/common';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createTransport, type Transporter } from 'nodemailer';
import type { MailTransport, OutgoingMail } from './mail.types';

/** First and last line of a printed mail: the only log lines allowed to carry a code. */
export const LOG_MAIL_BEGIN = '----- BEGIN MAIL (log transport) -----';
export const LOG_MAIL_END = '----- END MAIL -----';

/** `<time>-<to>.eml` with characters that are unsafe in a file name replaced. */
export function outboxFileName(to: string, at: Date): string {
  const time = at.toISOString().replace(/[:.]/g, '-');
  return `${time}-${to.replace(/[^A-Za-z0-9@._+-]/g, '_')}.eml`;
}

/**
 * The embedded mail transport (no SMTP_URL): prints the mail to the log and writes it as an RFC
 * 5322 .eml file to DATA_DIR/outbox/ (owner-only permissions, it may hold a live code). This is
 * how a fresh install signs in: the code for admin@localhost is in the newest file there.
 */
export class LogMailTransport implements MailTransport {
  readonly kind = 'log' as const;
  private readonly logger = new Logger('Mail');
  private readonly composer: Transporter;

  constructor(
    private readonly outboxDir: string,
    private readonly from: string,
  ) {
    this.composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  async send(mail: OutgoingMail): Promise<void> {
    const info = await this.composer.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    await fs.mkdir(this.outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(this.outboxDir, outboxFileName(mail.to, new Date()));
    await fs.writeFile(file, info.message as Buffer, { mode: 0o600 });
    this.logger.log(
      [
        LOG_MAIL_BEGIN,
        `To: ${mail.to}`,
        `Subject: ${mail.subject}`,
        '',
        mail.text.trimEnd(),
        `(saved to ${file}; set SMTP_URL to send real mail)`,
        LOG_MAIL_END,
      ].join('\n'),
    );
  }

  async close(): Promise<void> {
    this.composer.close();
  }
}
