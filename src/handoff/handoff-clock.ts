import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';

/**
 * The time handoffs are stamped with and business hours are judged at. Injected, so a test can
 * ask for a person "on Sunday at 03:00 in Paris" without waiting for it.
 */
@Injectable()
export class HandoffClock extends Clock {}
