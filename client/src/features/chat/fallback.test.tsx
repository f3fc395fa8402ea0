import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeReplyData } from './testing/factories';
import { FakeSocket } from './testing/fake-socket';
import { fakeFetch, renderChat, serverSays } from './testing/render-chat';

const OFFLINE = 'System offline. Please check connection.';
/** What the page reads once when it opens. */
const PAGE_READS = ['/api/public/settings', '/api/visitor/conversations'];
const input = () => screen.getByRole('textbox', { name: 'Your message' });
const agentMessages = () => Array.from(screen.getByRole('log').querySelectorAll('.message-agent'));
const lastAgent = () => agentMessages()[agentMessages().length - 1] as HTMLElement;

function healthy(): Response {
  return new Response(JSON.stringify({ success: true, ok: true, status: 'healthy' }), { status: 200, headers: { 'Content-Type': 'application/json' } });
}

/** An SSE response whose body the test writes piece by piece. */
function sseStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const encoder = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } }),
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
  };
}

const frame = (event: string, payload: unknown) => `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;

/** The page with a socket that cannot connect and a server whose /health and /interact answer. */
async function renderWithoutSocket(interact: (init: RequestInit) => Promise<Response>) {
  const net = fakeFetch(async (url, init) => (url === '/health' ? healthy() : url === '/interact' ? interact(init) : new Response(null, { status: 404 })));
  const socket = new FakeSocket();
  const chat = renderChat({ socket, online: false, fetch: net.fetch });
  serverSays(() => socket.connectError());
  await waitFor(() => expect(document.querySelector('.connection-pill')).toHaveAttribute('data-status', 'online'));
  return { ...chat, calls: net.calls };
}

describe('fallback to POST /interact with SSE when the socket cannot connect', () => {
  it('counts as online when the socket cannot connect but GET /health answers', async () => {
    const { calls } = await renderWithoutSocket(() => Promise.reject(new Error('unused')));
    expect(screen.queryByText(OFFLINE)).not.toBeInTheDocument();
    expect(calls.find((c) => !PAGE_READS.includes(c.url))?.url).toBe('/health');
    expect(input()).toHaveAttribute('placeholder', 'Type your message...');
  });

  it('also asks GET /health when the socket handshake simply never completes', async () => {
    const net = fakeFetch(async () => healthy());
    renderChat({ online: false, fetch: net.fetch, connectGraceMs: 20 });
    await waitFor(() => expect(document.querySelector('.connection-pill')).toHaveAttribute('data-status', 'online'));
    // Besides the page's reads of its settings and conversations, the only call is the health check.
    expect(net.calls.map((c) => c.url).filter((u) => !PAGE_READS.includes(u))).toEqual(['/health']);
  });

  it('streams the reply from the SSE body as it arrives, then shows its sources', async () => {
    const stream = sseStream();
    const { user, calls, socket } = await renderWithoutSocket(async () => stream.response);
    await user.type(input(), 'How many vacation days do I get?{Enter}');

    const call = calls.find((c) => c.url === '/interact')!;
    expect(call.init.method).toBe('POST');
    const headers = call.init.headers as Record<string, string>;
    expect(headers.Accept).toBe('text/event-stream');
    expect(headers['Content-Type']).toBe('application/json');
    const body = JSON.parse(call.init.body as string);
    expect(body).toMatchObject({ query: 'How many vacation days do I get?', vertical: 'customer-service', userId: 'demo-user', preferredLanguage: 'English' });
    expect(body).not.toHaveProperty('requestId');
    expect(headers['X-Request-Id']).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(socket.sends()).toHaveLength(0);

    expect(lastAgent()).toHaveTextContent('Processing with Core Intelligence...');
    // A frame split across two network chunks still arrives whole.
    stream.write('event: chat:delta\ndata: {"requestId":"r","te');
    stream.write('xt":"You earn"}\n\n');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('You earn'));
    stream.write(frame('chat:delta', { requestId: 'r', text: ' 25 days.' }));
    await waitFor(() => expect(lastAgent()).toHaveTextContent('You earn 25 days.'));
    expect(lastAgent()).toHaveAttribute('data-streaming', 'true');
    stream.write(frame('chat:done', { requestId: 'r', data: makeReplyData({ response: 'You earn 25 days.', sources: [{ id: 'p', title: 'Paid time off (PTO)', score: 2 }] }) }));
    stream.end();
    await waitFor(() => expect(lastAgent()).not.toHaveAttribute('data-streaming'));
    expect(lastAgent()).toHaveTextContent('Paid time off (PTO)');
  });

  it('Stop aborts the /interact request and keeps the partial reply, marked stopped', async () => {
    const stream = sseStream();
    const { user, calls } = await renderWithoutSocket(async () => stream.response);
    await user.type(input(), 'Tell me a story{Enter}');
    stream.write(frame('chat:delta', { requestId: 'r', text: 'Once upon' }));
    await waitFor(() => expect(lastAgent()).toHaveTextContent('Once upon'));
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    const signal = calls.find((c) => c.url === '/interact')!.init.signal!;
    expect(signal.aborted).toBe(true);
    expect(lastAgent()).toHaveTextContent('Once upon');
    expect(lastAgent()).toHaveTextContent('Stopped');
    expect(screen.queryByText(/I apologize/)).not.toBeInTheDocument();
  });

  it('shows the server message of a chat:error frame as the apology', async () => {
    const stream = sseStream();
    const { user } = await renderWithoutSocket(async () => stream.response);
    await user.type(input(), 'Hello{Enter}');
    stream.write(frame('chat:error', { requestId: 'r', code: 'provider_timeout', message: 'The model took too long to answer.' }));
    stream.end();
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: The model took too long to answer. Please try again.'));
  });

  it('shows the error envelope message of a refused request', async () => {
    const { user } = await renderWithoutSocket(async () =>
      new Response(JSON.stringify({ success: false, error: { code: 'vertical_disabled', message: 'Customer Support is not available right now.' }, requestId: 'x' }), { status: 400 }),
    );
    await user.type(input(), 'Hello{Enter}');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Customer Support is not available right now. Please try again.'));
  });

  it('a 429 with Retry-After: the countdown of the rate limit, and the question back in the composer', async () => {
    const { user } = await renderWithoutSocket(async () =>
      new Response(JSON.stringify({ success: false, error: { code: 'rate_limited', message: 'Too many messages. Try again in 75 s.' }, requestId: 'x' }), {
        status: 429,
        headers: { 'Retry-After': '75' },
      }),
    );
    await user.type(input(), 'Hello{Enter}');
    const notice = await screen.findByTestId('rate-limit-notice');
    expect(notice).toHaveTextContent(/You can send again in 1 min 1[45] s\./);
    expect(input()).toHaveValue('Hello');
  });

  it("uses 'Failed to get response' for a failed request without a message, or a stream that ends without a reply", async () => {
    let attempt = 0;
    const { user, socket } = await renderWithoutSocket(async () => {
      attempt += 1;
      if (attempt === 1) return new Response('Bad gateway', { status: 502 });
      const stream = sseStream();
      stream.write(frame('chat:delta', { requestId: 'r', text: 'Half' }));
      stream.end();
      return stream.response;
    });
    await user.type(input(), 'Hello{Enter}');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Failed to get response. Please try again.'));
    await user.type(input(), 'Again{Enter}');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Failed to get response. Please try again.'));
    expect(agentMessages()[agentMessages().length - 2]).toHaveTextContent('Half');
    expect(socket.sends()).toHaveLength(0);
  });

  it("uses 'Failed to send message' when the request cannot be sent at all", async () => {
    const { user } = await renderWithoutSocket(() => Promise.reject(new TypeError('Failed to fetch')));
    await user.type(input(), 'Hello{Enter}');
    await waitFor(() => expect(lastAgent()).toHaveTextContent('I apologize, but I encountered an error: Failed to send message. Please try again.'));
  });

  it('goes back to the socket as soon as it connects', async () => {
    const { user, socket } = await renderWithoutSocket(() => Promise.reject(new Error('must not be called')));
    serverSays(() => socket.serverConnect());
    await user.type(input(), 'Hello{Enter}');
    expect(socket.sends()).toHaveLength(1);
  });
});
