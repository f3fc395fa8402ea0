/**
 * The HTTP client: same-origin JSON calls with cookies (credentials: 'include'), unwrapping the
 * `{success, data}` envelope and turning `{success:false, error}` into an ApiError that carries
 * the server's message and code. A call given its request `contract` (the zod schema the server
 * validates that body with) checks the body first: a refusal is the same ApiError (400, the same
 * code and message) the server would answer, without the round trip.
 */
import type { ErrorEnvelope } from '@shared/contracts/http';
import { check } from '@shared/contracts/problems';
import type { z } from 'zod';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** The body's contract; checked before sending. */
  contract?: z.ZodType;
  /** A multipart body (a file upload), sent instead of `body`. */
  form?: FormData;
}

/** A body refused by its contract, as the server would refuse it. */
export function contractError(contract: z.ZodType, body: unknown): ApiError | undefined {
  const result = check(contract, body);
  if (result.ok) return undefined;
  const { code, message } = result.problem;
  return new ApiError(message, 400, code, { success: false, error: { code, message } });
}

export function buildUrl(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Calls the API and returns the whole parsed body (callers read `data`, `user`, `message`). */
export async function apiRequest<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const refused = options.contract && contractError(options.contract, options.body);
  if (refused) throw refused;
  const response = await fetch(buildUrl(path, options.query), {
    method: options.method ?? 'GET',
    credentials: 'include',
    // A FormData body sets its own multipart Content-Type (with the boundary).
    headers: options.body !== undefined && !options.form ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' },
    body: options.form ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined),
    signal: options.signal,
  });
  let body: unknown = undefined;
  const text = await response.text();
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!response.ok || (body as { success?: boolean } | undefined)?.success === false) {
    const envelope = body as Partial<ErrorEnvelope> & { message?: string } | undefined;
    const message = envelope?.error?.message ?? envelope?.message ?? `Request failed (${response.status})`;
    throw new ApiError(message, response.status, envelope?.error?.code, body);
  }
  return body as T;
}
