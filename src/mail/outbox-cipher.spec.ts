import { randomBytes } from 'node:crypto';
import { decryptBody, encryptBody } from './outbox-cipher';

describe('outbox cipher', () => {
  const key = randomBytes(32);
  const body = { text: 'Verification code: 123456', html: '<p>123456</p>' };

  it('round-trips, and the stored form does not contain the plain text', () => {
    const sealed = encryptBody(key, 'row-1', body);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('123456');
    expect(decryptBody(key, 'row-1', sealed)).toEqual(body);
  });

  it('refuses another key, another row id, or a tampered payload', () => {
    const sealed = encryptBody(key, 'row-1', body);
    expect(() => decryptBody(randomBytes(32), 'row-1', sealed)).toThrow();
    expect(() => decryptBody(key, 'row-2', sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from(Buffer.from(parts[3], 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64url');
    expect(() => decryptBody(key, 'row-1', parts.join('.'))).toThrow();
  });
});
