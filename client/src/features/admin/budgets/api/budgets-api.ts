/** GET /api/budgets and the budget settings (PUT /api/config/global `budgets`), as the Budgets tab uses them. */
import { GlobalSettingsUpdateSchema, type GlobalSettings, type SystemConfigDto } from '@shared/contracts/config';
import type { BudgetInput, BudgetOverview } from '@shared/contracts/limits';
import { apiRequest } from '../../../../lib/api';

import type { SuccessEnvelope as Data } from '@shared/contracts/http';

export const budgetsApi = {
  async overview(signal?: AbortSignal): Promise<BudgetOverview> {
    return (await apiRequest<Data<BudgetOverview>>('/api/budgets', { signal })).data;
  },
  /** The agents (for per-agent budgets) and the stored budget settings. */
  async config(signal?: AbortSignal): Promise<SystemConfigDto> {
    return (await apiRequest<Data<SystemConfigDto>>('/api/config', { signal })).data;
  },
  async save(list: BudgetInput[], visitorDailyTokens: number | null): Promise<GlobalSettings> {
    const body = { budgets: { list, visitorDailyTokens } };
    return (await apiRequest<Data<GlobalSettings>>('/api/config/global', { method: 'PUT', body, contract: GlobalSettingsUpdateSchema })).data;
  },
};
