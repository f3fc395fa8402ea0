/** The API keys calls of the console, and the global setting that requires a key on /interact. */
import { ApiKeyCreateSchema, type ApiKeyCreate, type ApiKeyInfo, type IssuedApiKey } from '@shared/contracts/api-keys';
import { GlobalSettingsUpdateSchema, type GlobalSettings } from '@shared/contracts/config';
import { apiRequest } from '../../../../lib/api';

export const apiKeysApi = {
  list: (signal?: AbortSignal) => apiRequest<{ data: ApiKeyInfo[] }>('/api/api-keys', { signal }).then((r) => r.data),
  issue: (input: ApiKeyCreate) => apiRequest<{ data: IssuedApiKey }>('/api/api-keys', { method: 'POST', body: input, contract: ApiKeyCreateSchema }).then((r) => r.data),
  revoke: (id: string) => apiRequest(`/api/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  requireApiKey: (signal?: AbortSignal) => apiRequest<{ data: { global: GlobalSettings } }>('/api/config', { signal }).then((r) => r.data.global.requireApiKey),
  setRequireApiKey: (requireApiKey: boolean) =>
    apiRequest<{ data: GlobalSettings }>('/api/config/global', { method: 'PUT', body: { requireApiKey }, contract: GlobalSettingsUpdateSchema }).then((r) => r.data.requireApiKey),
};
