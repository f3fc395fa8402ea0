import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { io } from 'socket.io-client';
import { CONVERSATIONS_QUERY_KEY, GAPS_QUERY_KEY } from '../api/conversations-api';

/** The part of a Socket.IO client socket the live refresh uses (so tests can hand in their own). */
export interface ConversationsFeed {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(): unknown;
}

/** The `/admin` namespace, with the session cookie (checked at the handshake). */
export function connectConversationsFeed(): ConversationsFeed {
  return io('/admin', { withCredentials: true });
}

/** Reloads happen at most this often while messages stream in. */
export const LIVE_RELOAD_MS = 300;

/**
 * Keeps the Conversations tab live: `conversation:message` (a visitor's question or a finished
 * reply, on any server) reloads the list and the open transcript, `knowledge-gaps:changed` the
 * gaps; after a reconnect both reload (events may have been missed). Returns whether it is connected.
 */
export function useConversationsLive(connect: () => ConversationsFeed): boolean {
  const queryClient = useQueryClient();
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const feed = connect();
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    const reload = (key: readonly string[]) => () => {
      const name = key[0];
      if (timers.has(name)) return;
      timers.set(
        name,
        setTimeout(() => {
          timers.delete(name);
          void queryClient.invalidateQueries({ queryKey: key });
        }, LIVE_RELOAD_MS),
      );
    };
    const onMessage = reload(CONVERSATIONS_QUERY_KEY);
    const onGaps = reload(GAPS_QUERY_KEY);
    let seenConnect = false;
    const onConnect = () => {
      setConnected(true);
      if (seenConnect) {
        onMessage();
        onGaps();
      }
      seenConnect = true;
    };
    const onDisconnect = () => setConnected(false);
    feed.on('conversation:message', onMessage);
    feed.on('knowledge-gaps:changed', onGaps);
    feed.on('connect', onConnect);
    feed.on('disconnect', onDisconnect);
    return () => {
      for (const timer of timers.values()) clearTimeout(timer);
      feed.off('conversation:message', onMessage);
      feed.off('knowledge-gaps:changed', onGaps);
      feed.off('connect', onConnect);
      feed.off('disconnect', onDisconnect);
      feed.disconnect();
    };
  }, [connect, queryClient]);
  return connected;
}
