import { useLayoutEffect, useRef } from 'react';
import type { ChatMessage } from '../../../lib/reply-stream';
import { CHAT } from '../strings';
import { type AskIn, MessageItem } from './MessageItem';

/** How close to the bottom (px) still counts as "reading the newest message". */
const STICKY_PX = 80;

/**
 * The conversation. A new message always scrolls it to the bottom; a growing reply keeps it
 * there unless the visitor has scrolled up to read something earlier.
 */
export function MessageList({ messages, busy, onAskIn }: { messages: ChatMessage[]; busy: boolean; onAskIn?: AskIn }) {
  const list = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const count = useRef(0);

  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const added = messages.length !== count.current;
    count.current = messages.length;
    if (added || stick.current) {
      el.scrollTop = el.scrollHeight;
      stick.current = true;
    }
  }, [messages]);

  return (
    <div
      ref={list}
      className="message-list"
      role="log"
      aria-label={CHAT.messagesLabel}
      aria-busy={busy}
      tabIndex={0}
      onScroll={(event) => {
        const el = event.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_PX;
      }}
    >
      {messages.map((message, i) => {
        const previous = messages[i - 1];
        const question = message.type === 'agent' && previous?.type === 'user' ? previous.content : undefined;
        return <MessageItem key={message.id} message={message} question={question} onAskIn={busy ? undefined : onAskIn} />;
      })}
    </div>
  );
}
