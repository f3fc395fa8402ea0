import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { io } from 'socket.io-client';

/** The part of a Socket.IO client socket a live console view uses (so tests can hand in their own). */
export interface AdminFeed {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): unknown;
}

/** The `/admin` namespace, with the session cookie (the server checks it at the handshake). */
export function connectAdminFeed(): AdminFeed {
  return io('/admin', { withCredentials: true });
}

/**
 * Reloads the queries under `queryKey` whenever the server pushes one of `events`, and after a
 * reconnect (pushes may have been missed meanwhile). Returns whether the feed is connected.
 */
export function useLiveReload(connect: () => AdminFeed, events: readonly string[], queryKey: QueryKey): boolean {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  const eventList = events.join('|');
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    const feed = connect();
    let seenConnect = false;
    const reload = () => void queryClient.invalidateQueries({ queryKey: JSON.parse(keyText) as QueryKey });
    const onConnect = () => {
      setConnected(true);
      if (seenConnect) reload();
      seenConnect = true;
    };
    const onDisconnect = () => setConnected(false);
    const names = eventList.split('|');
    for (const name of names) feed.on(name, reload);
    feed.on('connect', onConnect);
    feed.on('disconnect', onDisconnect);
    return () => {
      for (const name of names) feed.off(name, reload);
      feed.off('connect', onConnect);
      feed.off('disconnect', onDisconnect);
      feed.disconnect();
    };
  }, [connect, queryClient, eventList, keyText]);
  return connected;
}
