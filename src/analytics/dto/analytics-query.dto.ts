import { AppError } from '../../common/app-error';
import {
  ANALYTICS_WINDOWS,
  AnalyticsWindow,
  DEFAULT_ANALYTICS_WINDOW,
  EXPORT_FORMATS,
  ExportFormat,
  isAnalyticsWindow,
} from '../../shared/contracts/analytics';

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('validation_failed', `Give "${name}" once.`);
  return value;
}

/** `hours`: one of 1, 24, 168, 720 (default 24); anything else is a 400. */
export function parseHours(query: Record<string, unknown>): AnalyticsWindow {
  const raw = single(query.hours, 'hours');
  if (raw === undefined || raw === '') return DEFAULT_ANALYTICS_WINDOW;
  const hours = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
  if (!isAnalyticsWindow(hours)) {
    throw new AppError('validation_failed', `"hours" must be one of ${ANALYTICS_WINDOWS.join(', ')}.`, { field: 'hours' });
  }
  return hours;
}

/** `agentId`: optional, at most 100 characters. */
export function parseAgentId(query: Record<string, unknown>): string | undefined {
  const raw = single(query.agentId, 'agentId');
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > 100) throw new AppError('validation_failed', '"agentId" is too long.', { field: 'agentId' });
  return raw;
}

/** `format`: json (default) or csv. */
export function parseExportFormat(query: Record<string, unknown>): ExportFormat {
  const raw = single(query.format, 'format');
  if (raw === undefined || raw === '') return 'json';
  if (!(EXPORT_FORMATS as readonly string[]).includes(raw)) {
    throw new AppError('validation_failed', `"format" must be one of ${EXPORT_FORMATS.join(', ')}.`, { field: 'format' });
  }
  return raw as ExportFormat;
}
