import type { ReplyData } from '@shared/contracts/chat';
import type { ChatDeltaPayload, ChatDonePayload, ChatErrorPayload, ChatRestartPayload, ChatSendPayload, ChatStartPayload } from '@shared/contracts/socket';
import { CHAT_ERROR_DEFAULTS } from '../../../lib/reply-stream';
import { SseParser } from './sse';

/** Receives one reply's frames, whichever transport carries them. Exactly one of done/error fires. */
export interface ReplyHandlers {
  /** `seq`: the frame's number (frames the client already has are dropped before they get here). */
  onDelta(text: string, seq?: number): void;
  /** The server writing the reply stopped and another took it over: discard the text so far (the next deltas write it again). */
  onRestart?(): void;
  onDone(data: ReplyData): void;
  /** `retryAfter`: rate_limited / quota_exhausted, seconds until the message may be sent again. */
  onError(message: string, code?: string, retryAfter?: number): void;
}

/** What the event stream tells its reader, besides the frames. */
export interface StreamSink extends ReplyHandlers {
  /** The server named the reply (its id resumes it). */
  onStart?(replyId: string): void;
  /** The stream broke after the reply started and before its final frame: it can be resumed. */
  onCut?(): void;
  /** A frame's number (and a restart frame's attempt), before the frame is handed over; false drops it (already seen). */
  accept?(seq: number | undefined, restartAttempt?: number): boolean;
}

interface ErrorBodyLike {
  message?: unknown;
  error?: { message?: unknown; code?: unknown; retryAfter?: unknown };
}

function errorFrom(body: unknown, fallback: string, retryAfterHeader?: string | null): { message: string; code?: string; retryAfter?: number } {
  const b = (body ?? {}) as ErrorBodyLike;
  const message = typeof b.error?.message === 'string' ? b.error.message : typeof b.message === 'string' ? b.message : fallback;
  const header = Number(retryAfterHeader);
  const retryAfter = typeof b.error?.retryAfter === 'number' ? b.error.retryAfter : retryAfterHeader && Number.isFinite(header) ? header : undefined;
  return { message: message || fallback, code: typeof b.error?.code === 'string' ? b.error.code : undefined, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return JSON.parse(await response.text());
  } catch {
    return undefined;
  }
}

interface StreamOptions {
  fetch: typeof fetch;
  signal: AbortSignal;
  baseUrl?: string;
}

/**
 * POST /interact with `Accept: text/event-stream`: the fallback when the socket cannot connect
 * (a proxy that blocks websockets). Reads the body as it arrives and hands each `chat:delta`
 * to the handlers, so the reply still grows word by word. Aborting `signal` ends the request
 * quietly; the reply goes on on the server (a stop is POST /interact/replies/{id}/cancel). A
 * stream cut off after `chat:start` calls `onCut` (resume it with resumeInteract).
 */
export async function streamInteract(payload: ChatSendPayload, sink: StreamSink, options: StreamOptions): Promise<void> {
  const { requestId, ...body } = payload;
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
    if (!options.signal.aborted) sink.onError(CHAT_ERROR_DEFAULTS.send);
    return;
  }
  await readReplyStream(response, sink, options.signal);
}

/** GET /interact/replies/{replyId}/stream: the frames after `after`, then the live ones. */
export async function resumeInteract(replyId: string, after: number, sink: StreamSink, options: StreamOptions): Promise<void> {
  let response: Response;
  try {
    response = await options.fetch(`${options.baseUrl ?? ''}/interact/replies/${encodeURIComponent(replyId)}/stream`, {
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': String(after) },
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch {
    if (!options.signal.aborted) sink.onCut?.();
    return;
  }
  await readReplyStream(response, { ...sink, onStart: undefined }, options.signal, true);
}

async function readReplyStream(response: Response, sink: StreamSink, signal: AbortSignal, resuming = false): Promise<void> {
  let settled = false;
  let started = resuming;
  const settle = (fn: () => void) => {
    if (settled || signal.aborted) return;
    settled = true;
    fn();
  };

  if (!response.ok) {
    const { message, code, retryAfter } = errorFrom(await readJson(response), CHAT_ERROR_DEFAULTS.response, response.headers.get('retry-after'));
    settle(() => sink.onError(message, code, retryAfter));
    return;
  }

  // A server (or proxy) that answers with plain JSON still gives a reply, just not streamed.
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const json = (await readJson(response)) as { success?: boolean; data?: ReplyData } | undefined;
    if (json?.success && json.data) settle(() => sink.onDone(json.data as ReplyData));
    else {
      const { message, code } = errorFrom(json, CHAT_ERROR_DEFAULTS.response);
      settle(() => sink.onError(message, code));
    }
    return;
  }

  const accept = (seq: number | undefined, restartAttempt?: number) => sink.accept?.(seq, restartAttempt) ?? true;
  const parser = new SseParser(({ event, data }) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    if (settled || signal.aborted) return;
    if (event === 'chat:start') {
      started = true;
      sink.onStart?.((parsed as ChatStartPayload).replyId);
    } else if (event === 'chat:delta') {
      const p = parsed as ChatDeltaPayload;
      if (accept(p.seq)) sink.onDelta(p.text ?? '', p.seq);
    } else if (event === 'chat:restart') {
      const p = parsed as ChatRestartPayload;
      if (accept(p.seq, p.attempt ?? 1)) sink.onRestart?.();
    } else if (event === 'chat:done') {
      const p = parsed as ChatDonePayload;
      if (accept(p.seq)) settle(() => sink.onDone(p.data));
    } else if (event === 'chat:error') {
      const p = parsed as ChatErrorPayload;
      if (accept(p.seq)) settle(() => sink.onError(p.message || CHAT_ERROR_DEFAULTS.unknown, p.code, p.retryAfter));
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
    // The connection broke mid-reply (or the visitor left: settle() ignores that).
  }
  if (settled || signal.aborted) return;
  // Cut off mid-reply: a reply the server named can be picked up again.
  if (started && sink.onCut) sink.onCut();
  else settle(() => sink.onError(CHAT_ERROR_DEFAULTS.response));
}
