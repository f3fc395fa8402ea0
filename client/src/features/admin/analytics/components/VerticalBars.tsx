import { formatCount, verticalLabel } from '../format';
import { ANALYTICS } from '../strings';

/** 'Requests by Vertical': one bar per vertical (hyphens shown as spaces), width = its share of all requests. */
export function VerticalBars({ requestsByVertical }: { requestsByVertical: Record<string, number> }) {
  const entries = Object.entries(requestsByVertical).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return <p className="analytics-empty">{ANALYTICS.verticals.empty}</p>;
  return (
    <ul className="stack-list">
      {entries.map(([vertical, count]) => {
        const share = (count / total) * 100;
        return (
          <li key={vertical} className="vertical-bar" data-vertical={vertical}>
            <div className="vertical-bar-head">
              <span className="vertical-bar-label">{verticalLabel(vertical)}</span>
              <span className="vertical-bar-count">{formatCount(count)}</span>
            </div>
            <div className="vertical-bar-track" aria-hidden="true">
              <div className="vertical-bar-fill" style={{ width: `${share}%` }} />
            </div>
          </li>
        );
      })}
    </ul>
  );
}
