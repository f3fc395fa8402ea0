import { BookOpen, Clock, OctagonX } from 'lucide-react';
import { formatDuration } from '../../../lib/format';
import type { ChatMessage } from '../../../lib/reply-stream';
import { CHAT } from '../strings';
import { Markdown } from './Markdown';
import { ReplyFeedback } from './ReplyFeedback';

/** Cited sources and processing time under an agent reply: small and quiet. */
function ReplyMeta({ message }: { message: ChatMessage }) {
  const { metadata, stopped } = message;
  if (!metadata && !stopped) return null;
  return (
    <div className="message-meta">
      {stopped && (
        <span className="message-stopped">
          <OctagonX aria-hidden="true" size={13} />
          {CHAT.stopped}
        </span>
      )}
      {metadata && metadata.sources.length > 0 && (
        <span className="message-sources">
          <BookOpen aria-hidden="true" size={13} />
          <span className="sr-only">{CHAT.sources}: </span>
          <span className="message-source-list">
            {metadata.sources.map((source) => (
              <span key={source.id} className="message-source">
                {source.title}
              </span>
            ))}
          </span>
        </span>
      )}
      {metadata && (
        <span className="message-time" title={CHAT.processingTime}>
          <Clock aria-hidden="true" size={13} />
          <span className="sr-only">{CHAT.processingTime}: </span>
          {formatDuration(metadata.processingTime)}
        </span>
      )}
      {metadata?.replyId && <ReplyFeedback replyId={metadata.replyId} />}
    </div>
  );
}

export function MessageItem({ message }: { message: ChatMessage }) {
  const waiting = message.streaming && message.content === '';
  const className = ['message', `message-${message.type}`, message.error && 'message-error', message.streaming && 'is-streaming']
    .filter(Boolean)
    .join(' ');
  return (
    <article className={className} data-message-id={message.id} data-streaming={message.streaming ? 'true' : undefined} data-stopped={message.stopped ? 'true' : undefined}>
      <div className="message-bubble" dir="auto">
        {waiting ? (
          <p className="message-processing" role="status">
            <span className="typing-dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {CHAT.processing}
          </p>
        ) : message.type === 'agent' ? (
          <div className="message-content markdown">
            <Markdown text={message.content} />
          </div>
        ) : (
          <p className="message-content message-plain">{message.content}</p>
        )}
      </div>
      {message.type === 'agent' && <ReplyMeta message={message} />}
    </article>
  );
}
