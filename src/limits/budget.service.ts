import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AdminEventsService } from '../admin-events/admin-events.service';
import { ACCESS } from '../shared/contracts/roles';
import { AgentRegistryService } from '../agents/agent-registry.service';
import type { AgentDefinition } from '../agents/agent.types';
import type { UsageChannel } from '../analytics/usage-event.entity';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { dialectOf } from '../database/data-source';
import { queuedWrite, writeTransaction } from '../database/write-queue';
import { MailOutboxService } from '../mail/mail-outbox.service';
import { getVertical } from '../shared/catalog/verticals';
import {
  monthBounds,
  monthOf,
  type Budget,
  type BudgetAlert,
  type BudgetOverview,
  type BudgetStatus,
} from '../shared/contracts/limits';
import { budgetAlertMail } from './budget-alert-mail';
import { BUDGET_LEDGER, type BudgetCharge, type BudgetLedger } from './budget-ledger';
import { scopesOf } from './stored-spend';
import { budgetExhaustedMessage, visitorQuotaMessage } from './limit-messages';
import { LimitedCounter } from '../analytics/limited-counter.service';
import { LimitsClock } from './limits-clock';

const DAY_MS = 86_400_000;
/** Live console updates: at most this often per server. */
const PUSH_INTERVAL_MS = 250;
/** A hold outlives the longest reply by this much, then expires (a server that died mid-reply). */
const HOLD_GRACE_MS = 60_000;
/** The prompt's tokens are estimated (src/llm/token-counter): the hold allows for an estimate this much short. */
const PROMPT_ESTIMATE_MARGIN = 1.25;

/** What the chat pipeline does after the budget check. */
export interface BudgetAdmission {
  /** Answer with the offline knowledge responder (a hard cap whose behaviour is "offline"). */
  offline: boolean;
  /** Ends the reply's hold with what it cost (tokens for the visitor's day). Call once. */
  settle(costUsd: number, tokens: number): Promise<void>;
}

export interface BudgetCheck {
  agent: AgentDefinition;
  vertical: string;
  visitorKey: string;
  language: string;
  channel: UsageChannel;
  /** The reply's worst-case cost (prompt estimate + max tokens, priced). */
  worstCaseUsd: number;
}


/**
 * The prompt's tokens for a hold, cheaply (the hold is on the path to the first token): a third of
 * its UTF-8 bytes (one token per CJK character, one per 3 bytes of other text, where English
 * averages about 4 characters a token), plus 4 a message. Above the token counter's estimate for
 * prose in every offered language; a prompt made mostly of punctuation could exceed it.
 */
export function estimatePromptTokens(messages: readonly { content: string }[]): number {
  let tokens = 0;
  for (const m of messages) tokens += Math.ceil(Buffer.byteLength(m.content, 'utf8') / 3) + 4;
  return tokens;
}

/** The worst-case cost of a reply: the prompt (estimated, with a margin) and the most it may write. */
export function worstCaseCost(price: { inputPerMillion: number; outputPerMillion: number }, promptTokens: number, maxTokens: number): number {
  return (promptTokens * PROMPT_ESTIMATE_MARGIN * price.inputPerMillion + maxTokens * price.outputPerMillion) / 1e6;
}

/**
 * Monthly budgets (calendar month, UTC): global, per vertical and per agent, each with a soft
 * threshold and a hard cap, and tokens per visitor per day. Before each provider call the reply
 * holds its worst-case cost in the ledger (refused when that could pass a cap); when it ends, the
 * hold becomes what it really cost (usage event figures, price table). So the spend can pass a cap
 * only by what replies cost beyond their worst case (the prompt estimate's margin): with the
 * Redis ledger this holds across servers. At the soft threshold and at the cap (both judged on
 * what was spent, never on holds), one mail to every admin (outbox) and a console banner, once
 * per budget, threshold and month whichever server sees it first (budget_alerts' primary key). At a cap the budget's behaviour applies: refuse with a
 * message in the visitor's language, or answer with the offline responder.
 */
