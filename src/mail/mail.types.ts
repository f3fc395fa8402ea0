/** A mail as the app composes it; the transport adds From and the MIME structure. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailTransport {
  readonly kind: 'log' | 'smtp';
  send(mail: OutgoingMail): Promise<void>;
  close(): Promise<void>;
}

export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');
