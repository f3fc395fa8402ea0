import { useEffect, useState, useSyncExternalStore } from 'react';
import { ChatConnection, type ChatConnectionOptions, type ConnectionSnapshot } from '../api/chat-connection';

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
