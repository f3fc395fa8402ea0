import * as http from 'node:http';
import * as net from 'node:net';
import { acceptMorePerTurn } from './accept-handles';

/**
 * Waiting connections accepted per turn of the event loop, counted (not timed): 40 clients connect
 * while the loop is held, so all 40 wait in the kernel's accept queue when it turns again.
 */
async function acceptedPerTurn(descriptors: number): Promise<{ perTurn: number[]; answered: number; handles: number; server: http.Server }> {
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const handles = await acceptMorePerTurn(server, descriptors);
  const port = (server.address() as net.AddressInfo).port;

  let turn = 0;
  let counting = true;
  const tick = () => {
    turn += 1;
    if (counting) setImmediate(tick);
  };
  const turns: number[] = [];
  server.on('connection', () => turns.push(turn));

  const answers = Array.from({ length: 40 }, () => get(port));
  // Hold the loop while the kernel completes the 40 connections (loopback: at once).
  const until = Date.now() + 200;
  while (Date.now() < until);
  setImmediate(tick);
  const answered = (await Promise.all(answers)).filter((body) => body === 'ok').length;
  counting = false;

  const perTurn = new Map<number, number>();
  for (const t of turns) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
  return { perTurn: [...perTurn.values()], answered, handles, server };
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

describe('acceptMorePerTurn', () => {
  it("with Node's one descriptor, a turn of the event loop accepts one waiting connection (libuv >= 1.45)", async () => {
    const { perTurn, answered, handles, server } = await acceptedPerTurn(1);
    await close(server);
    expect(handles).toBe(1);
    expect(answered).toBe(40);
    expect(Math.max(...perTurn)).toBe(1);
  });

  it('with 8 descriptors of the socket, a turn accepts up to 8, and every connection is served by the one HTTP server', async () => {
    const { perTurn, answered, handles, server } = await acceptedPerTurn(8);
    await close(server);
    expect(handles).toBe(8);
    expect(answered).toBe(40);
    expect(Math.max(...perTurn)).toBeGreaterThan(1);
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(8);
    // 40 connections came in within a few turns (5 at best), not 40.
    expect(perTurn.length).toBeLessThan(20);
  });

  it("closes only once every request in flight is answered, whichever descriptor accepted its connection", async () => {
    let started = 0;
    const server = http.createServer((_req, res) => {
      started += 1;
      setTimeout(() => res.end('ok'), 300);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    let answered = 0;
    let answeredAtClose = -1;
    try {
      expect(await acceptMorePerTurn(server, 8)).toBe(8);
      const answers = Array.from({ length: 20 }, () => get(port).then(() => (answered += 1)));
      const until = Date.now() + 200;
      while (Date.now() < until);
      while (started < 20) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      answeredAtClose = answered;
      await Promise.all(answers);
    } finally {
      server.closeAllConnections();
    }
    expect(answeredAtClose).toBe(20);
  });

  it('stops accepting on every descriptor when the HTTP server is closed', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    let handles = 0;
    let answer = '';
    try {
      handles = await acceptMorePerTurn(server, 4);
      answer = await get(port);
    } finally {
      await close(server);
    }
    expect(handles).toBe(4);
    expect(answer).toBe('ok');
    await expect(get(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
