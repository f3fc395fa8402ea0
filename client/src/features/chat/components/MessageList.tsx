import { useLayoutEffect, useRef } from 'react';
import type { ReplySource } from '@shared/contracts/chat';
import type { ChatMessage } from '../../../lib/reply-stream';
import { useStrings } from '../i18n';
import { type AskIn, MessageItem, type ReplyActions } from './MessageItem';

/** How close to the bottom (px) still counts as "reading the newest message". */
const STICKY_PX = 80;

export interface MessageListProps {
  messages: ChatMessage[];
  busy: boolean;
  onAskIn?: AskIn;
  /** Ask the last question again (Retry after Stop or an error, Regenerate after a reply). */
  onRetry?(): void;
  onOpenSource?(source: ReplySource): void;
  onVote?: ReplyActions['onVote'];
}

/**
 * The conversation. A new message always scrolls it to the bottom; a growing reply keeps it
 * there unless the visitor has scrolled up to read something earlier. The last reply offers
 * Retry (stopped or failed) or Regenerate.
 */
export function MessageList({ messages, busy, onAskIn, onRetry, onOpenSource, onVote }: MessageListProps) {
  const t = useStrings();
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

  const firstQuestion = messages.findIndex((m) => m.type === 'user');
  const lastQuestion = messages.map((m) => m.type).lastIndexOf('user');
  const last = messages[messages.length - 1];
  const canAgain = !busy && onRetry && last?.type === 'agent' && lastQuestion >= 0 && !last.streaming;
  const again: ReplyActions['again'] = canAgain ? { kind: last.error || last.stopped ? 'retry' : 'regenerate', run: onRetry } : undefined;

  return (
    <div
      ref={list}
      className="message-list"
      role="log"
      aria-label={t.chat.messagesLabel}
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
        const isLast = i === messages.length - 1;
        return (
          <MessageItem
            key={message.id}
            message={message}
            question={question}
            onAskIn={busy ? undefined : onAskIn}
            welcome={firstQuestion < 0 || i < firstQuestion}
            actions={{ onOpenSource, onVote, ...(isLast && again ? { again } : {}) }}
          />
        );
      })}
    </div>
  );
}
