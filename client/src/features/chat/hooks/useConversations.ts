import { useCallback, useEffect, useRef, useState } from 'react';
import type { VerticalId } from '@shared/catalog/verticals';
import type { VisitorConversation, VisitorMessage } from '@shared/contracts/conversations';
import { applyStreamEvent, metadataFrom, type ChatMessage, type StreamEvent } from '../../../lib/reply-stream';
import type { ActiveReply, ChatConnection } from '../api/chat-connection';
import { buildChatPayload, newRequestId, type ChatSelection, type JurisdictionChoice } from '../api/chat-payload';
import { deleteConversations, loadConversations, startNewChat } from '../api/conversations-api';
import { en } from '../i18n/en';

/** A reply that has not finished after this long fails with an error. */
export const CHAT_REQUEST_TIMEOUT_MS = 130000;

/**
 * Which conversation a message belongs to: one per vertical, and for legal one per jurisdiction
 * (and sub-region), as the server keeps them.
 */
export function scopeKeyOf(vertical: VerticalId, jurisdiction?: JurisdictionChoice | null): string {
  if (vertical !== 'legal' || !jurisdiction) return vertical;
  return `legal:${jurisdiction.code}${jurisdiction.subRegion ? `/${jurisdiction.subRegion}` : ''}`;
}

interface InFlight {
  requestId: string;
  scope: string;
  reply: ActiveReply | null;
  timer: ReturnType<typeof setTimeout>;
}

/** A stored message as the page shows it (a failed reply becomes its apology, as when it failed live). */
export function chatMessagesOf(message: VisitorMessage): ChatMessage[] {
  if (message.role === 'user') return [{ id: message.id, type: 'user', content: message.content, timestamp: message.createdAt }];
  // A person's message shows with their name, as it did live.
  if (message.role === 'human') return [{ id: message.id, type: 'agent', content: message.content, timestamp: message.createdAt, ...(message.author ? { author: message.author.name } : {}) }];
  const reply: ChatMessage = { id: message.id, type: 'agent', content: message.content, timestamp: message.createdAt, vote: message.feedback };
  switch (message.status) {
    case 'complete':
      return [{ ...reply, ...(message.reply ? { metadata: metadataFrom(message.reply) } : {}) }];
    case 'streaming':
      return [{ ...reply, content: '', streaming: true }];
    case 'stopped':
      return [{ ...reply, stopped: true }];
    default:
      return applyStreamEvent([{ ...reply, streaming: true }], {
        kind: 'error',
        requestId: message.id,
        message: message.error?.message ?? en.errors.interrupted,
        code: message.error?.code,
      });
  }
}

export interface ConversationsOptions {
  connection: ChatConnection;
  fetch: typeof fetch;
  timeoutMs?: number;
  /** The messages a conversation starts with (the vertical's welcome, the jurisdiction's). */
  welcome: (scope: string, conversation?: VisitorConversation) => ChatMessage[];
  /** The scope of a conversation the server sent. */
  scopeOf: (conversation: VisitorConversation) => string;
  /** Each stored conversation as it arrives with the page (its handoff state among the rest). */
  onStored?: (conversation: VisitorConversation, scope: string) => void;
  /**
   * A question a rate limit refused (it was not taken: it leaves the conversation) and how many
   * seconds until one may be sent again.
   */
  onLimited?: (refusal: { scope: string; query: string; retryAfter: number; message: string }) => void;
}

/** Errors that mean "not now" rather than "this reply failed": the question goes back to the composer. */
const LIMIT_CODES = new Set(['rate_limited']);

/**
 * The visitor's conversations, one per scope, as the page shows them: read back from the server
 * when the page opens (a reply still streaming there is picked up again), kept when the visitor
 * switches tabs, started over with "New chat", deleted on request. Sending appends the question
 * and a placeholder reply that grows with each frame; stop, time-out, New chat and delete end it.
 */
