import { LOGIN } from '../strings';

/** The three-dot progress of the login screen: email, method, then password or code (a fourth dot for the authenticator code). */
export function StepProgress({ current, total = 3 }: { current: number; total?: 3 | 4 }) {
  return (
    <ol className="login-progress" aria-label={LOGIN.progressLabel}>
      {Array.from({ length: total }, (_, i) => i + 1).map((step) => (
        <li
          key={step}
          className={`login-dot${step === current ? ' is-current' : ''}${step < current ? ' is-done' : ''}`}
          aria-current={step === current ? 'step' : undefined}
        >
          <span className="sr-only">{LOGIN.stepOf(step, total)}</span>
        </li>
      ))}
    </ol>
  );
}
