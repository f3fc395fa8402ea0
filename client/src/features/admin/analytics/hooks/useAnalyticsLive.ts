import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { io } from 'socket.io-client';
import { ANALYTICS_QUERY_KEY } from './useAnalytics';

/** The part of a Socket.IO client socket the live feed uses (so tests can hand in their own). */
export interface LiveFeed {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): unknown;
}

/** The admin namespace, with the session cookie (the server checks it at the handshake). */
export function connectAdminFeed(): LiveFeed {
  return io('/admin', { withCredentials: true });
}

/**
 * Reloads the analytics whenever the server pushes `analytics:update` (at most once a second
 * while traffic flows), and after a reconnect (updates may have been missed meanwhile).
 * Returns whether the feed is connected.
 */
export function useAnalyticsLive(connect: () => LiveFeed = connectAdminFeed): boolean {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const feed = connect();
    let seenConnect = false;
    const reload = () => void queryClient.invalidateQueries({ queryKey: ANALYTICS_QUERY_KEY });
    const onConnect = () => {
      setConnected(true);
      if (seenConnect) reload();
      seenConnect = true;
    };
    const onDisconnect = () => setConnected(false);
    feed.on('analytics:update', reload);
    feed.on('connect', onConnect);
    feed.on('disconnect', onDisconnect);
    return () => {
      feed.off('analytics:update', reload);
      feed.off('connect', onConnect);
      feed.off('disconnect', onDisconnect);
      feed.disconnect();
    };
  }, [connect, queryClient]);
  return connected;
}
