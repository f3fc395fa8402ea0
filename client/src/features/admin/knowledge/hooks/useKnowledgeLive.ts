import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { io } from 'socket.io-client';
import { KNOWLEDGE_QUERY_KEY } from '../api/knowledge-api';

/** The part of a Socket.IO client socket the live refresh uses (so tests can hand in their own). */
export interface KnowledgeFeed {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): unknown;
}

/** The `/admin` namespace, with the session cookie (the server checks it at the handshake). */
export function connectKnowledgeFeed(): KnowledgeFeed {
  return io('/admin', { withCredentials: true });
}

/**
 * Reloads the list when any console changes the knowledge base (`knowledge:changed`), and after
 * a reconnect, since changes may have been missed meanwhile.
 */
export function useKnowledgeLive(connect: () => KnowledgeFeed): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const feed = connect();
    let seenConnect = false;
    const reload = () => void queryClient.invalidateQueries({ queryKey: KNOWLEDGE_QUERY_KEY });
    const onConnect = () => {
      if (seenConnect) reload();
      seenConnect = true;
    };
    feed.on('knowledge:changed', reload);
    feed.on('connect', onConnect);
    return () => {
      feed.off('knowledge:changed', reload);
      feed.off('connect', onConnect);
      feed.disconnect();
    };
  }, [connect, queryClient]);
}
