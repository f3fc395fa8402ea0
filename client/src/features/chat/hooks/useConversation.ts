import { useCallback, useEffect, useRef, useState } from 'react';
import { applyStreamEvent, type ChatMessage, type StreamEvent } from '../../../lib/reply-stream';
import type { ActiveReply, ChatConnection } from '../api/chat-connection';
import { buildChatPayload, newRequestId, type ChatSelection } from '../api/chat-payload';
import { CHAT } from '../strings';

/** Product-spec section 9: a reply that has not finished after this long fails with an error. */
export const CHAT_REQUEST_TIMEOUT_MS = 130000;

interface InFlight {
  requestId: string;
  reply: ActiveReply | null;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The conversation: its messages and the one reply that may be streaming. Sending appends the
 * question and a placeholder reply that grows with each frame; stop, time-out and reset end it.
 */
export function useConversation(options: { connection: ChatConnection; timeoutMs?: number; initial: () => ChatMessage[] }) {
  const { connection, timeoutMs = CHAT_REQUEST_TIMEOUT_MS } = options;
  const [messages, setMessages] = useState<ChatMessage[]>(options.initial);
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const inFlight = useRef<InFlight | null>(null);

  const dispatch = useCallback((event: StreamEvent) => {
    setMessages((current) => {
      const next = applyStreamEvent(current, event);
      messagesRef.current = next;
      return next;
    });
  }, []);

  /** Ends the in-flight reply locally (cancelling it upstream when asked) and returns its id. */
  const release = useCallback((cancel: boolean): string | undefined => {
    const current = inFlight.current;
    if (!current) return undefined;
    inFlight.current = null;
    clearTimeout(current.timer);
    if (cancel) current.reply?.cancel();
    return current.requestId;
  }, []);

  const send = useCallback(
    (query: string, selection: ChatSelection): boolean => {
      if (inFlight.current || query.trim() === '') return false;
      const requestId = newRequestId();
      const timestamp = new Date().toISOString();
      const payload = buildChatPayload(requestId, query, selection, messagesRef.current);
      const next: ChatMessage[] = [
        ...messagesRef.current,
        { id: `${requestId}-q`, type: 'user', content: query, timestamp },
        { id: requestId, type: 'agent', content: '', timestamp, streaming: true },
      ];
      messagesRef.current = next;
      setMessages(next);

      const settle = (event: StreamEvent) => {
        if (inFlight.current?.requestId === requestId) release(false);
        dispatch(event);
      };
      const timer = setTimeout(() => {
        if (inFlight.current?.requestId !== requestId) return;
        release(true);
        dispatch({ kind: 'error', requestId, message: CHAT.timedOut });
      }, timeoutMs);
      inFlight.current = { requestId, reply: null, timer };
      const reply = connection.send(payload, {
        onDelta: (text) => dispatch({ kind: 'delta', requestId, text }),
        onDone: (data) => settle({ kind: 'done', requestId, data }),
        onError: (message, code) => settle({ kind: 'error', requestId, message, code }),
      });
      if (inFlight.current?.requestId === requestId) inFlight.current.reply = reply;
      return true;
    },
    [connection, dispatch, release, timeoutMs],
  );

  /** Stop: cancel upstream; the reply keeps what arrived and is marked stopped. */
  const stop = useCallback(() => {
    const requestId = release(true);
    if (requestId) dispatch({ kind: 'stop', requestId });
  }, [dispatch, release]);

  /** Starts over with these messages (a vertical change); a streaming reply is cancelled. */
  const reset = useCallback(
    (initial: ChatMessage[]) => {
      release(true);
      messagesRef.current = initial;
      setMessages(initial);
    },
    [release],
  );

  const append = useCallback((message: ChatMessage) => {
    setMessages((current) => {
      const next = [...current, message];
      messagesRef.current = next;
      return next;
    });
  }, []);

  useEffect(() => () => void release(true), [release]);

  return { messages, pending: messages.some((m) => m.streaming), send, stop, reset, append };
}
