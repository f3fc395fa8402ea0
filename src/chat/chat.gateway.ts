import { Inject, Logger, OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayDisconnect,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import { AppError } from '../common/app-error';
import { ClientAddressResolver } from '../common/client-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { check } from '../shared/contracts/rules';
import { ChatCancelPayloadSchema, ChatSendPayloadSchema, type ChatSendAck, type ClientToServerEvents, type ServerToClientEvents } from '../shared/contracts/socket';
import { ChatRequest, toChatRequest } from './chat-request';
import { ChatService } from './chat.service';

type ChatSocket = Socket<
  ClientToServerEvents,
  ServerToClientEvents,
  Record<string, never>,
  { requests: Map<string, AbortController>; /** The visitor's IP (TRUST_PROXY decides whose X-Forwarded-For counts). */ clientIp?: string }
>;
type ChatServer = Server<ClientToServerEvents, ServerToClientEvents>;

/** Concurrent replies one socket may have streaming at once. */
const MAX_ACTIVE_PER_SOCKET = 4;

function errorPayload(error: unknown): { code: string; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: 'Something went wrong on our side' };
}

/**
 * The public chat socket (namespace `/`). `chat:send` is acknowledged at once ({accepted}) and
 * the reply streams as `chat:delta` frames, then `chat:done` or `chat:error`. A disconnect
 * aborts that socket's upstream calls. Health is pushed on connect and every health interval.
 */
@WebSocketGateway()
export class ChatGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  /** The Socket.IO server (with REDIS_URL, joined to every other server through the Redis adapter). */
  @WebSocketServer() readonly server: ChatServer;
  private readonly logger = new Logger(ChatGateway.name);
  private healthTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly chat: ChatService,
    private readonly health: HealthService,
    private readonly addresses: ClientAddressResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(): void {
    this.healthTimer = setInterval(() => void this.pushHealth(), this.config.healthIntervalMs);
    this.healthTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
  }

  handleConnection(socket: ChatSocket): void {
    socket.data.requests = new Map();
    socket.data.clientIp = this.addresses.resolve(socket.request).ip;
    void this.health.healthPush().then((push) => socket.emit('health', push));
  }

  handleDisconnect(socket: ChatSocket): void {
    for (const controller of socket.data.requests?.values() ?? []) controller.abort();
    socket.data.requests?.clear();
  }

  @SubscribeMessage('chat:send')
  onSend(@ConnectedSocket() socket: ChatSocket, @MessageBody() payload: unknown): ChatSendAck {
    let requestId: string;
    let request: ChatRequest;
    try {
      this.chat.assertAccepting();
      const parsed = check(ChatSendPayloadSchema, payload);
      if (!parsed.ok) return { accepted: false, error: { code: parsed.problem.code, message: parsed.problem.message } };
      requestId = parsed.value.requestId;
      if (socket.data.requests.has(requestId)) throw new AppError('conflict', 'A request with this requestId is already streaming.');
      if (socket.data.requests.size >= MAX_ACTIVE_PER_SOCKET) {
        throw new AppError('rate_limited', 'Too many replies are streaming at once. Wait for one to finish.');
      }
      request = toChatRequest(parsed.value);
      this.chat.admit(request);
    } catch (error) {
      return { accepted: false, error: errorPayload(error) };
    }

    const controller = new AbortController();
    socket.data.requests.set(requestId, controller);
    this.chat
      .run(request, {
        requestId,
        channel: 'socket',
        signal: controller.signal,
        onFrame: (text) => socket.emit('chat:delta', { requestId, text }),
      })
      .then(
        (data) => socket.emit('chat:done', { requestId, data }),
        (error) => {
          // The visitor cancelled or left: nothing to tell a socket that is gone, but a cancel on a
          // live socket still gets a final frame so the client can settle the message.
          if (socket.connected) socket.emit('chat:error', { requestId, ...errorPayload(error) });
        },
      )
      .finally(() => socket.data.requests.delete(requestId));
    return { accepted: true };
  }

  @SubscribeMessage('chat:cancel')
  onCancel(@ConnectedSocket() socket: ChatSocket, @MessageBody() payload: unknown): void {
    const parsed = check(ChatCancelPayloadSchema, payload);
    // A malformed cancel names no reply of this socket: there is nothing to stop.
    if (parsed.ok) socket.data.requests.get(parsed.value.requestId)?.abort();
  }

  private async pushHealth(): Promise<void> {
    try {
      const push = await this.health.healthPush();
      // Each server reports its own health to its own clients only.
      this.server.local.emit('health', push);
    } catch (error) {
      this.logger.warn(`Health push failed: ${(error as Error).message}`);
    }
  }
}
