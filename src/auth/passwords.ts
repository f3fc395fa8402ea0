/** Password hashing: argon2id with the OWASP minimum (m=19456 KiB, t=2, p=1). */
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { passwordProblem } from '../config/app-config';
import { AppError } from '../common/app-error';

// Algorithm is a const enum (not usable under isolatedModules): 2 is Argon2id.
const ARGON2ID = 2 as Algorithm;
export const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** Hashed once at load: compared against when the email is unknown, so both paths take as long. */
let dummyHash: Promise<string> | undefined;

export async function hashPassword(password: string): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('validation_failed', `The password ${problem}.`);
  return hash(password, ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    dummyHash ??= hash('not-a-real-password-0000', ARGON2_OPTIONS);
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
