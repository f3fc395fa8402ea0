import { CONFIG } from '../strings';

/** `typed`: the test was of a key typed in the dialog, not the stored one. */
export type KeyTestState = { state: 'testing'; typed?: boolean } | { state: 'valid' | 'invalid'; reason: string; typed?: boolean };

/** Valid / Invalid after a key test; nothing before one (or while it runs). */
export function KeyBadge({ test }: { test: KeyTestState | undefined }) {
  if (!test || test.state === 'testing') return null;
  const valid = test.state === 'valid';
  return (
    <span className={`config-badge ${valid ? 'is-valid' : 'is-invalid'}`} title={test.reason}>
      {valid ? CONFIG.valid : CONFIG.invalid}
    </span>
  );
}
