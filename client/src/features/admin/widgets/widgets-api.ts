/** The widget calls of the console. */
import { WidgetSettingsSchema, type Widget, type WidgetRequests, type WidgetSettingsInput, type WidgetWithSecret } from '@shared/contracts/widgets';
import { apiRequest } from '../../../lib/api';

export const widgetsApi = {
  list: (signal?: AbortSignal) => apiRequest<{ data: Widget[] }>('/api/widgets', { signal }).then((r) => r.data),
  create: (input: WidgetSettingsInput) => apiRequest<{ data: WidgetWithSecret }>('/api/widgets', { method: 'POST', body: input, contract: WidgetSettingsSchema }).then((r) => r.data),
  update: (id: string, input: WidgetSettingsInput) =>
    apiRequest<{ data: Widget }>(`/api/widgets/${encodeURIComponent(id)}`, { method: 'PUT', body: input, contract: WidgetSettingsSchema }).then((r) => r.data),
  remove: (id: string) => apiRequest(`/api/widgets/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  rotate: (id: string) => apiRequest<{ data: WidgetWithSecret }>(`/api/widgets/${encodeURIComponent(id)}/secret`, { method: 'POST' }).then((r) => r.data),
  requests: (signal?: AbortSignal) => apiRequest<{ data: WidgetRequests[] }>('/api/analytics/widgets', { signal }).then((r) => r.data),
};
