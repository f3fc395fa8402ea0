/**
 * Turning a failed parse into the API's `{code, message}`, kept apart from the fields in rules.ts
 * and free of zod at run time (zod is imported for its types only): a page that checks a body
 * with a schema it was handed (the HTTP client, the chat connection) does not load zod itself,
 * which keeps pages such as the widget's iframe small. rules.ts re-exports everything here.
 */
import type { z } from 'zod';
import type { ErrorCode } from './http';

const codeByMessage = new Map<string, ErrorCode>();

/** A fixed message the API reports with `code` instead of `validation_failed`. */
export function coded(code: ErrorCode, message: string): string {
  const known = codeByMessage.get(message);
  if (known !== undefined && known !== code) throw new Error(`"${message}" is declared with two error codes: ${known} and ${code}`);
  codeByMessage.set(message, code);
  return message;
}

/** Options for a refine whose message quotes the input: the issue carries its API code. */
export function codedIssue(code: ErrorCode, message: (input: unknown) => string) {
  return { error: (issue: { input?: unknown }) => message(issue.input), params: { code } };
}

/** What a refused request is told: the code to branch on and one message for people. */
export interface Problem {
  code: ErrorCode;
  message: string;
  /** Where in the input (for forms that mark a field); never shown as text. */
  path: PropertyKey[];
}

type Issue = z.core.$ZodIssue;

/**
 * An option of a union is the one meant when its first problem is neither a wrong type nor a
 * mismatch with a single literal (`z.literal('')` for "none" is never what a wrong value meant);
 * with no such option the union's own message is reported.
 */
function meantBranch(issue: Issue): Issue | undefined {
  if (issue.code !== 'invalid_union') return issue;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first || first.code === 'invalid_type') continue;
    if (first.code === 'invalid_value' && first.values.length === 1) continue;
    return meantBranch({ ...first, path: [...issue.path, ...first.path] } as Issue);
  }
  return undefined;
}

/**
 * The first problem of a failed parse, in the order of the schema's fields. Only one is reported:
 * the user fixes it and tries again (as with the hand-written checks this replaced).
 */
export function firstProblem(error: z.ZodError): Problem {
  const raw = error.issues[0];
  const issue = (raw && meantBranch(raw)) ?? raw;
  if (!issue) return { code: 'validation_failed', message: 'The request is not valid.', path: [] };
  const params = (issue as { params?: { code?: ErrorCode } }).params;
  const code = params?.code ?? codeByMessage.get(issue.message) ?? 'validation_failed';
  return { code, message: issue.message, path: issue.path };
}

/** Runs `schema` on `input`: the parsed value, or the first problem. */
export function check<S extends z.ZodType>(schema: S, input: unknown): { ok: true; value: z.output<S> } | { ok: false; problem: Problem } {
  const result = schema.safeParse(input);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: firstProblem(result.error) };
}