@Injectable()
export class BudgetService {
  private readonly logger = new Logger('Budgets');
  /** Alerts this server knows were raised (month|scope|threshold): no database write per reply after. */
  private readonly raised = new Set<string>();
  private pushTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(BUDGET_LEDGER) private readonly ledger: BudgetLedger,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentRegistryService,
    private readonly adminEvents: AdminEventsService,
    private readonly outbox: MailOutboxService,
    private readonly counter: LimitedCounter,
    private readonly clock: LimitsClock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Free replies (the offline responder) pass without a check. */
  async admit(check: BudgetCheck): Promise<BudgetAdmission> {
    const settings = this.agents.globalSettings().budgets;
    const now = this.clock.now();
    const month = monthOf(now);
    const day = new Date(now).toISOString().slice(0, 10);
    const paid = check.agent.connection.provider !== 'local';
    if (!paid) return { offline: false, settle: async () => undefined };

    const budgets = new Map(settings.list.map((b) => [b.scope, b]));
    const scopes = scopesOf(check.agent.agentId, check.vertical);
    const charges: BudgetCharge[] = scopes.map((scope) => ({ scope, cap: budgets.get(scope)?.monthlyUsd ?? null }));
    const capped = charges.some((c) => c.cap !== null);
    const holdId = randomUUID();
    const amount = capped ? check.worstCaseUsd : 0;
    // The visitor's tokens today and the hold at once (one round trip with Redis).
    const [used, reserved] = await Promise.all([
      settings.visitorDailyTokens !== null ? this.ledger.visitorTokens(check.visitorKey, day, 0) : Promise.resolve(0),
      this.ledger.reserve(month, holdId, charges, amount, now + this.config.chatTimeoutMs + HOLD_GRACE_MS, now),
    ]);
    if (settings.visitorDailyTokens !== null && used >= settings.visitorDailyTokens) {
      if (reserved.ok) void this.ledger.settle(month, holdId, [], 0).catch((error: unknown) => this.logger.warn(`A budget hold was not released (it expires by itself): ${(error as Error).message}`));
      this.counter.count('visitor_tokens', check.channel, now);
      const retryAfterSeconds = Math.ceil((Math.floor(now / DAY_MS + 1) * DAY_MS - now) / 1000);
      throw new AppError('quota_exhausted', visitorQuotaMessage(check.language), { retryAfterSeconds });
    }
    if (!reserved.ok) {
      const budget = budgets.get(reserved.scope)!;
      this.counter.count('budget', check.channel, now);
      // The cap alert follows what was spent, never what running replies hold: refused only
      // because a burst holds the rest of the budget, the cap is not reached (those replies may
      // cost far less than their worst case). It is reached once what was spent leaves less than
      // this reply's worst case.
      if (capReachedBySpend(reserved.spent, amount, budget.monthlyUsd)) void this.raise(month, budget, 'cap', reserved.spent);
      if (budget.onCap === 'offline') return { offline: true, settle: async () => undefined };
      throw new AppError('budget_exhausted', budgetExhaustedMessage(check.language));
    }

    let settled = false;
    return {
      offline: false,
      settle: async (costUsd, tokens) => {
        if (settled) return;
        settled = true;
        try {
          const spend = await this.ledger.settle(month, holdId, scopes, costUsd);
          if (settings.visitorDailyTokens !== null && tokens > 0) await this.ledger.visitorTokens(check.visitorKey, day, tokens);
          this.afterSpend(month, spend);
        } catch (error) {
          this.logger.warn(`Spend not counted: ${(error as Error).message}`);
        }
      },
    };
  }

