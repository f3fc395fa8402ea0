import { Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { AdminEventsModule } from '../admin-events/admin-events.module';
import { AgentsModule } from '../agents/agents.module';
import { AnalyticsModule } from '../analytics/analytics.module';
import { AnalyticsService } from '../analytics/analytics.service';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MailModule } from '../mail/mail.module';
import { BUDGET_LEDGER, BudgetLedger, MemoryBudgetLedger } from './budget-ledger';
import { BudgetService } from './budget.service';
import { BudgetsController } from './budgets.controller';
import { ChatLimitsService } from './chat-limits.service';
import { LimitsClock } from './limits-clock';
import { RedisBudgetLedger } from './redis-budget-ledger';
import { storedSpend } from './stored-spend';

@Injectable()
class LedgerCloser implements OnApplicationShutdown {
  constructor(@Inject(BUDGET_LEDGER) private readonly ledger: BudgetLedger) {}

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.close();
  }
}

/**
 * Cost and abuse control: chat rate limits (on the app's rate limiter) and monthly budgets (the
 * ledger: Redis with REDIS_URL, memory otherwise), both read from the global settings; the
 * refused requests counted for Analytics; GET /api/budgets.
 */
@Module({
  imports: [AgentsModule, AdminEventsModule, MailModule, AnalyticsModule],
  controllers: [BudgetsController],
  providers: [
    {
      provide: BUDGET_LEDGER,
      inject: [APP_CONFIG, AnalyticsService],
      useFactory: (config: AppConfig, analytics: AnalyticsService): BudgetLedger => {
        const load = (month: string) => storedSpend(analytics, month);
        return config.redisUrl ? new RedisBudgetLedger(config.redisUrl, config.redisPrefix, load) : new MemoryBudgetLedger(load);
      },
    },
    LedgerCloser,
    LimitsClock,
    ChatLimitsService,
    BudgetService,
  ],
  exports: [ChatLimitsService, BudgetService, LimitsClock],
})
export class LimitsModule {}
