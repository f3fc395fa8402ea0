/**
 * Tells a database that cannot be reached (stopped, restarting, unreachable, connection cut,
 * connect timeout, a statement left unanswered past DATABASE_QUERY_TIMEOUT_MS) from every other database error, so callers answer 503 `database_unavailable`
 * rather than 500, and the start can say what went wrong.
 */
import { AppError } from './app-error';
import { redactUrl } from './redact-url';

/** Socket-level failures (Node / pg) and Postgres SQLSTATEs of a server going away or not accepting. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// 57014: a statement cancelled by statement_timeout (DATABASE_QUERY_TIMEOUT_MS): the database is
// too slow to answer, which a caller sees as unavailable, not as a fault of the request.
const POSTGRES_UNAVAILABLE = /^(08\d\d\d|57P01|57P02|57P03|53300|57014)$/;
/** SQLite: the file cannot be opened or read, or stays locked past the busy timeout. */
const SQLITE_UNAVAILABLE = new Set(['SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_NOTADB']);
const MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection with \w+ database is not established|Driver not Connected|Cannot use a pool after calling end|the database system is (starting up|shutting down)|terminating connection due to administrator command|SQLITE_MISUSE: Database is closed|Database is closed|Query read timeout/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth += 1) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.has(code))) return true;
    if (typeof e.message === 'string' && MESSAGES.test(e.message)) return true;
    e = (e.driverError ?? e.cause) as typeof e;
  }
  return false;
}

export const DATABASE_UNAVAILABLE_MESSAGE = 'The database is not reachable right now. Please try again in a moment.';

/** The 503 callers get while the database is down. */
export function databaseUnavailableError(): AppError {
  return new AppError('database_unavailable', DATABASE_UNAVAILABLE_MESSAGE);
}

/** `postgres://user:***@host:port/db` (the password never reaches a log line). */
export function describeDatabaseUrl(url: string): string {
  return redactUrl(url, 'DATABASE_URL');
}
