import { Controller, Get } from '@nestjs/common';
import { Contract } from '../common/contract';
import { Roles } from '../auth/roles.decorator';
import { ACCESS } from '../shared/contracts/roles';
import { BudgetOverviewSchema, type BudgetOverview } from '../shared/contracts/limits';
import { BudgetService } from './budget.service';

/** GET /api/budgets (admin): the console's Budgets tab. Budgets are edited with PUT /api/config/global (`budgets`). */
@Controller('api/budgets')
export class BudgetsController {
  constructor(private readonly budgets: BudgetService) {}

  @Get()
  @Roles(...ACCESS.budgets)
  @Contract({
    summary: "This month's spend against each budget",
    description:
      'Each budget (global, per vertical, per agent) with its spend this calendar month (UTC), the worst-case cost held by replies still running, the forecast to month end at the current rate and its state (ok, soft: past the soft threshold, capped), the spend of every scope, and the alerts raised this month. Change the budgets with PUT /api/config/global `{budgets: {list, visitorDailyTokens}}`.',
    data: BudgetOverviewSchema,
  })
  async overview(): Promise<{ success: true; data: BudgetOverview }> {
    return { success: true, data: await this.budgets.overview() };
  }
}
