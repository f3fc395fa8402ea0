import { useEffect, useState } from 'react';
import { Hourglass } from 'lucide-react';
import { useStrings } from '../i18n';

export interface RateLimitNoticeProps {
  /** When sending is allowed again (epoch ms). */
  until: number;
  /** Called once the wait is over. */
  onElapsed(): void;
  /** The clock (tests pass their own). */
  now?: () => number;
}

/**
 * Shown above the composer when a rate limit refused a message: what happened and a countdown
 * to when it may be sent again (the question is back in the composer). Announced politely to
 * screen readers once, not at every tick.
 */
export function RateLimitNotice({ until, onElapsed, now = Date.now }: RateLimitNoticeProps) {
  const LIMITS = useStrings().limits;
  const left = () => Math.max(0, Math.ceil((until - now()) / 1000));
  const [seconds, setSeconds] = useState(left);

  useEffect(() => {
    setSeconds(left());
    const timer = setInterval(() => {
      const next = left();
      setSeconds(next);
      if (next === 0) {
        clearInterval(timer);
        onElapsed();
      }
    }, 250);
    return () => clearInterval(timer);
    // `left` reads `until` and `now`, the only inputs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [until, onElapsed]);

  return (
    <div className="rate-limit-notice" role="status" aria-live="polite" data-testid="rate-limit-notice">
      <Hourglass aria-hidden="true" size={18} />
      <div>
        <strong>{LIMITS.title}</strong>
        <span aria-atomic="true"> {seconds > 0 ? LIMITS.countdown(LIMITS.waitText(seconds)) : LIMITS.ready}</span>
      </div>
    </div>
  );
}
