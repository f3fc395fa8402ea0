/**
 * The server secret: APP_SECRET when set, otherwise a random 256-bit key in DATA_DIR/secret.key,
 * created on first start with mode 0600. Purpose-specific keys are derived from it with HKDF, so
 * the one-time-code HMAC key and the outbox encryption key are unrelated.
 *
 * Several servers must share it (set APP_SECRET, or share DATA_DIR): a code requested on one
 * server is checked, and its mail sent, on another. It never goes to the database, so a database
 * dump alone cannot be used to brute-force code hashes or decrypt pending mail.
 */
import { Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { hkdfSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/app-config';

export const SECRET_KEY_FILE = 'secret.key';

export type SecretPurpose = 'otp-hmac' | 'mail-outbox' | 'recovery-codes' | 'widget-visitors';

/** Reads DATA_DIR/secret.key, creating it (0600, exclusive create so concurrent starts agree) when missing. */
export function loadOrCreateKeyFile(dataDir: string): { key: Buffer; created: boolean } {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    return { key: readKeyFile(file), created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return { key: readKeyFile(file), created: false };
}

function readKeyFile(file: string): Buffer {
  const hex = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} is not a 256-bit hex key; delete it to have a new one made`);
  return Buffer.from(hex, 'hex');
}

@Injectable()
export class ServerSecret {
  private readonly master: Buffer;
  private readonly derived = new Map<SecretPurpose, Buffer>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    if (config.appSecret) {
      this.master = Buffer.from(config.appSecret, 'utf8');
      return;
    }
    const { key, created } = loadOrCreateKeyFile(config.dataDir);
    this.master = key;
    const logger = new Logger('ServerSecret');
    if (created) logger.log(`Created the server key ${path.join(config.dataDir, SECRET_KEY_FILE)} (APP_SECRET is not set)`);
    if (config.databaseUrl) {
      logger.warn('APP_SECRET is not set: every server sharing this database needs the same DATA_DIR/secret.key');
    }
  }

  /** A 256-bit key for one purpose. */
  key(purpose: SecretPurpose): Buffer {
    let key = this.derived.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.master, 'support-assistant', purpose, 32));
      this.derived.set(purpose, key);
    }
    return key;
  }
}

/** Provides ServerSecret to every feature (auth hashes codes with it, mail encrypts the outbox). */
@Global()
@Module({ providers: [ServerSecret], exports: [ServerSecret] })
export class ServerSecretModule {}
