/**
 * Spend per budget scope and month, and the holds of replies still running, behind one interface:
 * in this process (embedded), or in Redis with REDIS_URL so every server checks and spends against
 * the same figures. A reply holds its worst-case cost before the provider call (`reserve`, refused
 * when a capped scope's spent + held + this hold would pass its cap), and swaps the hold for what
 * it really cost when it ends (`settle`). Holds expire, so a server that dies mid-reply does not
 * keep its holds.
 *
 * A month's spend starts from the usage events already stored for it (the `load` callback), once
 * per month per ledger (Redis: once for all servers).
 */
export interface BudgetCharge {
  /** 'global', 'vertical:<id>', 'agent:<id>'. */
  scope: string;
  /** US dollars; null: no cap on this scope (only counted). */
  cap: number | null;
}

export type ReserveResult = { ok: true } | { ok: false; scope: string; spent: number; held: number };

export interface SpendFigures {
  spent: Record<string, number>;
  held: Record<string, number>;
}

export type SpendLoader = (month: string) => Promise<Record<string, number>>;

export interface BudgetLedger {
  readonly kind: 'memory' | 'redis';
  reserve(month: string, holdId: string, charges: BudgetCharge[], amountUsd: number, expiresAt: number, now: number): Promise<ReserveResult>;
  /** Ends a hold (if any) and adds what the reply cost; the scopes' new spend. */
  settle(month: string, holdId: string, scopes: string[], costUsd: number): Promise<Record<string, number>>;
  figures(month: string, now: number): Promise<SpendFigures>;
  /** Tokens a visitor used on a UTC day (`YYYY-MM-DD`), after adding `add`. */
  visitorTokens(visitorKey: string, day: string, add: number): Promise<number>;
  close(): Promise<void>;
}

interface Hold {
  amount: number;
  scopes: string[];
  expiresAt: number;
}

/** One process's ledger. */
export class MemoryBudgetLedger implements BudgetLedger {
  readonly kind = 'memory' as const;
  private readonly months = new Map<string, { spent: Map<string, number>; holds: Map<string, Hold> }>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly tokens = new Map<string, number>();

  constructor(private readonly load: SpendLoader) {}

  async reserve(month: string, holdId: string, charges: BudgetCharge[], amountUsd: number, expiresAt: number, now: number): Promise<ReserveResult> {
    const m = await this.month(month);
    const held = this.heldByScope(m.holds, now);
    for (const charge of charges) {
      if (charge.cap === null) continue;
      const spent = m.spent.get(charge.scope) ?? 0;
      const holding = held.get(charge.scope) ?? 0;
      if (spent + holding + amountUsd > charge.cap) return { ok: false, scope: charge.scope, spent, held: holding };
    }
    m.holds.set(holdId, { amount: amountUsd, scopes: charges.map((c) => c.scope), expiresAt });
    return { ok: true };
  }

  async settle(month: string, holdId: string, scopes: string[], costUsd: number): Promise<Record<string, number>> {
    const m = await this.month(month);
    m.holds.delete(holdId);
    const result: Record<string, number> = {};
    for (const scope of scopes) {
      const next = (m.spent.get(scope) ?? 0) + costUsd;
      m.spent.set(scope, next);
      result[scope] = next;
    }
    return result;
  }

  async figures(month: string, now: number): Promise<SpendFigures> {
    const m = await this.month(month);
    return { spent: Object.fromEntries(m.spent), held: Object.fromEntries(this.heldByScope(m.holds, now)) };
  }

  async visitorTokens(visitorKey: string, day: string, add: number): Promise<number> {
    const key = `${day}|${visitorKey}`;
    const next = (this.tokens.get(key) ?? 0) + add;
    if (add !== 0) {
      this.tokens.set(key, next);
      // Yesterday's counts are of no use: drop other days' now and then.
      if (this.tokens.size > 10_000) for (const k of this.tokens.keys()) if (!k.startsWith(`${day}|`)) this.tokens.delete(k);
    }
    return next;
  }

  async close(): Promise<void> {
    this.months.clear();
  }

  private heldByScope(holds: Map<string, Hold>, now: number): Map<string, number> {
    const held = new Map<string, number>();
    for (const [id, hold] of holds) {
      if (hold.expiresAt <= now) {
        holds.delete(id);
        continue;
      }
      for (const scope of hold.scopes) held.set(scope, (held.get(scope) ?? 0) + hold.amount);
    }
    return held;
  }

  private async month(month: string) {
    let m = this.months.get(month);
    if (m) return m;
    let loading = this.loading.get(month);
    if (!loading) {
      loading = this.load(month).then((spent) => {
        if (!this.months.has(month)) this.months.set(month, { spent: new Map(Object.entries(spent)), holds: new Map() });
        // Only the current and the last month are ever asked for.
        for (const key of this.months.keys()) if (key < month && this.months.size > 2) this.months.delete(key);
      });
      this.loading.set(month, loading);
      loading.finally(() => this.loading.delete(month)).catch(() => undefined);
    }
    await loading;
    m = this.months.get(month);
    if (!m) throw new Error(`budget month ${month} not loaded`);
    return m;
  }
}

export const BUDGET_LEDGER = Symbol('BUDGET_LEDGER');
