import type { FeedbackVote } from '@shared/contracts/analytics';
import type { ReplyData, ReplyOptimization, ReplySource } from '@shared/contracts/chat';
import type { VerticalId } from '@shared/catalog/verticals';

/** The texts a failed reply falls back to. */
export const CHAT_ERROR_DEFAULTS = Object.freeze({
  /** The request never reached the server, or the server refused it without a message. */
  send: 'Failed to send message',
  /** The request went out but no reply came back. */
  response: 'Failed to get response',
  /** Something failed without saying what. */
  unknown: 'Unknown error',
});

/** The error code the server sends after a `chat:cancel`; a stop, never an error for the visitor. */
export const CANCELLED_CODE = 'cancelled';

/** What an agent reply carries besides its text. */
export interface MessageMetadata {
  /** The reply's executionTime, in ms. */
  processingTime: number;
  confidence: number;
  vertical: VerticalId;
  agentsInvolved: string[];
  a2aCompliant: boolean;
  optimization: ReplyOptimization;
  /** Knowledge items the answer drew on, best first. */
  sources: ReplySource[];
  /** Id of the reply for feedback (absent when the server did not record it). */
  replyId?: string;
  /** Nothing in the knowledge base answered it, but this vertical's knowledge does. */
  suggestedVertical?: VerticalId;
  /** false: the knowledge base had no answer (the page offers a person). */
  answered?: boolean;
  /** The conversation was handed to a person by this message ('waiting' or 'open'). */
  handoff?: 'bot' | 'waiting' | 'open' | 'resolved';
}

/** A chat message as the page shows it; an agent reply grows while its frames arrive. */
export interface ChatMessage {
  id: string;
  type: 'user' | 'agent';
  content: string;
  /** ISO timestamp. */
  timestamp: string;
  metadata?: MessageMetadata;
  /** The reply is still arriving. */
  streaming?: boolean;
  /** The visitor stopped the reply; `content` is what had arrived. */
  stopped?: boolean;
  /** The message is the apology for a failed reply. */
  error?: boolean;
  /** Why the reply failed (the server's or the client's message, English), for the apology in the visitor's language. */
  errorReason?: string;
  /** The server's error code for it, when it gave one (the page translates the reasons it knows by code). */
  errorCode?: string;
  /** The visitor's vote on this reply, as the server keeps it (a conversation shown again). */
  vote?: FeedbackVote | null;
  /** A person's reply (the conversation was handed over): their name. */
  author?: string;
}

export type StreamEvent =
  | { kind: 'delta'; requestId: string; text: string }
  /** Another server took the reply over: what arrived so far is discarded, the reply is written again. */
  | { kind: 'restart'; requestId: string }
  | { kind: 'done'; requestId: string; data: ReplyData }
  | { kind: 'error'; requestId: string; message?: string; code?: string }
  | { kind: 'stop'; requestId: string };

/** The reason a reply failed, ready for the apology: server messages are sentences, their final full stop is dropped. */
export function reasonText(message: string | undefined): string {
  return (message ?? '').trim().replace(/\.+$/, '') || CHAT_ERROR_DEFAULTS.unknown;
}

/** 'I apologize, but I encountered an error: {message}. Please try again.' */
export function apologyText(message: string | undefined): string {
  return `I apologize, but I encountered an error: ${reasonText(message)}. Please try again.`;
}

export function metadataFrom(data: ReplyData): MessageMetadata {
  return {
    processingTime: data.executionTime,
    confidence: data.confidence,
    vertical: data.vertical,
    agentsInvolved: data.agentsInvolved,
    a2aCompliant: data.a2aCompliant,
    optimization: data.optimization,
    sources: data.sources ?? [],
    ...(data.replyId ? { replyId: data.replyId } : {}),
    ...(data.suggestedVertical ? { suggestedVertical: data.suggestedVertical } : {}),
    ...(data.answered !== undefined ? { answered: data.answered } : {}),
    ...(data.handoff ? { handoff: data.handoff } : {}),
  };
}

/**
 * Applies one streamed frame to the message list (pure, so it is easy to test). Frames for a reply
 * that is no longer streaming (stopped, finished, or from a conversation that was reset) are
 * ignored, so the server's 'cancelled' error after a stop never replaces the partial text.
 */
export function applyStreamEvent(messages: ChatMessage[], event: StreamEvent): ChatMessage[] {
  const index = messages.findIndex((m) => m.id === event.requestId);
  if (index < 0 || !messages[index].streaming) return messages;
  const reply = messages[index];
  const replaceWith = (...next: ChatMessage[]) => [...messages.slice(0, index), ...next, ...messages.slice(index + 1)];
  switch (event.kind) {
    case 'delta':
      return replaceWith({ ...reply, content: reply.content + event.text });
    case 'restart':
      return replaceWith({ ...reply, content: '' });
    case 'done':
      return replaceWith({ ...reply, content: event.data.response, metadata: metadataFrom(event.data), streaming: false });
    case 'stop':
      return replaceWith({ ...reply, streaming: false, stopped: true });
    case 'error': {
      if (event.code === CANCELLED_CODE) return replaceWith({ ...reply, streaming: false, stopped: true });
      const apology = apologyText(event.message);
      // Nothing arrived yet: the placeholder becomes the apology. Otherwise keep what arrived and
      // append the apology after it.
      const errorReason = reasonText(event.message);
      const failure = { error: true, errorReason, ...(event.code ? { errorCode: event.code } : {}) };
      if (reply.content === '') return replaceWith({ ...reply, content: apology, streaming: false, ...failure });
      return replaceWith(
        { ...reply, streaming: false },
        { id: `${reply.id}-error`, type: 'agent', content: apology, timestamp: new Date().toISOString(), ...failure },
      );
    }
  }
}