  /**
   * A hold for a call made before the reply's own (a question rewrite): its worst-case cost is
   * reserved like a reply's, and `settle` turns it into what it cost. Undefined when the hold would
   * pass a cap: the call is skipped (the reply's own admission then refuses or answers offline, and
   * counts and alerts once). Nothing to hold without a budget on the agent's scopes.
   */
  async holdExtra(agentId: string, vertical: string, worstCaseUsd: number): Promise<{ settle(costUsd: number): Promise<void> } | undefined> {
    const now = this.clock.now();
    const month = monthOf(now);
    const budgets = new Map(this.agents.globalSettings().budgets.list.map((b) => [b.scope, b]));
    const scopes = scopesOf(agentId, vertical);
    const charges: BudgetCharge[] = scopes.map((scope) => ({ scope, cap: budgets.get(scope)?.monthlyUsd ?? null }));
    const holdId = `extra-${randomUUID()}`;
    const amount = charges.some((c) => c.cap !== null) ? worstCaseUsd : 0;
    const reserved = await this.ledger.reserve(month, holdId, charges, amount, now + this.config.chatTimeoutMs + HOLD_GRACE_MS, now);
    if (!reserved.ok) return undefined;
    let settled = false;
    return {
      settle: async (costUsd) => {
        if (settled) return;
        settled = true;
        try {
          this.afterSpend(month, await this.ledger.settle(month, holdId, scopes, Math.max(0, costUsd)));
        } catch (error) {
          this.logger.warn(`Spend not counted: ${(error as Error).message}`);
        }
      },
    };
  }

  /** GET /api/budgets: each budget's spend this month, forecast and state, and this month's alerts. */
  async overview(): Promise<BudgetOverview> {
    const now = this.clock.now();
    const month = monthOf(now);
    const { start, end } = monthBounds(month);
    const settings = this.agents.globalSettings().budgets;
    const [figures, alerts] = await Promise.all([this.ledger.figures(month, now), this.alerts(month)]);
    const elapsed = (now - start) / (end - start);
    const budgets: BudgetStatus[] = settings.list.map((b) => {
      const spentUsd = round(figures.spent[b.scope] ?? 0);
      const heldUsd = round(figures.held[b.scope] ?? 0);
      // The rate so far, over at least one day (a forecast from the first minutes says nothing).
      const forecastUsd = round(spentUsd / Math.max(elapsed, DAY_MS / (end - start)));
      const state = spentUsd >= b.monthlyUsd ? 'capped' : spentUsd >= (b.monthlyUsd * b.softPercent) / 100 ? 'soft' : 'ok';
      return { scope: b.scope, label: labelOf(b.scope), monthlyUsd: b.monthlyUsd, softPercent: b.softPercent, onCap: b.onCap, spentUsd, heldUsd, forecastUsd, state };
    });
    const spendByScope = Object.fromEntries(Object.entries(figures.spent).map(([scope, usd]) => [scope, round(usd)]));
    return { month, elapsed: round(elapsed), budgets, spendByScope, alerts, visitorDailyTokens: settings.visitorDailyTokens };
  }

  private afterSpend(month: string, spend: Record<string, number>): void {
    const budgets = this.agents.globalSettings().budgets.list;
    for (const budget of budgets) {
      const spent = spend[budget.scope];
      if (spent === undefined) continue;
      if (spent >= budget.monthlyUsd) void this.raise(month, budget, 'cap', spent);
      if (spent >= (budget.monthlyUsd * budget.softPercent) / 100) void this.raise(month, budget, 'soft', spent);
    }
    this.schedulePush(month);
  }

  private schedulePush(month: string): void {
    if (this.pushTimer) return;
    this.pushTimer = setTimeout(() => {
      this.pushTimer = undefined;
      this.adminEvents.emit('budget:update', { month });
    }, PUSH_INTERVAL_MS);
    this.pushTimer.unref();
  }

