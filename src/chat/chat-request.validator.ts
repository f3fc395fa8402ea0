/**
 * Validates a chat request (the POST /interact body, also the socket's `chat:send`) against
 * product-spec section 5 and caps what we pass upstream. Every refusal is an AppError with its
 * own code, so REST, SSE and the socket report the same thing.
 */
import { AppError } from '../common/app-error';
import { getJurisdiction, Jurisdiction, requiresSubRegion } from '../shared/catalog/jurisdictions';
import { DEFAULT_LANGUAGE, getLanguageByCode, getLanguageByName, Language } from '../shared/catalog/languages';
import { EnabledVerticalId, getVertical } from '../shared/catalog/verticals';

export const MAX_QUERY_CHARS = 4000;
/** Conversation history kept for the prompt: the newest entries, by count and by total size. */
export const MAX_HISTORY_ENTRIES = 20;
export const MAX_HISTORY_CHARS = 16000;
const MAX_HISTORY_ENTRY_CHARS = 4000;
/** Entries beyond this many are refused as malformed rather than silently dropped. */
const MAX_HISTORY_ARRAY = 500;

export interface ValidatedChatRequest {
  query: string;
  vertical: EnabledVerticalId;
  userId: string;
  history: { role: 'user' | 'assistant'; content: string }[];
  language: Language;
  jurisdiction?: { code: string; name: string; legalSystem: string; subRegion?: string; subRegionLabel?: string };
}

function fail(message: string): never {
  throw new AppError('validation_failed', message);
}

function optionalString(body: Record<string, unknown>, field: string, max: number): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`"${field}" must be a string.`);
  if (value.length > max) fail(`"${field}" must be at most ${max} characters.`);
  return value.trim() === '' ? undefined : value.trim();
}

function resolveLanguage(value: string | undefined, field: string): Language | undefined {
  if (value === undefined) return undefined;
  const language = getLanguageByName(value) ?? getLanguageByCode(value.toLowerCase());
  if (!language) throw new AppError('unknown_language', `"${field}" is not a language we offer: ${value.slice(0, 40)}.`);
  return language;
}

function readHistory(raw: unknown): ValidatedChatRequest['history'] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) fail('"conversationHistory" must be a list of messages.');
  if (raw.length > MAX_HISTORY_ARRAY) fail(`"conversationHistory" may hold at most ${MAX_HISTORY_ARRAY} messages.`);
  const entries = raw.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null) fail(`conversationHistory[${i}] must be an object.`);
    const { type, content } = entry as { type?: unknown; content?: unknown };
    if (type !== 'user' && type !== 'agent') fail(`conversationHistory[${i}].type must be "user" or "agent".`);
    if (typeof content !== 'string') fail(`conversationHistory[${i}].content must be a string.`);
    return { role: type === 'user' ? ('user' as const) : ('assistant' as const), content: content.slice(0, MAX_HISTORY_ENTRY_CHARS) };
  });
  const kept: ValidatedChatRequest['history'] = [];
  let size = 0;
  for (let i = entries.length - 1; i >= 0 && kept.length < MAX_HISTORY_ENTRIES; i -= 1) {
    const entry = entries[i];
    if (entry.content.trim() === '') continue;
    if (size + entry.content.length > MAX_HISTORY_CHARS) break;
    size += entry.content.length;
    kept.unshift(entry);
  }
  return kept;
}

function readJurisdiction(body: Record<string, unknown>): ValidatedChatRequest['jurisdiction'] {
  const code = optionalString(body, 'jurisdiction', 10);
  if (!code) throw new AppError('jurisdiction_required', 'Please choose a jurisdiction before asking a legal question.');
  const jurisdiction: Jurisdiction | undefined = getJurisdiction(code);
  if (!jurisdiction) throw new AppError('unknown_jurisdiction', `Unknown jurisdiction: ${code}.`);
  const sub = optionalString(body, 'subJurisdiction', 100);
  let subRegion: string | undefined;
  if (sub !== undefined) {
    subRegion = jurisdiction.subRegions.find((r) => r.toLowerCase() === sub.toLowerCase());
    if (!subRegion) throw new AppError('unknown_jurisdiction', `"${sub}" is not a sub-region of ${jurisdiction.name}.`);
  } else if (requiresSubRegion(jurisdiction.code)) {
    const label = (jurisdiction.subRegionLabel ?? 'region').toLowerCase();
    throw new AppError('jurisdiction_required', `Please choose a ${label} of ${jurisdiction.name}.`);
  }
  return {
    code: jurisdiction.code,
    name: jurisdiction.name,
    legalSystem: jurisdiction.legalSystem,
    subRegion,
    subRegionLabel: jurisdiction.subRegionLabel,
  };
}

