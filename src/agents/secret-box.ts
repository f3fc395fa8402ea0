/**
 * Encryption at rest for the agents' API keys: AES-256-GCM with a random 12-byte IV per value and
 * the agent id as associated data (a ciphertext copied onto another agent does not decrypt).
 *
 * Stored form: `v1:<base64(iv | tag | ciphertext)>`. The prefix names the key version, so a later
 * key can be added next to this one and old values re-encrypted at leisure.
 *
 * The key is derived with HKDF-SHA256 from the server secret: APP_SECRET when set, otherwise the
 * 256-bit key file DATA_DIR/secret.key (created with mode 0600 on first start; the same file the
 * sign-in feature uses, see src/auth/server-secret.ts). Neither ever reaches the database; the
 * database holds only a key check (an HMAC of a constant), so a start with the wrong key can be
 * refused with a clear message instead of every agent failing later.
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import * as path from 'node:path';
import { loadOrCreateKeyFile, SECRET_KEY_FILE } from '../auth/server-secret';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export const SECRET_BOX_VERSION = 'v1';
/**
 * What a box encrypts: each purpose has its own key (HKDF info), so a value of one purpose never
 * decrypts as another. The agents' box is the default; the admins' TOTP secrets have their own.
 */
export const SECRET_BOX_PURPOSE = 'SECRET_BOX_PURPOSE';
export type SecretBoxPurpose = 'agent-api-keys' | 'admin-totp' | 'widget-secrets' | 'handoff-webhook' | 'speech-api-key';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored value that could not be decrypted (altered, truncated, another key, unknown version). */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

@Injectable()
export class SecretBox {
  private readonly key: Buffer;
  /** Where the key comes from, for messages (never the key itself). */
  readonly keySource: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Optional() @Inject(SECRET_BOX_PURPOSE) private readonly purpose: SecretBoxPurpose = 'agent-api-keys') {
    let master: Buffer;
    if (config.appSecret) {
      master = Buffer.from(config.appSecret, 'utf8');
      this.keySource = 'APP_SECRET';
    } else {
      master = loadOrCreateKeyFile(config.dataDir).key;
      this.keySource = path.join(config.dataDir, SECRET_KEY_FILE);
    }
    this.key = Buffer.from(hkdfSync('sha256', master, 'support-assistant', `${purpose}/${SECRET_BOX_VERSION}`, 32));
  }

  encrypt(plain: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${SECRET_BOX_VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  decrypt(stored: string, associatedData: string): string {
    const colon = stored.indexOf(':');
    const version = colon > 0 ? stored.slice(0, colon) : '';
    if (version !== SECRET_BOX_VERSION) throw new SecretBoxError(`unknown key version "${version.slice(0, 10)}"`);
    const raw = Buffer.from(stored.slice(colon + 1), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('the stored value is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the stored value failed authentication (altered, or encrypted with another key)');
    }
  }

  /** A value that identifies the current key without revealing it: `v1:` + HMAC of a constant. */
  keyCheck(): string {
    return `${SECRET_BOX_VERSION}:${createHmac('sha256', this.key).update(`${this.purpose} key check`).digest('hex').slice(0, 32)}`;
  }

  matchesKeyCheck(stored: string): boolean {
    const mine = Buffer.from(this.keyCheck());
    const theirs = Buffer.from(stored);
    return mine.length === theirs.length && timingSafeEqual(mine, theirs);
  }
}

/** `sk-proj-abc...wxyz` -> `sk-...wxyz`: enough to recognise a key, never enough to use it. */
export function maskApiKey(key: string): string {
  if (key.length < 12) return '****';
  return `${key.slice(0, 3)}...${key.slice(-4)}`;
}
