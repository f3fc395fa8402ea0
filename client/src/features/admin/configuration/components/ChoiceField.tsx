import { AGENT_VERTICAL_IDS } from '@shared/catalog/verticals';
import { PROVIDER_IDS } from '@shared/catalog/providers';
import type { AgentVertical, ProviderId } from '../api/config-api';
import { CONFIG } from '../strings';

export const VERTICAL_OPTIONS = AGENT_VERTICAL_IDS as readonly AgentVertical[];
export const PROVIDER_OPTIONS = PROVIDER_IDS as readonly ProviderId[];

/** A labelled select of the dialogs' config-field layout. */
export function ChoiceField<T extends string>(props: { id: string; label: string; value: T; options: readonly T[]; optionLabel?(value: T): string; onChange(value: T): void }) {
  const { id, label, value, options, optionLabel = (v) => v, onChange } = props;
  return (
    <div className="config-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((option) => (
          <option key={option} value={option}>
            {optionLabel(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

export const verticalOptionLabel = (v: string) => CONFIG.verticals[v] ?? v;
