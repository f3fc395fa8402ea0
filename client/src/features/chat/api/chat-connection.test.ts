import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSocket } from '../testing/fake-socket';
import { ChatConnection } from './chat-connection';

function setup(healthOk: () => boolean = () => false) {
  const socket = new FakeSocket();
  const fetch = vi.fn(async () => {
    if (!healthOk()) throw new TypeError('Failed to fetch');
    return new Response(JSON.stringify({ ok: true }), { status: 200 });
  });
  const connection = new ChatConnection({ createSocket: () => socket.asSocket(), fetch: fetch as unknown as typeof globalThis.fetch, healthPollMs: 1000, connectGraceMs: 500 });
  connection.start();
  return { socket, fetch, connection, status: () => connection.getSnapshot() };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ChatConnection', () => {
  it('is connecting until the first health push, then online over the socket', () => {
    const { socket, status } = setup();
    expect(status()).toEqual({ status: 'connecting', transport: null });
    socket.serverConnect(null);
    expect(status().status).toBe('connecting');
    socket.health('healthy');
    expect(status()).toEqual({ status: 'online', transport: 'socket' });
  });

  it('notifies subscribers only when the state changes', () => {
    const { socket, connection } = setup();
    const listener = vi.fn();
    connection.subscribe(listener);
    socket.serverConnect();
    socket.health('healthy');
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('polls GET /health while the socket is down and goes offline when it fails after working', async () => {
    let ok = true;
    const { socket, fetch, status } = setup(() => ok);
    socket.connectError();
    await vi.advanceTimersByTimeAsync(0);
    expect(status()).toEqual({ status: 'online', transport: 'http' });
    ok = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(status()).toEqual({ status: 'offline', transport: null });
    ok = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(status().status).toBe('online');
    expect(fetch.mock.calls.length).toBeGreaterThanOrEqual(3);
  });

  it('does not ask /health on every reconnection attempt', async () => {
    const { socket, fetch } = setup();
    socket.connectError();
    socket.connectError();
    socket.connectError();
    await vi.advanceTimersByTimeAsync(0);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('stops polling once the socket is back', async () => {
    const { socket, fetch } = setup();
    socket.connectError();
    await vi.advanceTimersByTimeAsync(0);
    socket.serverConnect();
    const calls = fetch.mock.calls.length;
    await vi.advanceTimersByTimeAsync(5000);
    expect(fetch.mock.calls.length).toBe(calls);
  });

  it('reconnects by itself after the server drops the client (Socket.IO does not retry that case)', async () => {
    const { socket } = setup();
    socket.serverConnect();
    socket.serverDisconnect('io server disconnect');
    expect(socket.connectCalls).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(socket.connectCalls).toBe(1);
  });

  it('fails a send at once when offline', async () => {
    const { connection } = setup();
    const onError = vi.fn();
    connection.send({ requestId: 'r', query: 'q', vertical: 'hr' }, { onDelta: vi.fn(), onDone: vi.fn(), onError });
    await vi.advanceTimersByTimeAsync(0);
    expect(onError).toHaveBeenCalledWith('Failed to send message');
  });

  it('stop() closes the socket and stops every timer', async () => {
    const { socket, fetch, connection } = setup();
    connection.stop();
    expect(socket.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(10000);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a restart frame (another server took the reply over) clears the text; one of a newer takeover applies even below the last seq, and numbering goes on from it', async () => {
    const { socket, connection } = setup();
    socket.serverConnect();
    const shown: string[] = [];
    let text = '';
    let final: string | undefined;
    connection.resume('q1', 'reply-1', {
      onDelta: (t) => (text += t),
      onRestart: () => {
        shown.push(text);
        text = '';
      },
      onDone: (data) => (final = data.response),
      onError: () => undefined,
    });
    // The stalled server's frames 1-3 reached the page; the taker's restart is seq 2, attempt 1.
    socket.delta('q1', 'a ', 1);
    socket.delta('q1', 'b ', 2);
    socket.delta('q1', 'c ', 3);
    socket.fire('chat:restart', { requestId: 'q1', seq: 2, attempt: 1 });
    socket.delta('q1', 'x ', 3);
    socket.delta('q1', 'y', 4);
    // The same restart again (a resume's backlog) changes nothing.
    socket.fire('chat:restart', { requestId: 'q1', seq: 2, attempt: 1 });
    socket.delta('q1', 'y', 4);
    expect(shown).toEqual(['a b c ']);
    expect(text).toBe('x y');
    socket.done('q1', { response: 'x y' } as never, 5);
    expect(final).toBe('x y');
  });
});
