import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';

/**
 * The time the limits read (rate-limit windows, the budget month, the visitor's day). Injected, so
 * a test can roll the month over ("the 1st of next month, the budget is fresh") without waiting.
 */
@Injectable()
export class LimitsClock extends Clock {}
