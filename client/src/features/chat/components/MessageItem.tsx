import { useState } from 'react';
import { ArrowRightLeft, BookOpen, Check, Clock, Copy, OctagonX, RefreshCw, RotateCcw } from 'lucide-react';
import type { ReplySource } from '@shared/contracts/chat';
import { getVertical, type VerticalId } from '@shared/catalog/verticals';
import { copyText } from '../../../lib/clipboard';
import { formatDuration } from '../../../lib/format';
import type { ChatMessage } from '../../../lib/reply-stream';
import { en, useStrings, type ChatStrings } from '../i18n';
import { Markdown } from './LazyMarkdown';
import type { FeedbackVote } from '@shared/contracts/analytics';
import { ReplyFeedback } from './ReplyFeedback';

/** Asks the question of a reply again in another vertical (see MessageItem's onAskIn). */
export type AskIn = (vertical: VerticalId, question: string) => void;

/** What the visitor can do with a reply. */
export interface ReplyActions {
  /** Ask the last question again: 'retry' after Stop or an error, 'regenerate' after a reply. */
  again?: { kind: 'retry' | 'regenerate'; run(): void };
  /** Open a cited source in the side panel. */
  onOpenSource?(source: ReplySource): void;
  /** The visitor's vote on a reply was stored (a thumbs-down offers a person). */
  onVote?(replyId: string, vote: FeedbackVote | null): void;
}

/**
 * The apology of a failed reply in the visitor's language: a reason whose error code the page knows
 * in the dictionary's words (English keeps the server's own text: see errorCodes in en.ts), the
 * texts the client itself makes translated too, and otherwise the server's text as it came.
 */
export function apologyIn(t: ChatStrings, reason: string | undefined, code?: string): string {
  const byCode = code && t !== en && Object.hasOwn(t.errorCodes, code) ? t.errorCodes[code as keyof ChatStrings['errorCodes']] : undefined;
  const known = (Object.keys(en.errors) as (keyof ChatStrings['errors'])[]).find((key) => key !== 'apology' && en.errors[key] === reason);
  const text = byCode ?? (known ? (t.errors[known] as string) : (reason ?? t.errors.unknown));
  return t.errors.apology(text);
}

function CopyButton({ text }: { text: string }) {
  const t = useStrings().actions;
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const label = state === 'copied' ? t.copied : state === 'failed' ? t.copyFailed : t.copy;
  return (
    <button
      type="button"
      className="reply-action"
      aria-label={label}
      title={label}
      onClick={async () => {
        setState((await copyText(text)) ? 'copied' : 'failed');
        setTimeout(() => setState('idle'), 2000);
      }}
    >
      {state === 'copied' ? <Check aria-hidden="true" size={18} /> : <Copy aria-hidden="true" size={18} />}
    </button>
  );
}

/** Cited sources (chips that open the passage) and processing time under an agent reply. */
function ReplyMeta({ message, question, onAskIn, actions }: { message: ChatMessage; question?: string; onAskIn?: AskIn; actions?: ReplyActions }) {
  const t = useStrings();
  const { metadata, stopped } = message;
  if (!metadata && !stopped) return null;
  const suggested = metadata?.suggestedVertical ? getVertical(metadata.suggestedVertical) : undefined;
  return (
    <div className="message-meta">
      {suggested && question && onAskIn && (
        <button type="button" className="message-ask-in" onClick={() => onAskIn(suggested.id, question)}>
          <ArrowRightLeft aria-hidden="true" size={14} />
          {t.chat.askIn(t.verticals[suggested.id].name)}
        </button>
      )}
      {stopped && (
        <span className="message-stopped">
          <OctagonX aria-hidden="true" size={14} />
          {t.chat.stopped}
        </span>
      )}
      {metadata && metadata.sources.length > 0 && (
        <span className="message-sources">
          <BookOpen aria-hidden="true" size={14} />
          <span className="sr-only">{t.chat.sources}: </span>
          <span className="message-source-list">
            {metadata.sources.map((source) =>
              actions?.onOpenSource ? (
                <button
                  key={source.id}
                  type="button"
                  className="message-source"
                  aria-haspopup="dialog"
                  aria-label={t.source.open(source.title)}
                  onClick={() => actions.onOpenSource?.(source)}
                >
                  {source.title}
                </button>
              ) : (
                <span key={source.id} className="message-source">
                  {source.title}
                </span>
              ),
            )}
          </span>
        </span>
      )}
      {metadata && (
        <span className="message-time" title={t.chat.processingTime}>
          <Clock aria-hidden="true" size={14} />
          <span className="sr-only">{t.chat.processingTime}: </span>
          {/* "218 ms" reads left to right in an Arabic page too (not "ms 218"). */}
          <bdi dir="ltr">{formatDuration(metadata.processingTime)}</bdi>
        </span>
      )}
    </div>
  );
}

