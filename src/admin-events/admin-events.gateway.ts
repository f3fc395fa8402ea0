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
import type { AdminClientToServerEvents, AdminServerToClientEvents } from '../shared/contracts/socket';

export interface AdminSocketData {
  userId: string;
  sessionId: string;
}

export type AdminNamespace = Namespace<AdminClientToServerEvents, AdminServerToClientEvents, Record<string, never>, AdminSocketData>;
type AdminSocket = Socket<AdminClientToServerEvents, AdminServerToClientEvents, Record<string, never>, AdminSocketData>;

const sessionRoom = (sessionId: string) => `session:${sessionId}`;
const userRoom = (userId: string) => `admin:${userId}`;

/** A refused handshake: the client's `connect_error` carries this message and `data.code`. */
function handshakeError(message: string, code: 'unauthorized' | 'forbidden'): Error {
  return Object.assign(new Error(message), { data: { code } });
}

/**
 * The `/admin` Socket.IO namespace (push-only: analytics:update, knowledge:changed,
 * config:changed). The session cookie is checked at the handshake (no valid session: the
 * connection is refused with 'Not authenticated'; another origin: 'forbidden'). Each socket joins
 * a room per session and per admin, so a logout or an admin's removal drops their sockets on
 * every server (through the Redis adapter when there are several); a refresh moves the sockets
 * to the new session. Every ADMIN_SOCKET_CHECK_MS each server re-checks its own sockets, which
 * catches expiry and changes made by the admin CLI.
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
    void socket.join([sessionRoom(socket.data.sessionId), userRoom(socket.data.userId)]);
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
  }

  private onSessionEvent(event: SessionEvent): void {
    if (!this.namespace) return;
    switch (event.type) {
      case 'revoked':
        this.namespace.in(sessionRoom(event.sessionId)).disconnectSockets(true);
        break;
      case 'user-removed':
      case 'user-sessions-ended':
        this.namespace.in(userRoom(event.userId)).disconnectSockets(true);
        break;
      case 'rotated':
        this.namespace.in(sessionRoom(event.fromSessionId)).socketsJoin(sessionRoom(event.toSessionId));
        break;
    }
  }

  /** Drops this server's sockets none of whose sessions is still valid. */
  private async recheck(): Promise<void> {
    try {
      const sockets = await this.namespace.local.fetchSockets();
      const verdicts = new Map<string, Promise<boolean>>();
      const active = (id: string) => {
        let verdict = verdicts.get(id);
        if (!verdict) verdicts.set(id, (verdict = this.sessions.isActive(id)));
        return verdict;
      };
      for (const socket of sockets) {
        const ids = [...socket.rooms].filter((room) => room.startsWith('session:')).map((room) => room.slice('session:'.length));
        const results = await Promise.all(ids.map(active));
        if (!results.some(Boolean)) socket.disconnect(true);
      }
    } catch (error) {
      this.logger.warn(`Admin socket re-check failed: ${(error as Error).message}`);
    }
  }
}
