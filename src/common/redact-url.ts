/** A URL as it may appear in a log line: `scheme://user:***@host:port/path` (the password never shows). */
export function redactUrl(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return fallback;
  }
}
