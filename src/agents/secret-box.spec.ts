import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '../config/app-config';
import { maskApiKey, SecretBox, SecretBoxError } from './secret-box';

function box(overrides: Record<string, unknown> = {}) {
  return new SecretBox(loadConfig({}, { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'sa-box-')), ...overrides }));
}

describe('SecretBox (AES-256-GCM, versioned)', () => {
  const secret = { appSecret: 'x'.repeat(32) };

  it('round-trips, with a fresh 12-byte IV each time and a v1 prefix', () => {
    const b = box(secret);
    const one = b.encrypt('sk-live-123456789', 'hr-agent');
    const two = b.encrypt('sk-live-123456789', 'hr-agent');
    expect(one).toMatch(/^v1:/);
    expect(one).not.toBe(two);
    expect(Buffer.from(one.slice(3), 'base64').length).toBe(12 + 16 + 'sk-live-123456789'.length);
    expect(b.decrypt(one, 'hr-agent')).toBe('sk-live-123456789');
  });

  it('refuses a flipped byte, another agent id, another key and an unknown version', () => {
    const b = box(secret);
    const stored = b.encrypt('sk-live-123456789', 'hr-agent');
    const raw = Buffer.from(stored.slice(3), 'base64');
    raw[raw.length - 1] ^= 0x80;
    expect(() => b.decrypt(`v1:${raw.toString('base64')}`, 'hr-agent')).toThrow(SecretBoxError);
    expect(() => b.decrypt(stored, 'sales-agent')).toThrow(/failed authentication/);
    expect(() => box({ appSecret: 'y'.repeat(32) }).decrypt(stored, 'hr-agent')).toThrow(SecretBoxError);
    expect(() => b.decrypt(stored.replace(/^v1:/, 'v9:'), 'hr-agent')).toThrow(/unknown key version/);
    expect(() => b.decrypt('v1:AAAA', 'hr-agent')).toThrow(/truncated/);
  });

  it('without APP_SECRET uses DATA_DIR/secret.key (created 0600) and its key check follows the key', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-box-'));
    const first = new SecretBox(loadConfig({}, { dataDir }));
    const file = path.join(dataDir, 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = new SecretBox(loadConfig({}, { dataDir }));
    expect(again.decrypt(first.encrypt('k-123456789012', 'a'), 'a')).toBe('k-123456789012');
    expect(again.matchesKeyCheck(first.keyCheck())).toBe(true);
    fs.rmSync(file);
    const replaced = new SecretBox(loadConfig({}, { dataDir }));
    expect(replaced.matchesKeyCheck(first.keyCheck())).toBe(false);
  });

  it('masks keys as prefix...last4, and short ones entirely', () => {
    expect(maskApiKey('sk-proj-abcdefghijklmnop1234')).toBe('sk-...1234');
    expect(maskApiKey('sk-ant-api03-zzzzzzzzzzzzwxyz')).toBe('sk-...wxyz');
    expect(maskApiKey('short')).toBe('****');
  });
});
