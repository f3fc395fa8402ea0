import type { ReplyData } from '@shared/contracts/chat';

/** A chat message as the page shows it; an agent reply grows while its frames arrive. */
export interface ChatMessage {
  id: string;
  type: 'user' | 'agent';
  content: string;
  streaming?: boolean;
  data?: ReplyData;
  error?: boolean;
}

export type StreamEvent =
  | { kind: 'delta'; requestId: string; text: string }
  | { kind: 'done'; requestId: string; data: ReplyData }
  | { kind: 'error'; requestId: string; message: string };

/** Applies one streamed frame to the message list (pure, so it is easy to test). */
export function applyStreamEvent(messages: ChatMessage[], event: StreamEvent): ChatMessage[] {
  return messages.map((m) => {
    if (m.id !== event.requestId) return m;
    switch (event.kind) {
      case 'delta':
        return { ...m, content: m.content + event.text };
      case 'done':
        return { ...m, content: event.data.response, data: event.data, streaming: false };
      case 'error':
        return {
          ...m,
          content: `I apologize, but I encountered an error: ${event.message || 'Unknown error'}. Please try again.`,
          streaming: false,
          error: true,
        };
    }
  });
}
