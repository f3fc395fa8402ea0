import { Inject, Logger, OnModuleDestroy } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway, WebSocketServer } from '@nestjs/websockets';
import type { Namespace, Socket } from 'socket.io';
import { AUTH_MESSAGES } from '../auth/auth.errors';
import { sessionTokenFrom } from '../auth/cookies';
import { isCrossOrigin } from '../auth/origin-check';
import { SessionEvents, SessionEvent } from '../auth/session-events';
import { SessionService } from '../auth/session.service';
import { ClientAddressResolver } from '../common/client-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ROLES, type Role } from '../shared/contracts/roles';
import type { AdminClientToServerEvents, AdminServerToClientEvents } from '../shared/contracts/socket';

export interface AdminSocketData {
  userId: string;
  sessionId: string;
  role: Role;
}

export type AdminNamespace = Namespace<AdminClientToServerEvents, AdminServerToClientEvents, Record<string, never>, AdminSocketData>;
type AdminSocket = Socket<AdminClientToServerEvents, AdminServerToClientEvents, Record<string, never>, AdminSocketData>;

const sessionRoom = (sessionId: string) => `session:${sessionId}`;
export const userRoom = (userId: string) => `admin:${userId}`;
/** Every socket is in the room of its member's role; events go to the rooms of the roles that may see them. */
export const roleRoom = (role: Role) => `role:${role}`;
const ALL_ROLE_ROOMS = ROLES.map(roleRoom);

/** A refused handshake: the client's `connect_error` carries this message and `data.code`. */
function handshakeError(message: string, code: 'unauthorized' | 'forbidden'): Error {
  return Object.assign(new Error(message), { data: { code } });
}

/**
 * The `/admin` Socket.IO namespace (push-only: analytics:update, knowledge:changed,
 * config:changed, ...). The session cookie is checked at the handshake (no valid session: the
 * connection is refused with 'Not authenticated'; another origin: 'forbidden'). Each socket joins
 * a room per session, per member and for the member's role: events are sent only to the rooms of
 * the roles that may see them (ADMIN_EVENT_ROLES). Session events (SessionEvents: heard by every
 * server) act on each server's own sockets: a logout, or a member's removal or disabling, drops
 * their sockets; a refresh moves the sockets to the new session; a role change moves them to the
 * new role's room. Every ADMIN_SOCKET_CHECK_MS each server re-checks its own sockets, which
 * catches expiry and anything a lost message missed.
 */
@WebSocketGateway({ namespace: '/admin' })
export class AdminEventsGateway implements OnGatewayInit, OnGatewayConnection, OnModuleDestroy {
  @WebSocketServer() readonly namespace: AdminNamespace;
  private readonly logger = new Logger('AdminEvents');
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly sessions: SessionService,
    private readonly sessionEvents: SessionEvents,
    private readonly addresses: ClientAddressResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(namespace: AdminNamespace): void {
    namespace.use((socket, next) => {
      this.authenticate(socket).then(
        () => next(),
        (error: Error) => next(error),
      );
    });
    this.unsubscribe = this.sessionEvents.subscribe((event) => this.onSessionEvent(event));
    this.timer = setInterval(() => void this.recheck(), this.config.adminSocketCheckMs);
    this.timer.unref();
  }

  handleConnection(socket: AdminSocket): void {
    if (!socket.data.sessionId) {
      socket.disconnect(true);
      return;
    }
    void socket.join([sessionRoom(socket.data.sessionId), userRoom(socket.data.userId), roleRoom(socket.data.role)]);
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
  }

  private async authenticate(socket: AdminSocket): Promise<void> {
    const headers = socket.handshake.headers;
    // X-Forwarded-Host / -Proto count only from a proxy TRUST_PROXY names.
    if (isCrossOrigin(headers, this.addresses.resolve(socket.request), this.config.corsOrigins)) throw handshakeError(AUTH_MESSAGES.crossOrigin, 'forbidden');
    const auth = await this.sessions.validate(sessionTokenFrom(headers.cookie));
    if (!auth) throw handshakeError(AUTH_MESSAGES.notAuthenticated, 'unauthorized');
    socket.data.sessionId = auth.session.id;
    socket.data.userId = auth.user.id;
    socket.data.role = auth.user.role;
  }

  /** Every server hears every session event and acts on its own sockets. */
  private onSessionEvent(event: SessionEvent): void {
    if (!this.namespace) return;
    const local = this.namespace.local;
    switch (event.type) {
      case 'revoked':
        local.in(sessionRoom(event.sessionId)).disconnectSockets(true);
        break;
      case 'user-removed':
      case 'user-sessions-ended':
        local.in(userRoom(event.userId)).disconnectSockets(true);
        break;
      case 'rotated':
        local.in(sessionRoom(event.fromSessionId)).socketsJoin(sessionRoom(event.toSessionId));
        break;
      case 'role-changed':
        this.moveToRole(event.userId, event.role);
        break;
    }
  }

  private moveToRole(userId: string, role: Role): void {
    const member = this.namespace.local.in(userRoom(userId));
    member.socketsLeave(ALL_ROLE_ROOMS.filter((room) => room !== roleRoom(role)));
    member.socketsJoin(roleRoom(role));
    member.emit('account:changed', { role });
  }

  /** Drops this server's sockets none of whose sessions is still valid, and moves those whose member's role changed. */
  private async recheck(): Promise<void> {
    try {
      const sockets = await this.namespace.local.fetchSockets();
      const verdicts = new Map<string, Promise<Role | null>>();
      const roleOf = (id: string) => {
        let verdict = verdicts.get(id);
        if (!verdict) verdicts.set(id, (verdict = this.sessions.activeRole(id)));
        return verdict;
      };
      for (const socket of sockets) {
        const ids = [...socket.rooms].filter((room) => room.startsWith('session:')).map((room) => room.slice('session:'.length));
        const role = (await Promise.all(ids.map(roleOf))).find((r) => r !== null);
        if (!role) socket.disconnect(true);
        else if (!socket.rooms.has(roleRoom(role))) {
          for (const room of ALL_ROLE_ROOMS) if (room !== roleRoom(role) && socket.rooms.has(room)) void socket.leave(room);
          void socket.join(roleRoom(role));
          socket.emit('account:changed', { role });
        }
      }
    } catch (error) {
      this.logger.warn(`Admin socket re-check failed: ${(error as Error).message}`);
    }
  }
}
