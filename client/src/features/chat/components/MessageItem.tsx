import { ArrowRightLeft, BookOpen, Clock, OctagonX } from 'lucide-react';
import { getVertical, type VerticalId } from '@shared/catalog/verticals';
import { formatDuration } from '../../../lib/format';
import type { ChatMessage } from '../../../lib/reply-stream';
import { CHAT } from '../strings';
import { Markdown } from './Markdown';
import { ReplyFeedback } from './ReplyFeedback';

/** Asks the question of a reply again in another vertical (see MessageItem's onAskIn). */
export type AskIn = (vertical: VerticalId, question: string) => void;

/** Cited sources and processing time under an agent reply: small and quiet. */
function ReplyMeta({ message, question, onAskIn }: { message: ChatMessage; question?: string; onAskIn?: AskIn }) {
  const { metadata, stopped } = message;
  if (!metadata && !stopped) return null;
  const suggested = metadata?.suggestedVertical ? getVertical(metadata.suggestedVertical) : undefined;
  return (
    <div className="message-meta">
      {suggested && question && onAskIn && (
        <button type="button" className="message-ask-in" onClick={() => onAskIn(suggested.id, question)}>
          <ArrowRightLeft aria-hidden="true" size={13} />
          {CHAT.askIn(suggested.name)}
        </button>
      )}
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
      {metadata?.replyId && <ReplyFeedback replyId={metadata.replyId} initialVote={message.vote ?? null} />}
    </div>
  );
}

/**
 * One message. `question` is the visitor's message an agent reply answers; with `onAskIn`, a reply
 * that found nothing but names the vertical whose knowledge matches offers to ask it there.
 */
export function MessageItem({ message, question, onAskIn }: { message: ChatMessage; question?: string; onAskIn?: AskIn }) {
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
      {message.type === 'agent' && <ReplyMeta message={message} question={question} onAskIn={onAskIn} />}
    </article>
  );
}
