import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';

/**
 * The time analytics reads ("now" of a window, which hours are final). Injected, so a test can
 * move one app's analytics forward ("two hours later, the hour is rolled up") without waiting.
 */
@Injectable()
export class AnalyticsClock extends Clock {}
