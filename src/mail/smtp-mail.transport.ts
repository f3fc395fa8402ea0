import { createTransport, type Transporter } from 'nodemailer';
import type { MailTransport, OutgoingMail } from './mail.types';

/** SMTP_URL (smtp:// or smtps://, credentials in the URL) through nodemailer. Failures throw, so the mail job retries. */
export class SmtpMailTransport implements MailTransport {
  readonly kind = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    const url = new URL(smtpUrl);
    this.transporter = createTransport({
      host: url.hostname,
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      // Never log message contents (they carry one-time codes).
      logger: false,
      debug: false,
    });
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transporter.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
  }

  async close(): Promise<void> {
    this.transporter.close();
  }
}
