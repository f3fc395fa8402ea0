import { LOGIN } from '../strings';

/** The three-dot progress of the login screen: email, method, then password or code. */
export function StepProgress({ current }: { current: 1 | 2 | 3 }) {
  return (
    <ol className="login-progress" aria-label={LOGIN.progressLabel}>
      {[1, 2, 3].map((step) => (
        <li
          key={step}
          className={`login-dot${step === current ? ' is-current' : ''}${step < current ? ' is-done' : ''}`}
          aria-current={step === current ? 'step' : undefined}
        >
          <span className="sr-only">{LOGIN.stepOf(step, 3)}</span>
        </li>
      ))}
    </ol>
  );
}
