/**
 * Whether this browser has signed in to the console: the chat page shows its 'Admin Dashboard'
 * link to administrators only. A hint in local storage, set and cleared by the console's auth
 * state; it grants nothing (the console still checks the session cookie).
 */
const KEY = 'sa.admin.signedIn';

export function rememberAdmin(signedIn: boolean): void {
  try {
    if (signedIn) globalThis.localStorage?.setItem(KEY, '1');
    else globalThis.localStorage?.removeItem(KEY);
  } catch {
    // Storage disabled: the link just stays hidden.
  }
}

export function isRememberedAdmin(): boolean {
  try {
    return globalThis.localStorage?.getItem(KEY) === '1';
  } catch {
    return false;
  }
}
