/** The session cookie: parsed from the Cookie header by hand (no cookie-parser), written with every attribute. */
export const SESSION_COOKIE = 'sa_admin_session';

/** Cookie header -> name/value map. Values are taken as sent (the session token is base64url). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name && !(name in cookies)) cookies[name] = value;
  }
  return cookies;
}

export function sessionTokenFrom(cookieHeader: string | undefined): string | undefined {
  const token = parseCookies(cookieHeader)[SESSION_COOKIE];
  return token && /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : undefined;
}

/** `Set-Cookie` value for a new session: HttpOnly, SameSite=Strict, Path=/ (the socket handshake needs it too). */
export function sessionCookie(token: string, maxAgeMs: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', `Max-Age=${Math.floor(maxAgeMs / 1000)}`, 'HttpOnly', 'SameSite=Strict'];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearedSessionCookie(secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=`, 'Path=/', 'Max-Age=0', 'Expires=Thu, 01 Jan 1970 00:00:00 GMT', 'HttpOnly', 'SameSite=Strict'];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}
