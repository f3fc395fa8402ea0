import { useEffect, useState } from 'react';

/** GET /api/public/settings `data`: which verticals the administrators switched on, and the initial language. */
export interface PublicSettings {
  defaultLanguage: string;
  verticals: Array<{ id: string; enabled: boolean }>;
}

/**
 * Loads the public settings once. Until they arrive (or if the call fails) the catalogue's own
 * defaults apply, so the page never waits on them.
 */
export function usePublicSettings(fetchImpl?: typeof fetch): PublicSettings | null {
  const [settings, setSettings] = useState<PublicSettings | null>(null);
  useEffect(() => {
    const doFetch = fetchImpl ?? (typeof fetch === 'function' ? fetch : undefined);
    if (!doFetch) return;
    let cancelled = false;
    doFetch('/api/public/settings', { headers: { Accept: 'application/json' } })
      .then((res) => (res.ok ? res.json() : undefined))
      .then((body: { data?: PublicSettings } | undefined) => {
        if (!cancelled && body?.data && Array.isArray(body.data.verticals)) setSettings(body.data);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [fetchImpl]);
  return settings;
}
