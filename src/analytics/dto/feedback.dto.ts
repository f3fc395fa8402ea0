import { AppError } from '../../common/app-error';
import type { FeedbackRequest } from '../../shared/contracts/analytics';

const REPLY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** POST /api/feedback body: `replyId` (the reply's id, a UUID) and `vote` ('up', 'down' or null). */
export function parseFeedbackBody(body: unknown): FeedbackRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('validation_failed', 'Send the vote as a JSON object.');
  }
  const { replyId, vote } = body as Record<string, unknown>;
  if (typeof replyId !== 'string' || !REPLY_ID.test(replyId)) {
    throw new AppError('validation_failed', '"replyId" must be the id of a reply.', { field: 'replyId' });
  }
  if (vote !== null && vote !== 'up' && vote !== 'down') {
    throw new AppError('validation_failed', '"vote" must be "up", "down" or null.', { field: 'vote' });
  }
  return { replyId: replyId.toLowerCase(), vote };
}
