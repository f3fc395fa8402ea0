import { Plus, Trash2 } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ENABLED_VERTICAL_IDS, getVertical } from '@shared/catalog/verticals';
import type { BudgetInput, CapBehaviour } from '@shared/contracts/limits';
import { BUDGETS } from '../strings';

interface Row {
  key: number;
  scope: string;
  monthlyUsd: string;
  softPercent: string;
  onCap: CapBehaviour;
}

export interface BudgetEditorProps {
  budgets: BudgetInput[];
  visitorDailyTokens: number | null;
  agentIds: string[];
  saving: boolean;
  error?: string;
  saved: boolean;
  onSave(list: BudgetInput[], visitorDailyTokens: number | null): void;
}

function scopeLabel(scope: string): string {
  if (scope === 'global') return BUDGETS.edit.global;
  if (scope.startsWith('vertical:')) return BUDGETS.edit.vertical(getVertical(scope.slice(9))?.name ?? scope.slice(9));
  return BUDGETS.edit.agent(scope.slice(6));
}

let nextKey = 1;
const toRow = (b: BudgetInput): Row => ({
  key: nextKey++,
  scope: b.scope,
  monthlyUsd: String(b.monthlyUsd),
  softPercent: String(b.softPercent ?? 80),
  onCap: b.onCap ?? 'refuse',
});

/**
 * Edits the budgets: one row per scope (all chats, a vertical, an agent) with its monthly limit,
 * soft threshold and behaviour at the limit, and the tokens per visitor per day. Saved together
 * (PUT /api/config/global); the server's contract checks the values and says what to fix.
 */
export function BudgetEditor({ budgets, visitorDailyTokens, agentIds, saving, error, saved, onSave }: BudgetEditorProps) {
  const ids = useId();
  const [rows, setRows] = useState<Row[]>(() => budgets.map(toRow));
  const [tokens, setTokens] = useState(visitorDailyTokens === null ? '' : String(visitorDailyTokens));
  // The stored budgets changed (saved here or elsewhere): the form shows them.
  const synced = useRef(JSON.stringify([budgets, visitorDailyTokens]));
  useEffect(() => {
    const next = JSON.stringify([budgets, visitorDailyTokens]);
    if (next === synced.current) return;
    synced.current = next;
    setRows(budgets.map(toRow));
    setTokens(visitorDailyTokens === null ? '' : String(visitorDailyTokens));
  }, [budgets, visitorDailyTokens]);

  const scopes = ['global', ...ENABLED_VERTICAL_IDS.map((v) => `vertical:${v}`), ...agentIds.map((id) => `agent:${id}`)];
  const free = scopes.filter((s) => !rows.some((r) => r.scope === s));
  const change = (key: number, patch: Partial<Row>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const list = rows.map((r) => ({ scope: r.scope, monthlyUsd: Number(r.monthlyUsd), softPercent: Number(r.softPercent), onCap: r.onCap }));
    onSave(list, tokens.trim() === '' ? null : Number(tokens));
  };

  return (
    <form className="budget-editor" onSubmit={submit} aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>{BUDGETS.edit.title}</h3>
      {rows.map((row) => (
        <fieldset key={row.key} className="budget-row">
          <legend className="sr-only">{scopeLabel(row.scope)}</legend>
          <label>
            <span>{BUDGETS.edit.scope}</span>
            <select value={row.scope} onChange={(e) => change(row.key, { scope: e.target.value })}>
              {[row.scope, ...free].map((s) => (
                <option key={s} value={s}>
                  {scopeLabel(s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{BUDGETS.edit.monthly}</span>
            <input type="number" min={0} step="any" inputMode="decimal" value={row.monthlyUsd} onChange={(e) => change(row.key, { monthlyUsd: e.target.value })} required />
          </label>
          <label>
            <span>{BUDGETS.edit.soft}</span>
            <input type="number" min={1} max={100} step={1} value={row.softPercent} onChange={(e) => change(row.key, { softPercent: e.target.value })} required />
          </label>
          <label>
            <span>{BUDGETS.edit.onCap}</span>
            <select value={row.onCap} onChange={(e) => change(row.key, { onCap: e.target.value as CapBehaviour })}>
              <option value="refuse">{BUDGETS.edit.refuse}</option>
              <option value="offline">{BUDGETS.edit.offline}</option>
            </select>
          </label>
          <button type="button" className="budget-remove" aria-label={BUDGETS.edit.removeLabel(scopeLabel(row.scope))} onClick={() => setRows((all) => all.filter((r) => r.key !== row.key))}>
            <Trash2 size={16} aria-hidden="true" />
            {BUDGETS.edit.remove}
          </button>
        </fieldset>
      ))}
      <div className="budget-editor-actions">
        <button
          type="button"
          className="budget-add"
          disabled={free.length === 0}
          onClick={() => setRows((all) => [...all, toRow({ scope: free[0], monthlyUsd: 100, softPercent: 80, onCap: 'refuse' })])}
        >
          <Plus size={16} aria-hidden="true" />
          {BUDGETS.edit.add}
        </button>
        <label className="budget-tokens">
          <span>{BUDGETS.edit.visitorTokens}</span>
          <input type="number" min={1} step={1} value={tokens} placeholder={BUDGETS.edit.visitorTokensHint} onChange={(e) => setTokens(e.target.value)} />
        </label>
        <button type="submit" className="budget-save" disabled={saving}>
          {saving ? BUDGETS.edit.saving : BUDGETS.edit.save}
        </button>
      </div>
      {error && (
        <p className="budget-error" role="alert">
          {error}
        </p>
      )}
      {saved && !error && (
        <p className="budget-saved" role="status">
          {BUDGETS.edit.saved}
        </p>
      )}
    </form>
  );
}
