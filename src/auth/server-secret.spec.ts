import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../config/app-config';
import { loadOrCreateKeyFile, SECRET_KEY_FILE, ServerSecret } from './server-secret';

describe('server secret', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-secret-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates DATA_DIR/secret.key (256 bits, mode 0600) once and reuses it', () => {
    const first = loadOrCreateKeyFile(dir);
    expect(first.created).toBe(true);
    expect(first.key).toHaveLength(32);
    expect(fs.statSync(path.join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    const second = loadOrCreateKeyFile(dir);
    expect(second.created).toBe(false);
    expect(second.key.equals(first.key)).toBe(true);
  });

  it('derives unrelated keys per purpose; two servers on one DATA_DIR agree', () => {
    const a = new ServerSecret(loadConfig({}, { dataDir: dir }));
    const b = new ServerSecret(loadConfig({}, { dataDir: dir }));
    expect(a.key('otp-hmac')).toHaveLength(32);
    expect(a.key('otp-hmac').equals(a.key('mail-outbox'))).toBe(false);
    expect(a.key('otp-hmac').equals(b.key('otp-hmac'))).toBe(true);
  });

  it('uses APP_SECRET when set (no key file)', () => {
    const a = new ServerSecret(loadConfig({ APP_SECRET: 's'.repeat(40) }, { dataDir: dir }));
    const b = new ServerSecret(loadConfig({ APP_SECRET: 's'.repeat(40) }, { dataDir: path.join(dir, 'other') }));
    expect(a.key('otp-hmac').equals(b.key('otp-hmac'))).toBe(true);
    expect(fs.existsSync(path.join(dir, SECRET_KEY_FILE))).toBe(false);
  });
});