export function useConversations(options: ConversationsOptions) {
  const { connection, timeoutMs = CHAT_REQUEST_TIMEOUT_MS } = options;
  const [byScope, setByScope] = useState<Record<string, ChatMessage[]>>({});
  const stateRef = useRef(byScope);
  stateRef.current = byScope;
  const flights = useRef(new Map<string, InFlight>());
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const [loaded, setLoaded] = useState(false);
  /** The server's conversation behind each scope, as far as this page knows it (stored, replies, handoff). */
  const conversationIds = useRef(new Map<string, string>());

  /** Records that `scope` shows the server's conversation `id`. */
  const remember = useCallback((scope: string, id: string) => {
    for (const [other, known] of conversationIds.current) if (known === id && other !== scope) conversationIds.current.delete(other);
    conversationIds.current.set(scope, id);
  }, []);

  /** The scope that shows conversation `id`; undefined when this page does not know it. */
  const scopeOfConversation = useCallback((id: string): string | undefined => {
    for (const [scope, known] of conversationIds.current) if (known === id) return scope;
    return undefined;
  }, []);

  const messagesOf = useCallback((scope: string): ChatMessage[] => stateRef.current[scope] ?? optionsRef.current.welcome(scope), []);

  const update = useCallback((scope: string, change: (messages: ChatMessage[]) => ChatMessage[]) => {
    const current = stateRef.current;
    const next = { ...current, [scope]: change(current[scope] ?? optionsRef.current.welcome(scope)) };
    stateRef.current = next;
    setByScope(next);
  }, []);

  /** Ends an in-flight reply locally (cancelling it upstream when asked). */
  const release = useCallback((requestId: string, cancel: boolean): InFlight | undefined => {
    const flight = flights.current.get(requestId);
    if (!flight) return undefined;
    flights.current.delete(requestId);
    clearTimeout(flight.timer);
    if (cancel) flight.reply?.cancel();
    return flight;
  }, []);

  /** Follows a reply: its frames go to `scope`'s message `requestId`. */
  const follow = useCallback(
    (scope: string, requestId: string, start: (handlers: Parameters<ChatConnection['send']>[1]) => ActiveReply, query?: string) => {
      const dispatch = (event: StreamEvent) => update(scope, (messages) => applyStreamEvent(messages, event));
      const settle = (event: StreamEvent) => {
        release(requestId, false);
        dispatch(event);
      };
      const timer = setTimeout(() => {
        if (!release(requestId, true)) return;
        dispatch({ kind: 'error', requestId, message: en.errors.timedOut });
      }, timeoutMs);
      const flight: InFlight = { requestId, scope, reply: null, timer };
      flights.current.set(requestId, flight);
      const reply = start({
        onDelta: (text) => dispatch({ kind: 'delta', requestId, text }),
        onRestart: () => dispatch({ kind: 'restart', requestId }),
        onDone: (data) => {
          if (data.conversationId) remember(scope, data.conversationId);
          settle({ kind: 'done', requestId, data });
        },
        onError: (message, code, retryAfter) => {
          const onLimited = optionsRef.current.onLimited;
          if (query !== undefined && code && LIMIT_CODES.has(code) && onLimited) {
            // Refused before it started: the question and its placeholder leave the conversation.
            release(requestId, false);
            update(scope, (messages) => messages.filter((m) => m.id !== requestId && m.id !== `${requestId}-q`));
            onLimited({ scope, query, retryAfter: Math.max(1, Math.ceil(retryAfter ?? 1)), message });
            return;
          }
          settle({ kind: 'error', requestId, message, code });
        },
      });
      if (flights.current.get(requestId) === flight) flight.reply = reply;
    },
    [release, remember, timeoutMs, update],
  );

  // The visitor's conversations, once per page load.
  useEffect(() => {
    let cancelled = false;
    loadConversations(optionsRef.current.fetch).then(
      (conversations) => {
        if (cancelled) return;
        const { welcome, scopeOf } = optionsRef.current;
        for (const conversation of conversations) {
          const scope = scopeOf(conversation);
          remember(scope, conversation.id);
          optionsRef.current.onStored?.(conversation, scope);
          // The visitor already asked something here before the list arrived: that stays.
          if ((stateRef.current[scope] ?? []).some((m) => m.type === 'user')) continue;
          const messages = [...welcome(scope, conversation), ...conversation.messages.flatMap(chatMessagesOf)];
          update(scope, () => messages);
          for (const message of messages) {
            if (message.streaming) follow(scope, message.id, (handlers) => connection.resume(message.id, message.id, handlers));
          }
        }
        setLoaded(true);
      },
      (error: unknown) => {
        // The page works without them (a first visit, or the server is away).
        if (!cancelled) console.warn('Could not load the conversations', error);
        if (!cancelled) setLoaded(true);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [connection, follow, remember, update]);

  const send = useCallback(
    (scope: string, query: string, selection: ChatSelection): boolean => {
      if (query.trim() === '' || messagesOf(scope).some((m) => m.streaming)) return false;
      const requestId = newRequestId();
      const timestamp = new Date().toISOString();
      const payload = buildChatPayload(requestId, query, selection, messagesOf(scope));
      update(scope, (messages) => [
        ...messages,
        { id: `${requestId}-q`, type: 'user', content: query, timestamp },
        { id: requestId, type: 'agent', content: '', timestamp, streaming: true },
      ]);
      follow(scope, requestId, (handlers) => connection.send(payload, handlers), query);
      return true;
    },
    [connection, follow, messagesOf, update],
  );

  /**
   * Retry (after Stop or an error) and Regenerate (after a reply): the last question of the scope
   * is asked again, and its reply (with any apology after it) is replaced by the new one.
   */
  const retry = useCallback(
    (scope: string, selection: ChatSelection): boolean => {
      const messages = messagesOf(scope);
      if (messages.some((m) => m.streaming)) return false;
      const last = messages.map((m) => m.type).lastIndexOf('user');
      if (last < 0) return false;
      const question = messages[last];
      const requestId = newRequestId();
      const payload = buildChatPayload(requestId, question.content, selection, messages.slice(0, last));
      update(scope, (current) => [
        ...current.slice(0, last + 1),
        { id: requestId, type: 'agent', content: '', timestamp: new Date().toISOString(), streaming: true },
      ]);
      follow(scope, requestId, (handlers) => connection.send(payload, handlers));
      return true;
    },
    [connection, follow, messagesOf, update],
  );

  /** Stop: cancel upstream; the reply keeps what arrived and is marked stopped. */
  const stop = useCallback(
    (scope: string) => {
      for (const flight of [...flights.current.values()]) {
        if (flight.scope !== scope) continue;
        release(flight.requestId, true);
        update(scope, (messages) => applyStreamEvent(messages, { kind: 'stop', requestId: flight.requestId }));
      }
    },
    [release, update],
  );

  /** "New chat": the panel starts over with its welcome, and the server starts a new conversation. */
  const newChat = useCallback(
    async (scope: string, vertical: VerticalId, jurisdiction: JurisdictionChoice | null) => {
      for (const flight of [...flights.current.values()]) if (flight.scope === scope) release(flight.requestId, true);
      update(scope, () => optionsRef.current.welcome(scope));
      conversationIds.current.delete(scope);
      try {
        await startNewChat(optionsRef.current.fetch, vertical as Parameters<typeof startNewChat>[1], jurisdiction);
      } catch (error) {
        console.error('Failed to start a new chat', error);
      }
    },
    [release, update],
  );

  /** Deletes every conversation of the visitor on the server; every panel starts over. */
  const deleteAll = useCallback(async () => {
    for (const flight of [...flights.current.values()]) release(flight.requestId, true);
    stateRef.current = {};
    conversationIds.current.clear();
    setByScope({});
    await deleteConversations(optionsRef.current.fetch);
  }, [release]);

  /** Adds a message the client makes itself (a jurisdiction's welcome). */
  const append = useCallback((scope: string, message: ChatMessage) => update(scope, (messages) => [...messages, message]), [update]);

  /**
   * A message the server pushed for conversation `conversationId` (a person's reply): added to the
   * scope that shows that conversation, once, whichever scope the visitor is looking at. A
   * conversation this page does not know (started in another tab) is looked up in the visitor's
   * list first. Answers the scope it went to, or undefined when it is none of the visitor's.
   */
  const deliver = useCallback(
    async (conversationId: string, message: ChatMessage): Promise<string | undefined> => {
      let scope = scopeOfConversation(conversationId);
      if (scope === undefined) {
        try {
          const match = (await loadConversations(optionsRef.current.fetch)).find((c) => c.id === conversationId);
          if (match) {
            scope = optionsRef.current.scopeOf(match);
            remember(scope, conversationId);
            // The scope shows that conversation as the server has it (what another tab wrote
            // included), unless a reply is streaming in it here.
            if (!(stateRef.current[scope] ?? []).some((m) => m.streaming)) {
              const target = scope;
              update(target, () => [...optionsRef.current.welcome(target, match), ...match.messages.flatMap(chatMessagesOf)]);
            }
          }
        } catch {
          return undefined;
        }
      }
      if (scope === undefined) return undefined;
      const target = scope;
      update(target, (messages) => (messages.some((m) => m.id === message.id) ? messages : [...messages, message]));
      return target;
    },
    [remember, scopeOfConversation, update],
  );

  useEffect(
    () => () => {
      // Leaving the page is not a stop: the replies go on on the server and are picked up again on return.
      for (const flight of [...flights.current.values()]) release(flight.requestId, false);
    },
    [release],
  );

  return {
    loaded,
    messagesOf,
    pendingIn: (scope: string) => messagesOf(scope).some((m) => m.streaming),
    send,
    retry,
    stop,
    newChat,
    deleteAll,
    append,
    deliver,
    remember,
    scopeOfConversation,
    /** The server's conversation the scope shows, when known. */
    conversationIdOf: (scope: string) => conversationIds.current.get(scope),
    /** Re-renders with the latest state (messagesOf reads it). */
    version: byScope,
  };
}