/**
 * Whether the global settings have a vertical switched on. The agents feature registers the check
 * (AgentRegistryService, kept current on every server through config:changed); the latest
 * registration wins, and without one every catalogue-enabled vertical is on.
 */
type VerticalSwitch = (id: EnabledVerticalId) => boolean;
const verticalSwitches: VerticalSwitch[] = [];

export function setVerticalSwitch(check: VerticalSwitch): () => void {
  verticalSwitches.push(check);
  return () => {
    const index = verticalSwitches.lastIndexOf(check);
    if (index >= 0) verticalSwitches.splice(index, 1);
  };
}

/** Vertical check: known, enabled in the catalogue, and not switched off in the global settings. */
function readVertical(body: Record<string, unknown>): EnabledVerticalId {
  const raw = body.vertical;
  if (typeof raw !== 'string' || raw.trim() === '') fail('"vertical" is required.');
  const vertical = getVertical(raw);
  if (!vertical) throw new AppError('unknown_vertical', `Unknown vertical: ${raw.slice(0, 40)}.`);
  if (!vertical.enabled) throw new AppError('vertical_disabled', `${vertical.name} is not available yet.`);
  const switchedOn = verticalSwitches[verticalSwitches.length - 1];
  if (switchedOn && !switchedOn(vertical.id as EnabledVerticalId)) {
    throw new AppError('vertical_disabled', `${vertical.name} is not available right now.`);
  }
  return vertical.id as EnabledVerticalId;
}

export function validateChatRequest(input: unknown): ValidatedChatRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('The request body must be a JSON object.');
  const body = input as Record<string, unknown>;
  if (body.query === undefined || body.query === null) throw new AppError('query_empty', 'Please type a question.');
  if (typeof body.query !== 'string') fail('"query" must be a string.');
  const query = body.query.trim();
  if (query === '') throw new AppError('query_empty', 'Please type a question.');
  if (body.query.length > MAX_QUERY_CHARS) {
    throw new AppError('query_too_long', `Questions can be at most ${MAX_QUERY_CHARS} characters long.`);
  }
  const vertical = readVertical(body);
  const userId = optionalString(body, 'userId', 200) ?? 'anonymous';

  const context = body.context;
  if (context !== undefined && context !== null && (typeof context !== 'object' || Array.isArray(context))) {
    fail('"context" must be an object.');
  }
  const ctx = (context ?? {}) as Record<string, unknown>;
  const preferred =
    resolveLanguage(optionalString(body, 'preferredLanguage', 40), 'preferredLanguage') ??
    resolveLanguage(optionalString(ctx, 'preferredLanguage', 40), 'context.preferredLanguage');
  resolveLanguage(optionalString(body, 'detectedLanguage', 40), 'detectedLanguage');
  if (ctx.skipTranslation !== undefined && typeof ctx.skipTranslation !== 'boolean') {
    fail('"context.skipTranslation" must be true or false.');
  }
  const history = readHistory(body.conversationHistory);
  const jurisdiction = vertical === 'legal' ? readJurisdiction(body) : undefined;
  return { query, vertical, userId, history, language: preferred ?? DEFAULT_LANGUAGE, jurisdiction };
}

/** The socket's requestId: client-chosen, short, printable. */
export function validateRequestId(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9._:-]{1,100}$/.test(value)) {
    fail('"requestId" must be 1-100 letters, digits or . _ : -');
  }
  return value;
}
