import type { RecentError } from '@shared/contracts/analytics';
import { TriangleAlert } from 'lucide-react';
import { formatTimestamp } from '../format';
import { ANALYTICS } from '../strings';

/** 'Recent Errors': agent, time and error text per entry, or 'No recent errors'. */
export function RecentErrors({ errors }: { errors: RecentError[] }) {
  if (errors.length === 0) return <p className="analytics-empty recent-errors-empty">{ANALYTICS.errors.empty}</p>;
  return (
    <ul className="recent-errors">
      {errors.map((error, i) => (
        <li key={`${error.timestamp}-${i}`} className="recent-error">
          <TriangleAlert size={16} aria-hidden="true" className="recent-error-icon" />
          <div>
            <div className="recent-error-head">
              <span className="recent-error-agent">{error.agent}</span>
              <time dateTime={error.timestamp}>{formatTimestamp(error.timestamp)}</time>
            </div>
            <p className="recent-error-text">{error.error}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
