import { useEffect, useState, useSyncExternalStore } from 'react';
import { ChatConnection, type ChatConnectionOptions, type ConnectionSnapshot, type ConnectionStatus } from '../api/chat-connection';

/** One ChatConnection for the page's lifetime, started on mount and closed on unmount. */
export function useChatConnection(options: ChatConnectionOptions): ConnectionSnapshot & { connection: ChatConnection } {
  const [connection] = useState(() => new ChatConnection(options));
  useEffect(() => {
    connection.start();
    return () => connection.stop();
  }, [connection]);
  const snapshot = useSyncExternalStore(connection.subscribe, connection.getSnapshot, connection.getSnapshot);
  return { ...snapshot, connection };
}

/** How long the page may take to connect before it says "Connecting". */
export const CONNECTING_SHOWN_AFTER_MS = 1500;

/**
 * The connection state as the page shows it: null while the first connection is still being made
 * and has taken less than `delayMs` (a normal load is online well within it, so "Connecting"
 * would only flash, and then linger until the first health answer); the state itself otherwise.
 */
export function useShownStatus(status: ConnectionStatus, delayMs = CONNECTING_SHOWN_AFTER_MS): ConnectionStatus | null {
  const [waited, setWaited] = useState(false);
  const [settled, setSettled] = useState(status !== 'connecting');
  useEffect(() => {
    if (status !== 'connecting') setSettled(true);
  }, [status]);
  useEffect(() => {
    if (settled) return;
    const timer = setTimeout(() => setWaited(true), delayMs);
    return () => clearTimeout(timer);
  }, [settled, delayMs]);
  return status === 'connecting' && !settled && !waited ? null : status;
}
