import { ARGON2_OPTIONS, hashPassword, verifyPassword } from './passwords';

describe('passwords', () => {
  it('hashes with argon2id m=19456 t=2 p=1 and verifies', async () => {
    const hash = await hashPassword('a perfectly fine password');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(ARGON2_OPTIONS).toMatchObject({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    await expect(verifyPassword(hash, 'a perfectly fine password')).resolves.toBe(true);
    await expect(verifyPassword(hash, 'a perfectly fine passworD')).resolves.toBe(false);
  });

  it('salts: the same password hashes differently', async () => {
    expect(await hashPassword('same password here')).not.toBe(await hashPassword('same password here'));
  });

  it('accepts 12 to 128 characters, counted as characters (not bytes), with no composition rules', async () => {
    await expect(hashPassword('x'.repeat(11))).rejects.toThrow('at least 12');
    await expect(hashPassword('x'.repeat(129))).rejects.toThrow('at most 128');
    await expect(hashPassword('aaaaaaaaaaaa')).resolves.toMatch(/^\$argon2id/);
    await expect(hashPassword('🔑'.repeat(128))).resolves.toMatch(/^\$argon2id/);
  });

  it('a missing or broken hash never verifies', async () => {
    await expect(verifyPassword(null, 'anything at all')).resolves.toBe(false);
    await expect(verifyPassword('not-a-hash', 'anything at all')).resolves.toBe(false);
  });
});
