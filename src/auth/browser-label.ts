import Bowser from 'bowser';

/** "Chrome 126 on macOS" from a user agent; a client that is no known browser by its own first word ("curl 8.1"). */
export function browserLabel(userAgent: string | null | undefined): string {
  const ua = userAgent?.trim();
  if (!ua) return 'Unknown browser';
  const { browser, os } = Bowser.parse(ua);
  const major = browser.version?.split('.')[0];
  if (browser.name) return [browser.name, major].filter(Boolean).join(' ') + (os.name ? ` on ${os.name}` : '');
  const tool = /^([A-Za-z][\w.-]{0,30})(?:\/([\d.]+))?/.exec(ua);
  return tool ? [tool[1], tool[2]].filter(Boolean).join(' ') : 'Unknown browser';
}
