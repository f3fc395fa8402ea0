/**
 * How the chat page and the widget reconnect a dropped socket (Socket.IO's back-off: the first
 * attempt 125-375 ms after the drop, doubling to at most 3 s). When a server of a cluster dies,
 * nginx sends the next attempt to a survivor at once, so the first attempt's delay is most of a
 * visitor's wait that does not depend on the survivors (bench/cluster.ts uses the same values).
 */
export const SOCKET_RECONNECTION = { reconnectionDelay: 250, reconnectionDelayMax: 3000 } as const;
