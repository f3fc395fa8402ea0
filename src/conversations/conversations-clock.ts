import { Injectable } from '@nestjs/common';

/**
 * The time conversations are stamped with and retention counts from. Injected, so a test can
 * write conversations "100 days ago" and run the purge "today" without waiting.
 */
@Injectable()
export class ConversationsClock {
  /** Epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}
