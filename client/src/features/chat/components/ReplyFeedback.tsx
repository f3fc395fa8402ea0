import type { FeedbackRequest, FeedbackResult, FeedbackVote } from '@shared/contracts/analytics';
import { ThumbsDown, ThumbsUp } from 'lucide-react';
import { useRef, useState, type CSSProperties } from 'react';
import { apiRequest } from '../../../lib/api';

/** Texts of the reply feedback buttons (not quoted by the product spec). */
export const REPLY_FEEDBACK = {
  group: 'Rate this reply',
  up: 'Helpful',
  down: 'Not helpful',
  failed: 'Your feedback could not be saved.',
  thanks: 'Thanks for your feedback',
};

export interface ReplyFeedbackProps {
  /** The reply's id (`replyId` of the reply data). */
  replyId: string;
  /** The vote already given, e.g. when the conversation is shown again. */
  initialVote?: FeedbackVote | null;
  onChange?: (vote: FeedbackVote | null) => void;
}

const styles: Record<string, CSSProperties> = {
  group: { display: 'inline-flex', alignItems: 'center', gap: 4 },
  button: {
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    width: 28,
    height: 28,
    padding: 0,
    border: '1px solid transparent',
    borderRadius: 8,
    background: 'transparent',
    color: '#64748b',
    cursor: 'pointer',
  },
  up: { background: '#dcfce7', borderColor: '#86efac', color: '#166534' },
  down: { background: '#fee2e2', borderColor: '#fca5a5', color: '#991b1b' },
  note: { fontSize: '0.75rem', color: '#64748b', marginLeft: 4 },
  error: { fontSize: '0.75rem', color: '#b91c1c', marginLeft: 4 },
};

/**
 * Thumbs up / down under an agent reply: one vote per reply, changed by pressing the other
 * thumb and withdrawn by pressing the chosen one again. Shown as chosen at once; if the server
 * refuses, the previous choice comes back with a short note. Votes feed the agent's Helpful rate.
 */
export function ReplyFeedback({ replyId, initialVote = null, onChange }: ReplyFeedbackProps) {
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
    <span className="reply-feedback" role="group" aria-label={REPLY_FEEDBACK.group} style={styles.group}>
      {(['up', 'down'] as const).map((kind) => {
        const Icon = kind === 'up' ? ThumbsUp : ThumbsDown;
        const chosen = vote === kind;
        return (
          <button
            key={kind}
            type="button"
            className={`reply-feedback-button${chosen ? ' is-chosen' : ''}`}
            aria-label={REPLY_FEEDBACK[kind]}
            title={REPLY_FEEDBACK[kind]}
            aria-pressed={chosen}
            onClick={() => void choose(kind)}
            style={{ ...styles.button, ...(chosen ? styles[kind] : undefined) }}
          >
            <Icon size={15} aria-hidden="true" fill={chosen ? 'currentColor' : 'none'} />
          </button>
        );
      })}
      <span role="status" style={failed ? styles.error : styles.note}>
        {failed ? REPLY_FEEDBACK.failed : vote ? REPLY_FEEDBACK.thanks : ''}
      </span>
    </span>
  );
}

export default ReplyFeedback;
