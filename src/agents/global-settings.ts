/**
 * The global settings of the Configuration tab ('Global Settings' and 'Security & System
 * Settings'), their defaults, and how a checked PUT /api/config/global changes them.
 *
 * - responseTemperature: the temperature of agents that have none of their own.
 * - maxResponseLength: the upper bound (tokens) on every reply; an agent's own max tokens applies
 *   below it.
 * - defaultLanguage: the chat page's initial language (a language code).
 * - verticals: which verticals visitors can use; a switched-off one is shown disabled on the chat
 *   page and refused by the server.
 * - enableAnalytics: off -> chats record no usage events.
 * - debugMode: on -> debug and verbose logs on every server.
 * - conversationRetentionDays: visitors' conversations are deleted this many days after their last
 *   message (the daily purge job of src/conversations).
 * - chatLimits, budgets: chat rate limits and monthly budgets (src/limits).
 * - requireApiKey: /interact refuses requests without an API key (src/api-keys).
 */
import { ENABLED_VERTICAL_IDS, EnabledVerticalId, VERTICALS } from '../shared/catalog/verticals';
import { GlobalSettingsSchema, type GlobalSettings, type GlobalSettingsUpdateSchema, type PublicSettings } from '../shared/contracts/config';
import { RETENTION_DAYS } from '../shared/contracts/conversations';
import { BUDGET_DEFAULTS, CHAT_LIMIT_DEFAULTS } from '../shared/contracts/limits';
import type { z } from 'zod';

export type { GlobalSettings } from '../shared/contracts/config';
export { MAX_RESPONSE_LENGTH_LIMIT } from '../shared/contracts/config';

export const DEFAULT_GLOBAL_SETTINGS: Readonly<GlobalSettings> = Object.freeze({
  responseTemperature: 0.7,
  maxResponseLength: 500,
  defaultLanguage: 'en',
  verticals: Object.fromEntries(ENABLED_VERTICAL_IDS.map((id) => [id, true])) as Record<EnabledVerticalId, boolean>,
  enableAnalytics: true,
  debugMode: false,
  conversationRetentionDays: RETENTION_DAYS.default,
  chatLimits: CHAT_LIMIT_DEFAULTS,
  budgets: BUDGET_DEFAULTS,
  requireApiKey: false,
});

/** The settings row that holds them (JSON). */
export const GLOBAL_SETTINGS_KEY = 'config.global';

/** The stored settings as read: what applies, and what could not be read and was replaced by its default. */
export interface StoredSettingsRead {
  settings: GlobalSettings;
  /** One sentence per dropped value (empty when everything stored was read). */
  problems: string[];
}

/**
 * Stored JSON -> settings. A field that is missing takes its default (a new field needs no
 * migration); a field whose stored value is not valid, or a row that is not JSON at all, also
 * falls back to the default, and `problems` says what was dropped so that it is logged and shown
 * in the console instead of silently changing budgets or limits.
 */
export function readStoredSettings(json: string | undefined): StoredSettingsRead {
  let stored: Record<string, unknown> = {};
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      stored = parsed as Record<string, unknown>;
    } catch {
      return { settings: DEFAULT_GLOBAL_SETTINGS, problems: ['The stored global settings are not a JSON object; every setting is at its default until they are saved again.'] };
    }
  }
  const merged: Record<string, unknown> = {
    ...DEFAULT_GLOBAL_SETTINGS,
    ...stored,
    // Only the verticals this version knows (one removed since is no setting any more).
    verticals: Object.fromEntries(ENABLED_VERTICAL_IDS.map((id) => [id, asObject(stored.verticals)[id] ?? DEFAULT_GLOBAL_SETTINGS.verticals[id]])),
    chatLimits: { ...DEFAULT_GLOBAL_SETTINGS.chatLimits, ...asObject(stored.chatLimits) },
    budgets: { ...DEFAULT_GLOBAL_SETTINGS.budgets, ...asObject(stored.budgets) },
  };
  const settings: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, schema] of Object.entries(GlobalSettingsSchema.shape) as [keyof GlobalSettings, z.ZodType][]) {
    const checked = schema.safeParse(merged[key]);
    if (checked.success) {
      settings[key] = checked.data;
    } else {
      settings[key] = DEFAULT_GLOBAL_SETTINGS[key];
      const value = JSON.stringify(stored[key]) ?? 'undefined';
      problems.push(`The stored setting ${key} (${value.length > 80 ? `${value.slice(0, 80)}…` : value}) is not valid: ${checked.error.issues[0]?.message ?? 'wrong type'}; its default applies until it is saved again.`);
    }
  }
  return { settings: settings as GlobalSettings, problems };
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Applies a checked PUT body (GlobalSettingsUpdateSchema: any subset of the fields) to the current settings. */
export function applySettingsUpdate(current: GlobalSettings, update: z.output<typeof GlobalSettingsUpdateSchema>): GlobalSettings {
  const next: GlobalSettings = {
    ...current,
    verticals: { ...current.verticals, ...update.verticals },
    chatLimits: { ...current.chatLimits, ...definedOnly(update.chatLimits ?? {}) },
    budgets: {
      list: update.budgets?.list ?? current.budgets.list,
      visitorDailyTokens: update.budgets?.visitorDailyTokens !== undefined ? update.budgets.visitorDailyTokens : current.budgets.visitorDailyTokens,
    },
  };
  for (const key of ['responseTemperature', 'maxResponseLength', 'defaultLanguage', 'enableAnalytics', 'debugMode', 'conversationRetentionDays', 'requireApiKey'] as const) {
    if (update[key] !== undefined) (next as Record<typeof key, unknown>)[key] = update[key];
  }
  return next;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What the chat page sees of the global settings (GET /api/public/settings, the `settings:changed` push). */
export function publicSettingsOf(global: GlobalSettings): PublicSettings {
  const verticals = VERTICALS.map((v) => ({ id: v.id, enabled: v.enabled && global.verticals[v.id as keyof typeof global.verticals] !== false }));
  return { defaultLanguage: global.defaultLanguage, verticals, enabledVerticals: verticals.filter((v) => v.enabled).map((v) => v.id) };
}
