/**
 * The time a feature reads (epoch milliseconds). Each feature injects its own subclass (auth and
 * the features beside it this one; LimitsClock, AnalyticsClock, ConversationsClock), so a test can
 * move one feature's time ("a code used after 10 minutes", "the 1st of next month") without
 * waiting, faking timers, or moving the others'.
 */
import { Injectable } from '@nestjs/common';

@Injectable()
export class Clock {
  /** Epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}
