/**
 * The building blocks of every contract: fields that carry their own messages in the words a
 * person sees ("Temperature must be between 0 and 1", never a path such as
 * "llmConfig.temperature"), and the one function that turns a failed parse into the API's
 * `{code, message}`. The server's validation pipe, the socket gateway and the client's forms all
 * call `firstProblem`, so a refusal reads the same wherever it is shown.
 *
 * Error codes: an issue is reported as `validation_failed` unless its message was declared with
 * `coded()` (fixed messages) or the check that raised it set `params.code` (messages that quote
 * the input). Codes map to HTTP statuses in one place on the server (common/app-error.ts).
 */
import { z } from 'zod';

export { check, coded, codedIssue, firstProblem, type Problem } from './problems';

/** "a region", "an emirate": the indefinite article for a lowercase noun. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

// --- fields -------------------------------------------------------------------------------------

/** Postgres cannot store U+0000 in text; SQLite can. Refused everywhere so both behave alike. */
const hasNoNul = (s: string) => !s.includes('\u0000');

export interface TextOptions {
  /** Required: the message when empty (after trimming); `true` for "<label> is required". */
  required?: boolean | string;
  /** Trim surrounding white space before checking (default true). */
  trim?: boolean;
}

/** Text of at most `max` characters (after trimming), without NUL characters. */
export function text(label: string, max: number, options: TextOptions = {}) {
  let schema = z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? requiredMessage(label, options) : `${label} must be text`) });
  if (options.trim !== false) schema = schema.trim();
  schema = schema.max(max, `${label} must be at most ${max.toLocaleString('en-US')} characters`);
  if (options.required) schema = schema.min(1, requiredMessage(label, options));
  return schema.refine(hasNoNul, `${label} contains a character that cannot be stored (U+0000, NUL)`);
}

function requiredMessage(label: string, options: TextOptions): string {
  return typeof options.required === 'string' ? options.required : `${label} is required`;
}

/** A whole number from `min` to `max`. */
export function integer(label: string, min: number, max: number) {
  const range = `${label} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`;
  return z.number({ error: `${label} must be a number` }).int(range).min(min, range).max(max, range);
}

/** A number from `min` to `max` (finite: JSON has no infinities, and NaN is refused). */
export function decimal(label: string, min: number, max: number) {
  const range = `${label} must be between ${min.toLocaleString('en-US')} and ${max.toLocaleString('en-US')}`;
  return z.number({ error: `${label} must be a number` }).min(min, range).max(max, range);
}

export function flag(label: string) {
  return z.boolean({ error: `${label} must be true or false` });
}

/** One of `values`; anything else gets `message`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, message: string) {
  return z.enum(values, { error: message });
}

/**
 * Dates the API accepts: from 2000-01-01 to 2099-12-31 (UTC). Earlier or later values are typing
 * mistakes or attacks, and beyond ±8.64e15 ms JavaScript cannot even print them.
 */
export const EARLIEST_DATE_MS = Date.UTC(2000, 0, 1);
export const LATEST_DATE_MS = Date.UTC(2100, 0, 1) - 1;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * The calendar fault of an ISO 8601 date-time, or undefined when every part exists. JavaScript's
 * Date.parse rolls impossible parts over (2024-02-30 becomes 1 March), so the parts are checked
 * before it reads them: a date that does not exist is refused rather than stored as another day.
 */
export function calendarFault(iso: string): string | undefined {
  const m = ISO_DATE_TIME.exec(iso);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = '0', offsetHour = '0', offsetMinute = '0'] = m.slice(1);
  if (Number(month) < 1 || Number(month) > 12) return `month ${month} does not exist`;
  const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  if (Number(day) < 1 || Number(day) > daysInMonth) return `${year}-${month}-${day} does not exist`;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return `${hour}:${minute}${m[6] ? `:${second}` : ''} is not a time of day`;
  if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return `${iso.slice(-6)} is not a time zone offset`;
  return undefined;
}

/** A moment sent as epoch milliseconds or an ISO 8601 date-time; parsed to epoch milliseconds. */
export function timestamp(label: string) {
  const range = `${label} must be a date between 2000 and 2099`;
  const inRange = (ms: number) => ms >= EARLIEST_DATE_MS && ms <= LATEST_DATE_MS;
  return z
    .union(
      [
        z.number().int(range).min(EARLIEST_DATE_MS, range).max(LATEST_DATE_MS, range),
        z
          .string()
          .max(40, `${label} must be a date`)
          .regex(ISO_DATE_TIME, `${label} must be a date such as 2025-01-31T12:00:00Z`)
          .superRefine((s, ctx) => {
            const fault = calendarFault(s);
            if (fault) ctx.addIssue({ code: 'custom', message: `${label} is not a real date: ${fault}`, input: s, abort: true });
          })
          .refine((s) => inRange(Date.parse(s)), range),
      ],
      { error: `${label} must be a date` },
    )
    .transform((value) => (typeof value === 'number' ? value : Date.parse(value)))
    .meta({ description: `${label}: epoch milliseconds or an ISO 8601 date-time, from 2000-01-01 to 2099-12-31 (UTC).` });
}

/** An ISO 8601 date-time in a response. */
export const isoDateTime = z.iso.datetime({ offset: true });

/** What a body that is not a JSON object (null, a list, a string, nothing) is told. */
export const NOT_AN_OBJECT = 'The request body must be a JSON object.';

/** A JSON object body; `message` when the body is something else (a list, a string, nothing). */
export function body<T extends z.core.$ZodLooseShape>(shape: T, message = NOT_AN_OBJECT) {
  return z.object(shape, { error: message });
}

/** An optional value that may also be sent as null (treated as absent). */
export function optional<S extends z.ZodType>(schema: S) {
  return schema.nullish().transform((v) => v ?? undefined);
}
