/**
 * A TCP proxy whose target can be switched, for tests of a client that loses its connection to
 * one server and reconnects to another (a load balancer moving it). It forwards bytes, so HTTP,
 * server-sent events and WebSockets all pass; `switchTo` sends new connections elsewhere and
 * drops the open ones (as a server or balancer going away would).
 */
import * as net from 'node:net';

export interface SwitchProxy {
  url: string;
  switchTo(targetUrl: string): void;
  /** Drops every open connection (the clients see them close). */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startSwitchProxy(targetUrl: string): Promise<SwitchProxy> {
  let target = new URL(targetUrl);
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    open.add(client);
    open.add(upstream);
    const forget = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const dropConnections = () => {
    for (const socket of [...open]) socket.destroy();
    open.clear();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    switchTo(next: string) {
      target = new URL(next);
      dropConnections();
    },
    dropConnections,
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
