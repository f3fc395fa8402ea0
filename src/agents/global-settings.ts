/**
 * The global settings of the Configuration tab ('Global Settings' and 'Security & System
 * Settings'), their defaults, and the parser for PUT /api/config/global.
 *
 * - responseTemperature: the temperature of agents that have none of their own.
 * - maxResponseLength: the upper bound (tokens) on every reply; an agent's own max tokens applies
 *   below it.
 * - defaultLanguage: the chat page's initial language (a language code).
 * - verticals: which verticals visitors can use; a switched-off one is shown disabled on the chat
 *   page and refused by the server.
 * - enableAnalytics: off -> chats record no usage events.
 * - debugMode: on -> debug and verbose logs on every server.
 */
import { AppError } from '../common/app-error';
import { getLanguageByCode, LANGUAGES } from '../shared/catalog/languages';
import { ENABLED_VERTICAL_IDS, EnabledVerticalId, getVertical, isEnabledVertical } from '../shared/catalog/verticals';

export type { GlobalSettings } from '../shared/contracts/config';
import type { GlobalSettings } from '../shared/contracts/config';

export const MAX_RESPONSE_LENGTH_LIMIT = 200_000;

export const DEFAULT_GLOBAL_SETTINGS: Readonly<GlobalSettings> = Object.freeze({
  responseTemperature: 0.7,
  maxResponseLength: 500,
  defaultLanguage: 'en',
  verticals: Object.fromEntries(ENABLED_VERTICAL_IDS.map((id) => [id, true])) as Record<EnabledVerticalId, boolean>,
  enableAnalytics: true,
  debugMode: false,
});

/** The settings row that holds them (JSON). */
export const GLOBAL_SETTINGS_KEY = 'config.global';

function fail(message: string, code: 'validation_failed' | 'unknown_vertical' | 'unknown_language' = 'validation_failed'): never {
  throw new AppError(code, message);
}

const FIELDS = ['responseTemperature', 'maxResponseLength', 'defaultLanguage', 'verticals', 'enableAnalytics', 'debugMode'];

/** Stored JSON -> settings, falling back to the defaults field by field (a new field needs no migration). */
export function readStoredSettings(json: string | undefined): GlobalSettings {
  let stored: Partial<GlobalSettings> = {};
  try {
    stored = json ? (JSON.parse(json) as Partial<GlobalSettings>) : {};
  } catch {
    stored = {};
  }
  return {
    ...DEFAULT_GLOBAL_SETTINGS,
    ...stored,
    verticals: { ...DEFAULT_GLOBAL_SETTINGS.verticals, ...(stored.verticals ?? {}) },
  };
}

/** Applies a PUT body (any subset of the fields) to the current settings; unknown fields are refused. */
export function applySettingsUpdate(current: GlobalSettings, input: unknown): GlobalSettings {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('The request body must be a JSON object.');
  const body = input as Record<string, unknown>;
  const unknown = Object.keys(body).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) fail(`Unknown setting: ${unknown[0].slice(0, 40)}.`);
  const next: GlobalSettings = { ...current, verticals: { ...current.verticals } };

  if (body.responseTemperature !== undefined) {
    const t = body.responseTemperature;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) fail('"responseTemperature" must be a number from 0 to 1.');
    next.responseTemperature = t;
  }
  if (body.maxResponseLength !== undefined) {
    const n = body.maxResponseLength;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_RESPONSE_LENGTH_LIMIT) {
      fail(`"maxResponseLength" must be a whole number of tokens from 1 to ${MAX_RESPONSE_LENGTH_LIMIT}.`);
    }
    next.maxResponseLength = n;
  }
  if (body.defaultLanguage !== undefined) {
    const code = body.defaultLanguage;
    if (typeof code !== 'string' || !getLanguageByCode(code)) {
      fail(`"defaultLanguage" must be one of ${LANGUAGES.map((l) => l.code).join(', ')}.`, 'unknown_language');
    }
    next.defaultLanguage = code;
  }
  if (body.verticals !== undefined) {
    const v = body.verticals;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail('"verticals" must map vertical ids to true or false.');
    for (const [id, on] of Object.entries(v as Record<string, unknown>)) {
      if (!isEnabledVertical(id)) {
        fail(getVertical(id) ? `The vertical ${id} cannot be switched on yet.` : `Unknown vertical: ${id.slice(0, 40)}.`, 'unknown_vertical');
      }
      if (typeof on !== 'boolean') fail(`"verticals.${id}" must be true or false.`);
      next.verticals[id] = on;
    }
  }
  for (const flag of ['enableAnalytics', 'debugMode'] as const) {
    if (body[flag] === undefined) continue;
    if (typeof body[flag] !== 'boolean') fail(`"${flag}" must be true or false.`);
    next[flag] = body[flag];
  }
  return next;
}
