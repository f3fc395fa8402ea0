import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { REAL_TIMERS } from './conversation-writer';

/**
 * The time conversations are stamped with and retention counts from. Injected, so a test can
 * write conversations "100 days ago" and run the purge "today" without waiting.
 *
 * Also the time the conversation writer batches and holds writes by (a monotonic clock and its
 * timers): a test can drive a hold by hand and see what is written before and after its end,
 * without a wall-clock bound.
 */
@Injectable()
export class ConversationsClock extends Clock {
  /** Monotonic milliseconds (performance.now()). */
  elapsed(): number {
    return REAL_TIMERS.now();
  }

  /** A one-shot timer (setTimeout; `unref`: it keeps no process alive). */
  setTimer(fire: () => void, ms: number, unref: boolean): unknown {
    return REAL_TIMERS.set(fire, ms, unref);
  }

  clearTimer(timer: unknown): void {
    REAL_TIMERS.clear(timer);
  }
}
