import { GAP_LOW_CONFIDENCE } from '../shared/contracts/conversations';
import { gapReasonOf } from './knowledge-gaps.service';

describe('which replies count as knowledge gaps', () => {
  it('a complete reply that found nothing, or answered below the confidence floor; never one that failed or was stopped', () => {
    expect(gapReasonOf({ status: 'complete', answered: false, confidence: 0.2 })).toBe('notFound');
    expect(gapReasonOf({ status: 'complete', answered: true, confidence: GAP_LOW_CONFIDENCE - 0.01 })).toBe('lowConfidence');
    expect(gapReasonOf({ status: 'complete', answered: true, confidence: GAP_LOW_CONFIDENCE })).toBeUndefined();
    expect(gapReasonOf({ status: 'complete', answered: true, confidence: 0.95 })).toBeUndefined();
    expect(gapReasonOf({ status: 'error', answered: false })).toBeUndefined();
    expect(gapReasonOf({ status: 'stopped', answered: false })).toBeUndefined();
    // A provider reply without retrieval data (answered unknown) is not judged.
    expect(gapReasonOf({ status: 'complete' })).toBeUndefined();
  });
});