/** Copy, Retry / Regenerate and the thumbs: one row of 44 px buttons that never changes height. */
function ActionRow({ message, actions }: { message: ChatMessage; actions?: ReplyActions }) {
  const t = useStrings().actions;
  // A person's message is not the assistant's to write again.
  const again = message.author ? undefined : actions?.again;
  const copyable = !message.error && message.content.trim() !== '';
  if (!copyable && !again && !message.metadata?.replyId) return null;
  return (
    <div className="message-actions" role="group" aria-label={t.group}>
      {copyable && <CopyButton text={message.content} />}
      {again && (
        <button type="button" className="reply-action has-label" onClick={again.run}>
          {again.kind === 'retry' ? <RotateCcw aria-hidden="true" size={18} /> : <RefreshCw aria-hidden="true" size={18} />}
          <span>{again.kind === 'retry' ? t.retry : t.regenerate}</span>
        </button>
      )}
      {message.metadata?.replyId && (
        <ReplyFeedback
          replyId={message.metadata.replyId}
          initialVote={message.vote ?? null}
          onChange={actions?.onVote ? (vote) => actions.onVote!(message.metadata!.replyId!, vote) : undefined}
        />
      )}
    </div>
  );
}

/**
 * One message. `question` is the visitor's message an agent reply answers; with `onAskIn`, a reply
 * that found nothing but names the vertical whose knowledge matches offers to ask it there.
 * `welcome` messages (the page's own greeting) have no actions.
 */
export function MessageItem({
  message,
  question,
  onAskIn,
  actions,
  welcome = false,
}: {
  message: ChatMessage;
  question?: string;
  onAskIn?: AskIn;
  actions?: ReplyActions;
  welcome?: boolean;
}) {
  const t = useStrings();
  const waiting = message.streaming && message.content === '';
  const className = ['message', `message-${message.type}`, message.error && 'message-error', message.streaming && 'is-streaming']
    .filter(Boolean)
    .join(' ');
  const content = message.error && message.errorReason !== undefined ? apologyIn(t, message.errorReason, message.errorCode) : message.content;
  return (
    <article className={className} data-message-id={message.id} data-streaming={message.streaming ? 'true' : undefined} data-stopped={message.stopped ? 'true' : undefined}>
      <div className="message-bubble" dir="auto">
        {message.author && <p className="message-author">{message.author}</p>}
        {waiting ? (
          <p className="message-processing" role="status">
            <span className="typing-dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {t.chat.processing}
          </p>
        ) : message.type === 'agent' ? (
          <div className="message-content markdown">
            <Markdown text={content} streaming={message.streaming} />
          </div>
        ) : (
          <p className="message-content message-plain">{content}</p>
        )}
      </div>
      {message.type === 'agent' && <ReplyMeta message={message} question={question} onAskIn={onAskIn} actions={actions} />}
      {message.type === 'agent' && !welcome && !message.streaming && <ActionRow message={message} actions={actions} />}
    </article>
  );
}
