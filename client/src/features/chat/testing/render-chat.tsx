import { act, render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { ChatSendPayloadSchema } from '@shared/contracts/chat';
import ChatPage, { type ChatPageProps } from '../ChatPage';
import { FakeSocket } from './fake-socket';

export type FetchHandler = (url: string, init: RequestInit) => Promise<Response>;

/** A fetch that fails like an unreachable server unless a handler says otherwise. */
export function fakeFetch(handler?: FetchHandler) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    calls.push({ url, init });
    if (handler) return handler(url, init);
    throw new TypeError('Failed to fetch');
  }) as typeof fetch;
  return { fetch: fn, calls };
}

/** Renders the chat page with a fake socket (and, optionally, a fake fetch) at the network edge. */
export function renderChat(options: Partial<ChatPageProps> & { socket?: FakeSocket; online?: boolean } = {}) {
  const { socket: givenSocket, online, ...pageProps } = options;
  const socket = givenSocket ?? new FakeSocket();
  const { fetch, calls } = pageProps.fetch ? { fetch: pageProps.fetch, calls: [] } : fakeFetch();
  const user = userEvent.setup();
  const utils = render(
    <MemoryRouter>
      <ChatPage createSocket={() => socket.asSocket()} payloadContract={ChatSendPayloadSchema} {...pageProps} fetch={fetch} />
    </MemoryRouter>,
  );
  if (online !== false) act(() => socket.serverConnect());
  return { ...utils, socket, user, fetchCalls: calls };
}

/** Plays a server event inside act(), so React renders its effect before the test looks. */
export function serverSays(fn: () => void): void {
  act(fn);
}
