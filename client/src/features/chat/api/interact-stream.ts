import type { ReplyData } from '@shared/contracts/chat';
import type { ChatDeltaPayload, ChatDonePayload, ChatErrorPayload, ChatSendPayload } from '@shared/contracts/socket';
import { CHAT_ERROR_DEFAULTS } from '../../../lib/reply-stream';
import { SseParser } from './sse';

/** Receives one reply's frames, whichever transport carries them. Exactly one of done/error fires. */
export interface ReplyHandlers {
  onDelta(text: string): void;
  onDone(data: ReplyData): void;
  onError(message: string, code?: string): void;
}

interface ErrorBodyLike {
  message?: unknown;
  error?: { message?: unknown; code?: unknown };
}

function errorFrom(body: unknown, fallback: string): { message: string; code?: string } {
  const b = (body ?? {}) as ErrorBodyLike;
  const message = typeof b.error?.message === 'string' ? b.error.message : typeof b.message === 'string' ? b.message : fallback;
  return { message: message || fallback, code: typeof b.error?.code === 'string' ? b.error.code : undefined };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

/**
 * POST /interact with `Accept: text/event-stream`: the fallback when the socket cannot connect
 * (a proxy that blocks websockets). Reads the body as it arrives and hands each `chat:delta`
 * to the handlers, so the reply still grows word by word. Aborting `signal` ends the request
 * quietly (the server then stops the upstream call).
 */
export async function streamInteract(
  payload: ChatSendPayload,
  handlers: ReplyHandlers,
  options: { fetch: typeof fetch; signal: AbortSignal; baseUrl?: string },
): Promise<void> {
  const { requestId, ...body } = payload;
  let settled = false;
  const settle = (fn: () => void) => {
    if (settled || options.signal.aborted) return;
    settled = true;
    fn();
  };

  let response: Response;
  try {
    response = await options.fetch(`${options.baseUrl ?? ''}/interact`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Request-Id': requestId },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch {
    settle(() => handlers.onError(CHAT_ERROR_DEFAULTS.send));
    return;
  }

  if (!response.ok) {
    const { message, code } = errorFrom(await readJson(response), CHAT_ERROR_DEFAULTS.response);
    settle(() => handlers.onError(message, code));
    return;
  }

  // A server (or proxy) that answers with plain JSON still gives a reply, just not streamed.
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const json = (await readJson(response)) as { success?: boolean; data?: ReplyData } | undefined;
    if (json?.success && json.data) settle(() => handlers.onDone(json.data as ReplyData));
    else {
      const { message, code } = errorFrom(json, CHAT_ERROR_DEFAULTS.response);
      settle(() => handlers.onError(message, code));
    }
    return;
  }

  const parser = new SseParser(({ event, data }) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    if (event === 'chat:delta') {
      if (!settled && !options.signal.aborted) handlers.onDelta((parsed as ChatDeltaPayload).text ?? '');
    } else if (event === 'chat:done') {
      settle(() => handlers.onDone((parsed as ChatDonePayload).data));
    } else if (event === 'chat:error') {
      const p = parsed as ChatErrorPayload;
      settle(() => handlers.onError(p.message || CHAT_ERROR_DEFAULTS.unknown, p.code));
    }
  });

  try {
    if (!response.body) {
      parser.push(await response.text());
    } else {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
        if (settled) {
          await reader.cancel().catch(() => undefined);
          break;
        }
      }
      parser.push(decoder.decode());
    }
    parser.end();
  } catch {
    // The connection broke mid-reply (or the visitor stopped it: settle() ignores that).
  }
  settle(() => handlers.onError(CHAT_ERROR_DEFAULTS.response));
}