  /** Raises an alert once per budget, threshold and month (every server together): mail to every owner and admin, console banner. */
  private async raise(month: string, budget: Budget, threshold: 'soft' | 'cap', spentUsd: number): Promise<void> {
    const key = `${month}|${budget.scope}|${threshold}`;
    if (this.raised.has(key)) return;
    this.raised.add(key);
    const at = this.clock.now();
    const alert: BudgetAlert = { scope: budget.scope, label: labelOf(budget.scope), threshold, month, at: new Date(at).toISOString(), spentUsd: round(spentUsd), monthlyUsd: budget.monthlyUsd };
    try {
      const mailIds = await writeTransaction(this.dataSource, async (manager) => {
        const pg = dialectOf(this.dataSource) === 'postgres';
        const values = [month, budget.scope, threshold, at, alert.spentUsd, budget.monthlyUsd];
        let claimed: boolean;
        if (pg) {
          const rows: unknown[] = await manager.query(
            'INSERT INTO budget_alerts (month, scope, threshold, created_at, spent_usd, monthly_usd) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING month',
            values,
          );
          claimed = rows.length > 0;
        } else {
          await manager.query('INSERT INTO budget_alerts (month, scope, threshold, created_at, spent_usd, monthly_usd) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', values);
          const [{ n }]: { n: number }[] = await manager.query('SELECT changes() AS n');
          claimed = Number(n) > 0;
        }
        // Another server raised it first.
        if (!claimed) return null;
        // Those who may see budgets: enabled owners and admins (agents and viewers never do).
        const admins: { email: string; name: string }[] = await manager.query(
          `SELECT email, name FROM admin_users WHERE disabled_at IS NULL AND role IN (${ACCESS.budgets.map((role) => `'${role}'`).join(', ')}) ORDER BY email`,
        );
        const ids: string[] = [];
        for (const admin of admins) ids.push(await this.outbox.add(manager, budgetAlertMail(admin, alert, budget), { kind: 'budget-alert' }));
        return ids;
      });
      if (mailIds === null) return;
      this.logger.log(`Budget ${alert.label}: ${threshold === 'soft' ? `soft threshold (${budget.softPercent}%)` : 'hard cap'} reached in ${month} ($${alert.spentUsd} of $${budget.monthlyUsd}); ${mailIds.length} admin(s) mailed`);
      for (const id of mailIds) void this.outbox.dispatch(id);
      this.adminEvents.emit('budget:update', { month, alert });
    } catch (error) {
      // Not raised: the next reply over the threshold tries again.
      this.raised.delete(key);
      this.logger.warn(`Budget alert for ${alert.label} not raised: ${(error as Error).message}`);
    }
  }

  private async alerts(month: string): Promise<BudgetAlert[]> {
    const pg = dialectOf(this.dataSource) === 'postgres';
    const rows: { scope: string; threshold: 'soft' | 'cap'; created_at: string | number; spent_usd: number; monthly_usd: number }[] = await queuedRead(this.dataSource, () =>
      this.dataSource.query(
        `SELECT scope, threshold, created_at, spent_usd, monthly_usd FROM budget_alerts WHERE month = ${pg ? '$1' : '?'} ORDER BY created_at DESC`,
        [month],
      ),
    );
    return rows.map((r) => ({
      scope: r.scope,
      label: labelOf(r.scope),
      threshold: r.threshold,
      month,
      at: new Date(Number(r.created_at)).toISOString(),
      spentUsd: Number(r.spent_usd),
      monthlyUsd: Number(r.monthly_usd),
    }));
  }
}

/** Reads need no queue; kept as one name so a read right after an alert sees it (SQLite: after the queued write). */
function queuedRead<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  return queuedWrite(dataSource, work);
}

/**
 * Whether a budget's cap is reached by what was spent (recorded costs): the spend is at the cap, or
 * the rest is less than what the reply asking now may cost at worst. Holds of other replies still
 * running do not count.
 */
export function capReachedBySpend(spentUsd: number, worstCaseUsd: number, capUsd: number): boolean {
  return spentUsd >= capUsd || spentUsd + worstCaseUsd > capUsd;
}

export function labelOf(scope: string): string {
  if (scope === 'global') return 'All chats';
  if (scope.startsWith('vertical:')) return getVertical(scope.slice('vertical:'.length))?.name ?? scope;
  return scope.slice('agent:'.length);
}

function round(usd: number): number {
  return Math.round(usd * 1e8) / 1e8;
}
