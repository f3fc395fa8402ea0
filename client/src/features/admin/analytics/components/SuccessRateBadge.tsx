import { formatPercent, successLevel } from '../format';

const COLOUR = { good: 'green', warning: 'yellow', bad: 'red' } as const;

/** (1 - errorRate) as a percent with one decimal; green below 2% errors, yellow below 5%, red otherwise. */
export function SuccessRateBadge({ errorRate }: { errorRate: number }) {
  const colour = COLOUR[successLevel(errorRate)];
  return (
    <span className={`success-badge badge-${colour}`} data-colour={colour}>
      {formatPercent(1 - errorRate)}
    </span>
  );
}
