import { spawn } from 'node:child_process';
import type { Server as HttpServer } from 'node:http';
import type { Server as NetServer, Socket } from 'node:net';

/**
 * More than one waiting connection accepted per event-loop turn.
 *
 * Since libuv 1.45 (Node 20) a listening socket accepts one connection per turn of the event
 * loop. Under load a turn of this server takes about 100 ms (every socket's frames, Redis and
 * Postgres replies), so when a server of the cluster dies and its few hundred visitors reconnect
 * to a survivor at once, they wait in the kernel's accept queue and come in at about 10 a second:
 * on 2 cores, 1,000 clients, the last of 330 waited 15-30 s although the survivor's event loop
 * was never more than 200 ms late (docs/operations.md, "Where a reconnection's time went").
 *
 * The fix gives the event loop `count` descriptors of the same listening socket: each is polled
 * and accepts one connection per turn, so a queue of 300 empties in 5 turns with 64
 * (ACCEPT_HANDLES). A new connection then costs up to count - 1 accept() calls that find nothing:
 * with 64, a plain HTTP server's CPU per connection stayed within its noise (145-185 us against
 * 145-170 us); with 128 it rose by about 30 us.
 *
 * Node has no dup() for sockets, so the descriptors are made the documented way, by sending the
 * server to a child process over IPC and back (each pass is a new descriptor of the same socket).
 * The accepted sockets go to the HTTP server as its own (`connection`); when the HTTP server is
 * closed the copies stop listening, and its close waits for their connections as for its own.
 */
export async function acceptMorePerTurn(server: HttpServer, count: number): Promise<number> {
  if (count <= 1 || process.platform === 'win32' || !server.listening) return 1;
  // The HTTP server's close() waits for the connections its own descriptor accepted; these are
  // kept here so that it waits for theirs too (a request in flight is answered before it closes).
  const open = new Set<Socket>();
  let closed: (() => void) | undefined;
  const adopt = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      if (open.size > 0 || !closed) return;
      const done = closed;
      closed = undefined;
      done();
    });
    server.emit('connection', socket);
  };
  const copies = await copiesOf(server, count - 1, adopt);
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const copy of copies.splice(0)) copy.close();
    return close((error?: Error) => {
      if (open.size === 0 || error) callback?.(error);
      else closed = () => callback?.();
    });
  };
  return copies.length + 1;
}

/**
 * The child's whole program. It sends each server straight back and closes its own copy once that
 * is sent. A connection it accepted meanwhile is not lost: its copy waits paused (no byte read)
 * and is sent to the parent too.
 */
const ECHO = `
process.on('message', (m, server) => {
  if (!server) return;
  server.pauseOnConnect = true;
  server.on('connection', (socket) => process.send('socket', socket));
  process.send(m, server, undefined, () => server.close());
});
process.on('disconnect', () => process.exit(0));
`;

/** `count` more descriptors of the server's socket, each already passing what it accepts to `onConnection`. */
function copiesOf(server: HttpServer, count: number, onConnection: (socket: Socket) => void): Promise<NetServer[]> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {} });
    const copies: NetServer[] = [];
    let done = false;
    // Resolved once the child is gone, with it every descriptor it held (so nothing but this
    // process listens on the port afterwards).
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(copies);
    };
    const letGo = () => {
      if (child.connected) child.disconnect();
    };
    // Whatever went wrong (no child, a refused handle), the server still serves, with the
    // descriptors that came back.
    const timer = setTimeout(() => {
      letGo();
      child.kill('SIGKILL');
      finish();
    }, 5000);
    timer.unref();
    child.on('error', finish);
    child.on('exit', finish);
    child.on('message', (message: unknown, handle: unknown) => {
      if (!handle) return;
      if (message === 'socket') {
        onConnection(handle as Socket);
        return;
      }
      // Passed on from the first moment: it is listening already.
      const copy = handle as NetServer;
      copy.on('connection', onConnection);
      copies.push(copy);
      // The child exits once it is let go.
      if (copies.length === count) letGo();
    });
    for (let i = 0; i < count; i += 1) child.send(i, server);
  });
}
