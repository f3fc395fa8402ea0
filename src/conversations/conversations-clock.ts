import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';

/**
 * The time conversations are stamped with and retention counts from. Injected, so a test can
 * write conversations "100 days ago" and run the purge "today" without waiting.
 */
@Injectable()
export class ConversationsClock extends Clock {}
