import { Injectable } from '@nestjs/common';
import type { AdminServerToClientEvents } from '../shared/contracts/socket';
import { AdminEventsGateway } from './admin-events.gateway';

/**
 * Pushes events to every signed-in admin console (all servers, through the Redis adapter when
 * REDIS_URL is set). Features inject this: `adminEvents.emit('knowledge:changed', { id, action })`.
 */
@Injectable()
export class AdminEventsService {
  constructor(private readonly gateway: AdminEventsGateway) {}

  emit<E extends keyof AdminServerToClientEvents>(event: E, ...args: Parameters<AdminServerToClientEvents[E]>): void {
    // Before the socket server is up (start-up), there is nobody to tell.
    this.gateway.namespace?.emit(event, ...args);
  }
}
