import type { FeedbackRequest, FeedbackResult, FeedbackVote } from '@shared/contracts/analytics';
import { ThumbsDown, ThumbsUp } from 'lucide-react';
import { useRef, useState } from 'react';
import { apiRequest } from '../../../lib/api';
import { en, useStrings } from '../i18n';

/** English texts of the reply feedback buttons (the visitor's language comes from useStrings). */
export const REPLY_FEEDBACK = en.feedback;

export interface ReplyFeedbackProps {
  /** The reply's id (`replyId` of the reply data). */
  replyId: string;
  /** The vote already given, e.g. when the conversation is shown again. */
  initialVote?: FeedbackVote | null;
  onChange?: (vote: FeedbackVote | null) => void;
}

/**
 * Thumbs up / down under an agent reply: one vote per reply, changed by pressing the other
 * thumb and withdrawn by pressing the chosen one again. Shown as chosen at once; if the server
 * refuses, the previous choice comes back with a short note. Votes feed the agent's Helpful rate.
 * The note takes the rest of the row and never wraps, so the row does not move when it appears.
 */
export function ReplyFeedback({ replyId, initialVote = null, onChange }: ReplyFeedbackProps) {
  const t = useStrings().feedback;
  const [vote, setVote] = useState<FeedbackVote | null>(initialVote);
  const [failed, setFailed] = useState(false);
  const sequence = useRef(0);

  const choose = async (pressed: FeedbackVote) => {
    const previous = vote;
    const next = vote === pressed ? null : pressed;
    const mine = ++sequence.current;
    setVote(next);
    setFailed(false);
    try {
      const body: FeedbackRequest = { replyId, vote: next };
      const result = await apiRequest<{ data: FeedbackResult }>('/api/feedback', { method: 'POST', body });
      if (mine === sequence.current) onChange?.(result.data.vote);
    } catch (error) {
      if (mine !== sequence.current) return;
      console.error('Failed to save reply feedback', error);
      setVote(previous);
      setFailed(true);
    }
  };

  return (
    <span className="reply-feedback" role="group" aria-label={t.group}>
      {(['up', 'down'] as const).map((kind) => {
        const Icon = kind === 'up' ? ThumbsUp : ThumbsDown;
        const chosen = vote === kind;
        return (
          <button
            key={kind}
            type="button"
            className={`reply-action reply-feedback-button is-${kind}${chosen ? ' is-chosen' : ''}`}
            aria-label={t[kind]}
            title={t[kind]}
            aria-pressed={chosen}
            onClick={() => void choose(kind)}
          >
            <Icon size={18} aria-hidden="true" fill={chosen ? 'currentColor' : 'none'} />
          </button>
        );
      })}
      <span role="status" className={failed ? 'reply-feedback-note is-error' : 'reply-feedback-note'}>
        {failed ? t.failed : vote ? t.thanks : ''}
      </span>
    </span>
  );
}

export default ReplyFeedback;
