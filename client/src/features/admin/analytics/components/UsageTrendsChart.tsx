import type { HourlyUsagePoint } from '@shared/contracts/analytics';
import { useId, useState, type KeyboardEvent, type PointerEvent, type ReactElement } from 'react';
import { formatCount, formatDollars, formatHour } from '../format';
import { ANALYTICS } from '../strings';

type MetricKey = 'requests' | 'tokens' | 'cost';

interface Metric {
  key: MetricKey;
  label: string;
  kind: 'bars' | 'area';
  format: (value: number) => string;
}

const METRICS: Metric[] = [
  { key: 'requests', label: ANALYTICS.trends.requests, kind: 'bars', format: formatCount },
  { key: 'tokens', label: ANALYTICS.trends.tokens, kind: 'area', format: formatCount },
  { key: 'cost', label: ANALYTICS.trends.cost, kind: 'area', format: (v) => formatDollars(v) },
];

/** Each hour is this wide in the SVG's own units; the SVG stretches to the card's width. */
const STEP = 10;
const HEIGHT = 64;

function MetricChart({ metric, hourly, hover }: { metric: Metric; hourly: HourlyUsagePoint[]; hover: number | null }) {
  const values = hourly.map((h) => h[metric.key]);
  const total = values.reduce((s, v) => s + v, 0);
  const peak = Math.max(0, ...values);
  const scale = (v: number) => (peak > 0 ? (v / peak) * (HEIGHT - 4) : 0);
  const width = Math.max(1, hourly.length) * STEP;
  let shape: ReactElement;
  if (metric.kind === 'bars') {
    shape = (
      <g>
        {hourly.map((h, i) => {
          const height = scale(h.requests);
          const errors = scale(h.errors);
          return (
            <g key={h.hour} className="trend-bar" data-hour={h.hour}>
              {height > 0 && <rect x={i * STEP + 1} y={HEIGHT - height} width={STEP - 2} height={height} className="trend-fill" />}
              {errors > 0 && <rect x={i * STEP + 1} y={HEIGHT - errors} width={STEP - 2} height={errors} className="trend-errors" />}
            </g>
          );
        })}
      </g>
    );
  } else {
    const points = values.map((v, i) => `${i * STEP + STEP / 2},${HEIGHT - scale(v)}`);
    const line = points.length === 1 ? [`0,${HEIGHT - scale(values[0])}`, `${width},${HEIGHT - scale(values[0])}`] : points;
    const first = line[0].split(',')[0];
    const last = line[line.length - 1].split(',')[0];
    shape = (
      <g>
        <path d={`M${first},${HEIGHT} L${line.join(' L')} L${last},${HEIGHT} Z`} className="trend-area" />
        <polyline points={line.join(' ')} className="trend-line" vectorEffect="non-scaling-stroke" />
      </g>
    );
  }
  return (
    <div className={`trend-metric metric-${metric.key}`}>
      <div className="trend-metric-head">
        <span className="trend-metric-label">{metric.label}</span>
        <span className="trend-metric-figures">
          {metric.format(total)} · {ANALYTICS.trends.peak} {metric.format(peak)}
        </span>
      </div>
      <svg
        className="trend-svg"
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={ANALYTICS.trends.chartLabel(metric.label, metric.format(peak), metric.format(total))}
      >
        <line x1={0} x2={width} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="trend-baseline" vectorEffect="non-scaling-stroke" />
        {shape}
        {hover !== null && <rect x={hover * STEP} y={0} width={STEP} height={HEIGHT} className="trend-hover" />}
      </svg>
    </div>
  );
}

/**
 * 'Hourly Usage Trends': requests (errors in red), tokens and cost per clock hour of the window,
 * as three aligned charts sharing one time axis. Pointer or arrow keys show an hour's figures.
 */
export function UsageTrendsChart({ hourly }: { hourly: HourlyUsagePoint[] }) {
  const [hover, setHover] = useState<number | null>(null);
  const tooltipId = useId();
  const spansDays = hourly.length > 24;
  const point = hover !== null ? hourly[hover] : undefined;

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width <= 0 || hourly.length === 0) return;
    const index = Math.floor(((event.clientX - box.left) / box.width) * hourly.length);
    setHover(Math.min(hourly.length - 1, Math.max(0, index)));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const last = hourly.length - 1;
    const moves: Record<string, number> = {
      ArrowLeft: Math.max(0, (hover ?? last + 1) - 1),
      ArrowRight: Math.min(last, (hover ?? -1) + 1),
      Home: 0,
      End: last,
    };
    if (event.key === 'Escape') setHover(null);
    if (!(event.key in moves) || last < 0) return;
    event.preventDefault();
    setHover(moves[event.key]);
  };

  const ticks = hourly.length > 0 ? [0, Math.floor((hourly.length - 1) / 2), hourly.length - 1].filter((v, i, a) => a.indexOf(v) === i) : [];
  return (
    <div className="trends">
      <div
        className="trend-charts"
        tabIndex={0}
        aria-describedby={point ? tooltipId : undefined}
        onPointerMove={onPointerMove}
        onPointerLeave={() => setHover(null)}
        onKeyDown={onKeyDown}
        onBlur={() => setHover(null)}
      >
        {METRICS.map((metric) => (
          <MetricChart key={metric.key} metric={metric} hourly={hourly} hover={hover} />
        ))}
      </div>
      <div className="trend-axis" aria-hidden="true">
        {ticks.map((i) => (
          <span key={i} style={{ left: `${((i + 0.5) / hourly.length) * 100}%` }}>
            {formatHour(hourly[i].hour, spansDays)}
          </span>
        ))}
      </div>
      <p className="trend-tooltip" id={tooltipId} role="status">
        {point
          ? `${formatHour(point.hour, true)}: ${formatCount(point.requests)} ${ANALYTICS.trends.requests.toLowerCase()} (${formatCount(point.errors)} ${ANALYTICS.trends.errors}), ${formatCount(point.tokens)} ${ANALYTICS.trends.tokens.toLowerCase()}, ${formatDollars(point.cost)}`
          : '\u00a0'}
      </p>
    </div>
  );
}
