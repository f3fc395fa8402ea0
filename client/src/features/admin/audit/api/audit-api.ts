/** The audit log calls of the console: a filtered page, the export links, the retention setting. */
import { AuditSettingsUpdateSchema, type AuditPage, type AuditSettings } from '@shared/contracts/audit';
import { apiRequest, buildUrl } from '../../../../lib/api';

export interface AuditFilterValues {
  member: string;
  action: string;
  target: string;
  search: string;
  /** yyyy-mm-dd (from the start of that day, UTC). */
  from: string;
  /** yyyy-mm-dd (to the end of that day, UTC). */
  to: string;
}

export const NO_FILTERS: AuditFilterValues = { member: '', action: '', target: '', search: '', from: '', to: '' };

export const auditApi = {
  page: (filters: AuditFilterValues, page: number, pageSize: number, signal?: AbortSignal) =>
    apiRequest<{ data: AuditPage }>('/api/audit', { query: { ...filters, page, pageSize }, signal }).then((r) => r.data),
  exportUrl: (filters: AuditFilterValues, format: 'csv' | 'json') => buildUrl('/api/audit/export', { ...filters, format }),
  settings: (signal?: AbortSignal) => apiRequest<{ data: AuditSettings }>('/api/audit/settings', { signal }).then((r) => r.data),
  setRetention: (retentionDays: number) =>
    apiRequest<{ data: AuditSettings }>('/api/audit/settings', { method: 'PUT', body: { retentionDays }, contract: AuditSettingsUpdateSchema }).then((r) => r.data),
};
