/**
 * The time the auth feature reads (code and session expiry, rate-limit windows). Injected, so a
 * test can move one app's clock ("a code used after 10 minutes") without waiting or faking timers.
 */
import { Injectable } from '@nestjs/common';

@Injectable()
export class Clock {
  /** Epoch milliseconds. */
  now(): number {
    return Date.now();
  }
}
