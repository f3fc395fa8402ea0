/**
 * The field-level before/after of an audit entry, from two snapshots of a target (plain objects).
 *
 * - Nested objects are compared field by field (`llmConfig.model`); lists of objects that carry an
 *   identity (`id`, `scope`, `agentId`, `key`) by that identity (`budgets.list[scope=global]
 *   .monthlyUsd`); other lists as whole values (`tags`).
 * - A secret is snapshotted as `auditSecret(value)`: only a fingerprint of it, compared here and
 *   never stored; a change is recorded as `{ field, secret: true }`. As a second line, any field
 *   whose name says secret (…apiKey, …password, …token, …secret, …hash, …cipher, totp…) is treated the same
 *   way even if a snapshot forgot to mark it.
 * - Long text is cut to TEXT_LIMIT characters (a knowledge item may hold a megabyte).
 */
import { createHash } from 'node:crypto';
import type { AuditChange, AuditValue } from '../shared/contracts/audit';

export const TEXT_LIMIT = 1000;
/** At most this many changes per entry; the last one says how many more there were. */
export const CHANGE_LIMIT = 200;

/** Names that say secret (apiKey, password, totpSecret, tokenHash, ...), but not counts such as maxTokens. */
const SECRET_NAME = /(api_?key|password|passwd|secret|token|cipher|hash|credentials?)$|^totp/i;
const IDENTITY_KEYS = ['id', 'scope', 'agentId', 'key'] as const;

/** A secret in a snapshot: a fingerprint to compare, never the value. */
export class AuditSecret {
  constructor(readonly fingerprint: string | null) {}
}

/** Marks a secret in a snapshot (null or '' when there is none). */
export function auditSecret(value: string | null | undefined): AuditSecret {
  return new AuditSecret(value ? createHash('sha256').update(value).digest('hex') : null);
}

export type Snapshot = Record<string, unknown>;

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof AuditSecret);
}

/** The key that names each item in both lists (present, a string or number, unique within each list), if any. */
function identityOf(before: unknown[], after: unknown[]): (typeof IDENTITY_KEYS)[number] | undefined {
  if (before.length + after.length === 0 || ![...before, ...after].every(isPlainObject)) return undefined;
  const names = (list: unknown[], key: string) => {
    const values = list.map((item) => (item as Plain)[key]);
    return values.every((v) => typeof v === 'string' || typeof v === 'number') && new Set(values).size === values.length;
  };
  return IDENTITY_KEYS.find((key) => names(before, key) && names(after, key));
}

/** A recorded value: secrets never, long text cut, undefined dropped. */
export function recordable(value: unknown): AuditValue | undefined {
  if (value === undefined || value instanceof AuditSecret) return undefined;
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return value.length > TEXT_LIMIT ? `${value.slice(0, TEXT_LIMIT)}… (${value.length.toLocaleString('en-US')} characters)` : value;
  if (Array.isArray(value)) return value.map((v) => recordable(v) ?? null);
  if (isPlainObject(value)) {
    const out: Record<string, AuditValue> = {};
    for (const [key, v] of Object.entries(value)) {
      if (SECRET_NAME.test(key)) continue;
      const r = recordable(v);
      if (r !== undefined) out[key] = r;
    }
    return out;
  }
  return String(value);
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof AuditSecret || b instanceof AuditSecret) {
    return a instanceof AuditSecret && b instanceof AuditSecret ? a.fingerprint === b.fingerprint : a === b;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function isSecret(field: string, before: unknown, after: unknown): boolean {
  const name = field.split(/[.[\]=]/).filter(Boolean).pop() ?? field;
  return before instanceof AuditSecret || after instanceof AuditSecret || SECRET_NAME.test(name);
}

function walk(path: string, before: unknown, after: unknown, out: AuditChange[]): void {
  if (before === undefined && after === undefined) return;
  if (isSecret(path, before, after)) {
    const had = before instanceof AuditSecret ? before.fingerprint !== null : before !== undefined && before !== null && before !== '';
    const has = after instanceof AuditSecret ? after.fingerprint !== null : after !== undefined && after !== null && after !== '';
    if ((had || has) && !same(before, after)) out.push({ field: path, secret: true });
    return;
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) walk(path ? `${path}.${key}` : key, before[key], after[key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const key = identityOf(before, after);
    if (key) {
      const byId = (list: unknown[]) => new Map(list.map((item) => [String((item as Plain)[key]), item]));
      const b = byId(before);
      const a = byId(after);
      for (const id of new Set([...b.keys(), ...a.keys()])) walk(`${path}[${key}=${id}]`, b.get(id), a.get(id), out);
      return;
    }
  }
  if (before !== undefined && after !== undefined && same(before, after)) return;
  if (isPlainObject(before) && after === undefined) {
    for (const [key, value] of Object.entries(before)) walk(path ? `${path}.${key}` : key, value, undefined, out);
    return;
  }
  if (isPlainObject(after) && before === undefined) {
    for (const [key, value] of Object.entries(after)) walk(path ? `${path}.${key}` : key, undefined, value, out);
    return;
  }
  const change: AuditChange = { field: path };
  const b = recordable(before);
  const a = recordable(after);
  if (b !== undefined) change.before = b;
  if (a !== undefined) change.after = a;
  out.push(change);
}

/**
 * What changed from `before` to `after` (null: the target did not exist). A created target lists
 * its fields with `after` only, a deleted one with `before` only.
 */
export function diffSnapshots(before: Snapshot | null | undefined, after: Snapshot | null | undefined): AuditChange[] {
  const out: AuditChange[] = [];
  walk('', before ?? undefined, after ?? undefined, out);
  if (out.length <= CHANGE_LIMIT) return out;
  return [...out.slice(0, CHANGE_LIMIT - 1), { field: '…', after: `${out.length - CHANGE_LIMIT + 1} more changes not recorded` }];
}
