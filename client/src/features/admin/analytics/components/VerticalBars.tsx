import { formatCount, verticalLabel } from '../format';
import { ANALYTICS } from '../strings';

/** One bar per key, width = its share of the total, largest first. */
function ShareBars({ counts, label, empty, kind }: { counts: Record<string, number>; label: (key: string) => string; empty: string; kind: string }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return <p className="analytics-empty">{empty}</p>;
  return (
    <ul className="stack-list">
      {entries.map(([key, count]) => {
        const share = (count / total) * 100;
        return (
          <li key={key} className="vertical-bar" {...{ [`data-${kind}`]: key }}>
            <div className="vertical-bar-head">
              <span className="vertical-bar-label">{label(key)}</span>
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

/** 'Requests by Vertical': one bar per vertical (hyphens shown as spaces), width = its share of all requests. */
export function VerticalBars({ requestsByVertical }: { requestsByVertical: Record<string, number> }) {
  return <ShareBars counts={requestsByVertical} label={verticalLabel} empty={ANALYTICS.verticals.empty} kind="vertical" />;
}

/** 'Requests by Channel': the chat page and widget, /interact, A2A agents and MCP tools. */
export function ChannelBars({ requestsByChannel }: { requestsByChannel: Record<string, number> }) {
  const label = (channel: string) => (ANALYTICS.channels.names as Record<string, string>)[channel] ?? channel;
  return <ShareBars counts={requestsByChannel} label={label} empty={ANALYTICS.verticals.empty} kind="channel" />;
}
