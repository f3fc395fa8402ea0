import type { Redis } from 'ioredis';

/** How long a QUIT may take before the connection is simply dropped. */
const QUIT_WAIT_MS = 1000;

/**
 * Closes a Redis connection without ever hanging a shutdown: a connection that is not ready
 * (connecting, or reconnecting during an outage) is dropped at once, since a QUIT would wait in
 * its offline queue behind commands that may never be sent; a ready one is asked to QUIT (its
 * pending replies arrive first) and dropped if that takes longer than a second.
 */
export async function closeRedis(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), QUIT_WAIT_MS);
  });
  try {
    if ((await Promise.race([connection.quit(), late])) === 'late') connection.disconnect();
  } catch {
    connection.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
