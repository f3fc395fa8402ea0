import { clearedSessionCookie, parseCookies, SESSION_COOKIE, sessionCookie, sessionTokenFrom } from './cookies';

describe('session cookie', () => {
  const token = 'A'.repeat(43);

  it('parses a Cookie header, first value of a name winning', () => {
    expect(parseCookies('a=1; b="two"; a=3;  c = x=y ')).toEqual({ a: '1', b: 'two', c: 'x=y' });
    expect(parseCookies(undefined)).toEqual({});
  });

  it('takes only a well-formed token', () => {
    expect(sessionTokenFrom(`x=1; ${SESSION_COOKIE}=${token}`)).toBe(token);
    expect(sessionTokenFrom(`${SESSION_COOKIE}=short`)).toBeUndefined();
    expect(sessionTokenFrom(`${SESSION_COOKIE}=${'%'.repeat(43)}`)).toBeUndefined();
  });

  it('is HttpOnly, SameSite=Strict, Path=/, with Max-Age, and Secure only when asked', () => {
    expect(sessionCookie(token, 86_400_000, false)).toBe(`${SESSION_COOKIE}=${token}; Path=/; Max-Age=86400; HttpOnly; SameSite=Strict`);
    expect(sessionCookie(token, 86_400_000, true)).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toMatch(new RegExp(`^${SESSION_COOKIE}=; Path=/; Max-Age=0;`));
  });
});
