import { useEffect, useState } from 'react';
import type { PublicSettings } from '@shared/contracts/config';
import type { ChatConnection } from '../api/chat-connection';

export type { PublicSettings };

async function readSettings(fetchImpl: typeof fetch): Promise<PublicSettings | undefined> {
  const res = await fetchImpl('/api/public/settings', { headers: { Accept: 'application/json' } });
  const body = res.ok ? ((await res.json()) as { data?: PublicSettings }) : undefined;
  return body?.data && Array.isArray(body.data.verticals) ? body.data : undefined;
}

/**
 * The public settings (which verticals the administrators switched on, the initial language):
 * read once, then kept current by the `settings:changed` push, and read again after a reconnect
 * (a change made meanwhile was not pushed to this page). Until they arrive (or if the call fails)
 * the catalogue's own defaults apply, so the page never waits on them.
 */
export function usePublicSettings(fetchImpl: typeof fetch | undefined, connection?: ChatConnection): PublicSettings | null {
  const [settings, setSettings] = useState<PublicSettings | null>(null);
  useEffect(() => {
    const doFetch = fetchImpl ?? (typeof fetch === 'function' ? fetch : undefined);
    let cancelled = false;
    let version = 0;
    const load = () => {
      if (!doFetch) return;
      const mine = ++version;
      readSettings(doFetch).then(
        (data) => {
          if (!cancelled && data && mine === version) setSettings(data);
        },
        () => undefined,
      );
    };
    load();
    const unsubscribe = connection?.onSettings((pushed) => {
      if (!pushed) return load();
      version += 1;
      setSettings(pushed);
    });
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, [fetchImpl, connection]);
  return settings;
}
