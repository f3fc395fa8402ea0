import { Injectable } from '@nestjs/common';
import type { Server } from 'socket.io';
import type { AdminServerToClientEvents, ClientToServerEvents, ServerToClientEvents } from '../shared/contracts/socket';
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

  /**
   * Pushes a public event to every open chat page (namespace `/`, all servers through the Redis
   * adapter): only what visitors may see, such as `settings:changed`.
   */
  emitPublic<E extends 'settings:changed'>(event: E, ...args: Parameters<ServerToClientEvents[E]>): void {
    const server = this.gateway.namespace?.server as Server<ClientToServerEvents, ServerToClientEvents> | undefined;
    server?.of('/').emit(event, ...args);
  }
}
