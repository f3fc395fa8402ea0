import { CircleAlert, CircleCheck } from 'lucide-react';

/** Errors in a red banner, successes in a green one (announced to screen readers). */
export function Banner({ kind, children }: { kind: 'error' | 'success'; children: string }) {
  const Icon = kind === 'error' ? CircleAlert : CircleCheck;
  return (
    <div className={`login-banner is-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      <Icon size={18} aria-hidden="true" />
      <span>{children}</span>
    </div>
  );
}
