/** AES-256-GCM for outbox bodies: `v1.<iv>.<tag>.<ciphertext>` (base64url); the row id is bound in as associated data. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface MailBody {
  text: string;
  html: string;
}

export function encryptBody(key: Buffer, rowId: string, body: MailBody): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(rowId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(body), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export function decryptBody(key: Buffer, rowId: string, payload: string): MailBody {
  const [version, iv, tag, ciphertext] = payload.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('Unknown outbox payload format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(rowId, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  return JSON.parse(plain) as MailBody;
}
