import { formatPercent } from '../../../../lib/format';
import { successLevel } from '../format';

const COLOUR = { good: 'green', warning: 'yellow', bad: 'red' } as const;
const TONE = { good: 'is-ok', warning: 'is-warn', bad: 'is-danger' } as const;

/** (1 - errorRate) as a percent with one decimal; green below 2% errors, yellow below 5%, red otherwise. */
export function SuccessRateBadge({ errorRate }: { errorRate: number }) {
  const level = successLevel(errorRate);
  const colour = COLOUR[level];
  return (
    <span className={`success-badge tone ${TONE[level]}`} data-colour={colour}>
      {formatPercent(1 - errorRate, 1)}
    </span>
  );
}
