import { KEY_TEST } from '../strings';

/** `typed`: the test was of a key typed in the dialog, not the stored one. */
export type KeyTestState = { state: 'testing'; typed?: boolean } | { state: 'valid' | 'invalid'; reason: string; typed?: boolean };

/** Valid / Invalid after a key test (an agent's, or the embeddings'); nothing before one (or while it runs). */
export function KeyBadge({ test }: { test: KeyTestState | undefined }) {
  if (!test || test.state === 'testing') return null;
  const valid = test.state === 'valid';
  return (
    <span className={`config-badge tone ${valid ? 'is-ok' : 'is-danger'}`} title={test.reason}>
      {valid ? KEY_TEST.valid : KEY_TEST.invalid}
    </span>
  );
}
