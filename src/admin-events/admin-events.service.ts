import { Injectable } from '@nestjs/common';
import type { Server } from 'socket.io';
import { ADMIN_EVENT_ROLES, type AdminServerToClientEvents, type ClientToServerEvents, type ServerToClientEvents } from '../shared/contracts/socket';
import { AdminEventsGateway, roleRoom } from './admin-events.gateway';

/** The public socket room of one visitor's sockets (the chat page's tabs, the widget). */
export const visitorRoom = (visitorKey: string) => `visitor:${visitorKey}`;

/**
 * Pushes events to the signed-in consoles allowed to see them (all servers, through the Redis
 * adapter when REDIS_URL is set): each event goes to the roles ADMIN_EVENT_ROLES names for it.
 * Features inject this: `adminEvents.emit('knowledge:changed', { id, action })`.
 */
@Injectable()
export class AdminEventsService {
  constructor(private readonly gateway: AdminEventsGateway) {}

  emit<E extends keyof AdminServerToClientEvents>(event: E, ...args: Parameters<AdminServerToClientEvents[E]>): void {
    // Before the socket server is up (start-up), there is nobody to tell.
    this.gateway.namespace?.to(ADMIN_EVENT_ROLES[event].map(roleRoom)).emit(event, ...args);
  }

  /**
   * Pushes a public event to every open chat page (namespace `/`, all servers through the Redis
   * adapter): only what visitors may see, such as `settings:changed`.
   */
  emitPublic<E extends 'settings:changed'>(event: E, ...args: Parameters<ServerToClientEvents[E]>): void {
    const server = this.gateway.namespace?.server as Server<ClientToServerEvents, ServerToClientEvents> | undefined;
    server?.of('/').emit(event, ...args);
  }

  /**
   * Pushes a public event to every open socket of one visitor (namespace `/`, the room the chat
   * gateway puts each socket in): with the Redis adapter, sockets on every server get it, once each.
   */
  emitToVisitor<E extends 'chat:human' | 'chat:human-typing' | 'chat:handoff'>(visitorKey: string, event: E, ...args: Parameters<ServerToClientEvents[E]>): void {
    const server = this.gateway.namespace?.server as Server<ClientToServerEvents, ServerToClientEvents> | undefined;
    server?.of('/').to(visitorRoom(visitorKey)).emit(event, ...args);
  }

  /** Whether the visitor has a chat page or widget open (a socket on any server). */
  async visitorOnline(visitorKey: string): Promise<boolean> {
    const server = this.gateway.namespace?.server as Server<ClientToServerEvents, ServerToClientEvents> | undefined;
    if (!server) return false;
    try {
      return (await server.of('/').in(visitorRoom(visitorKey)).fetchSockets()).length > 0;
    } catch {
      // Another server did not answer in time: treated as away (the reply is mailed as well).
      return false;
    }
  }
}
