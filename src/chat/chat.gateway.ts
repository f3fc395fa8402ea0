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
import { visitorRoom } from '../admin-events/admin-events.service';
import { AppError } from '../common/app-error';
import { ClientAddressResolver } from '../common/client-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { HealthService } from '../health/health.service';
import { isFinal, ReplyStreamService, type ReplyFrame } from '../conversations/reply-streams';
import { VisitorIdentity, type Visitor } from '../conversations/visitor-identity';
import { ChatLimitsService, SOCKET_LEASE_MS, type ReplySlot } from '../limits/chat-limits.service';
import { ChatResumePayloadSchema } from '../shared/contracts/conversations';
import { check } from '../shared/contracts/rules';
import {
  ChatCancelPayloadSchema,
  ChatSendPayloadSchema,
  type ChatResumeAck,
  type ChatSendAck,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '../shared/contracts/socket';
import { WidgetsService } from '../widget/widgets.service';
import { ChatRequest, toChatRequest } from './chat-request';
import { ChatService } from './chat.service';

/** A reply this socket follows, by the client's requestId. */
interface Followed {
  replyId: string;
  /** Started by this socket's chat:send (counts against MAX_ACTIVE_PER_SOCKET until it ends). */
  asked: boolean;
  stop: () => void;
}

type ChatSocket = Socket<
  ClientToServerEvents,
  ServerToClientEvents,
  Record<string, never>,
  {
    visitor: Visitor;
    requests: Map<string, Followed>;
    /** The visitor's IP (TRUST_PROXY decides whose X-Forwarded-For counts). */
    clientIp?: string;
    /** The widget this socket chats through (its handshake's auth `widget`), checked at the handshake. */
    widgetId?: string;
  }
>;
type ChatServer = Server<ClientToServerEvents, ServerToClientEvents>;

/** Concurrent replies one socket may have streaming at once. */
const MAX_ACTIVE_PER_SOCKET = 4;

function errorPayload(error: unknown): { code: string; message: string; retryAfter?: number } {
  if (error instanceof AppError) {
    const retryAfter = error.details?.retryAfterSeconds;
    return { code: error.code, message: error.message, ...(typeof retryAfter === 'number' ? { retryAfter } : {}) };
  }
  return { code: 'internal_error', message: 'Something went wrong on our side' };
}

/**
 * The public chat socket (namespace `/`). `chat:send` is acknowledged at once ({accepted,
 * replyId}) and the reply streams as `chat:delta` frames, then `chat:done` or `chat:error`, each
 * numbered (`seq`). A disconnect ends only the socket's follows: the replies go on into their
 * conversations, and `chat:resume` (on this server or any other) picks one up after the last frame
 * the client has. `chat:cancel` stops a reply. Health is pushed on connect and every health
 * interval. The socket's visitor is the visitor cookie of its handshake (one is set on a handshake
 * that came without it).
 */
@WebSocketGateway()
export class ChatGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  /** The Socket.IO server (with REDIS_URL, joined to every other server through the Redis adapter). */
  @WebSocketServer() readonly server: ChatServer;
  private readonly logger = new Logger(ChatGateway.name);
  private healthTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly chat: ChatService,
    private readonly health: HealthService,
    private readonly addresses: ClientAddressResolver,
    private readonly streams: ReplyStreamService,
    private readonly visitors: VisitorIdentity,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limits: ChatLimitsService,
    private readonly widgets: WidgetsService,
  ) {}

  afterInit(server: ChatServer): void {
    // A widget's socket names its widget in the handshake's auth: an unknown or deleted widget is
    // refused (404), and so is a page on an origin the widget does not allow (403).
    server.use((socket, next) => {
      const widgetId = (socket.handshake.auth as { widget?: unknown } | undefined)?.widget;
      if (widgetId === undefined) return next();
      const refuse = (error: unknown) => {
        const payload = errorPayload(error);
        next(Object.assign(new Error(payload.message), { data: { ...payload, status: error instanceof AppError ? error.status : 500 } }));
      };
      this.widgets.require(String(widgetId)).then((row) => {
        try {
          this.widgets.assertCaller(row, socket.request.headers, this.addresses.resolve(socket.request));
          (socket as ChatSocket).data.widgetId = row.id;
          next();
        } catch (error) {
          refuse(error);
        }
      }, refuse);
    });
    // Sockets per client IP (every server together): over the limit, the connection is refused
    // (connect_error with data {code: 'rate_limited', retryAfter}).
    server.use((socket, next) => {
      const ip = this.addresses.resolve(socket.request).ip;
      this.limits.admitSocket(ip, socket.id).then(
        () => next(),
        (error: unknown) => {
          const refusal = Object.assign(new Error(error instanceof AppError ? error.message : 'Connection refused'), { data: errorPayload(error) });
          next(refusal);
        },
      );
    });
    // Each server keeps its open sockets' leases alive (a server that dies lets them expire).
    this.leaseTimer = setInterval(() => {
      for (const socket of server.sockets.sockets.values()) void this.limits.renewSocket((socket as ChatSocket).data.clientIp, socket.id).catch(() => undefined);
    }, SOCKET_LEASE_MS / 3);
    this.leaseTimer.unref();
    // A handshake without the visitor cookie gets one (browsers keep it for the page's next requests).
    // A widget's iframe names its visitor with a token instead (its handshake URL says `widget=`): no cookie for it.
    server.engine.on('initial_headers', (headers: Record<string, string | string[]>, req) => {
      if (!/[?&]widget=/.test(req.url ?? '')) this.visitors.onHandshake(headers, req);
    });
    this.healthTimer = setInterval(() => void this.pushHealth(), this.config.healthIntervalMs);
    this.healthTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }

  handleConnection(socket: ChatSocket): void {
    socket.data.requests = new Map();
    socket.data.clientIp = this.addresses.resolve(socket.request).ip;
    const token = (socket.handshake.auth as { visitorToken?: unknown } | undefined)?.visitorToken;
    socket.data.visitor = (socket.data.widgetId ? this.widgets.visitorOf(token) : undefined) ?? this.visitors.ofHandshake(socket.request);
    // A person's replies (chat:human), typing and handoff changes reach the visitor's sockets through this room.
    void socket.join(visitorRoom(socket.data.visitor.key));
    void this.health.healthPush().then((push) => socket.emit('health', push));
  }

  /** Only this socket's follows end: its replies keep streaming into their conversations. */
  handleDisconnect(socket: ChatSocket): void {
    for (const followed of socket.data.requests?.values() ?? []) followed.stop();
    socket.data.requests?.clear();
    void this.limits.releaseSocket(socket.data.clientIp ?? this.addresses.resolve(socket.request).ip, socket.id).catch(() => undefined);
  }

  @SubscribeMessage('chat:send')
  async onSend(@ConnectedSocket() socket: ChatSocket, @MessageBody() payload: unknown): Promise<ChatSendAck> {
    let requestId: string | undefined;
    let request: ChatRequest;
    let slot: ReplySlot;
    try {
      this.chat.assertAccepting();
      const parsed = check(ChatSendPayloadSchema, payload);
      if (!parsed.ok) return { accepted: false, error: { code: parsed.problem.code, message: parsed.problem.message } };
      requestId = parsed.value.requestId;
      if (socket.data.requests.has(requestId)) throw new AppError('conflict', 'A request with this requestId is already streaming.');
      if ([...socket.data.requests.values()].filter((f) => f.asked).length >= MAX_ACTIVE_PER_SOCKET) {
        throw new AppError('rate_limited', 'Too many replies are streaming at once. Wait for one to finish.');
      }
      request = toChatRequest(parsed.value);
      this.chat.admit(request);
      // A widget's own checks first: it still exists, offers this vertical, and is within its limit.
      if (socket.data.widgetId) await this.widgets.admitMessage(await this.widgets.require(socket.data.widgetId), request.vertical);
      // The chat rate limits (per socket, visitor, IP; concurrent replies per visitor).
      slot = await this.limits.admitMessage({ channel: 'socket', ip: socket.data.clientIp, visitorKey: socket.data.visitor.key, socketId: socket.id });
    } catch (error) {
      const body = errorPayload(error);
      // Refused by a limit: also a chat:error for the request, with retryAfter (the chat page shows a countdown).
      if (requestId !== undefined && body.code === 'rate_limited') socket.emit('chat:error', { requestId, ...body });
      return { accepted: false, error: body };
    }

    let started: ReturnType<ChatService['start']>;
    try {
      started = this.chat.start(request, { requestId, channel: 'socket', visitor: socket.data.visitor, slot, widgetId: socket.data.widgetId });
    } catch (error) {
      slot.release();
      return { accepted: false, error: errorPayload(error) };
    }
    // The frames carry the outcome (chat:done or chat:error).
    started.result.catch(() => undefined);
    void this.attach(socket, requestId, started.replyId, 0, true);
    return { accepted: true, replyId: started.replyId };
  }

  @SubscribeMessage('chat:cancel')
  onCancel(@ConnectedSocket() socket: ChatSocket, @MessageBody() payload: unknown): void {
    const parsed = check(ChatCancelPayloadSchema, payload);
    // A malformed cancel names no reply of this socket: there is nothing to stop.
    if (!parsed.ok) return;
    const followed = socket.data.requests.get(parsed.value.requestId);
    if (followed) void this.streams.cancel(followed.replyId, socket.data.visitor.key);
  }

  /** Picks up a reply of this socket's visitor after the frame `after`, wherever it runs. */
  @SubscribeMessage('chat:resume')
  async onResume(@ConnectedSocket() socket: ChatSocket, @MessageBody() payload: unknown): Promise<ChatResumeAck> {
    const parsed = check(ChatResumePayloadSchema, payload);
    if (!parsed.ok) return { accepted: false, error: { code: parsed.problem.code, message: parsed.problem.message } };
    const { requestId, replyId, after } = parsed.value;
    socket.data.requests.get(requestId)?.stop();
    const found = await this.attach(socket, requestId, replyId, after, false);
    // Another visitor's reply does not exist for this one.
    return found ? { accepted: true } : { accepted: false, error: { code: 'not_found', message: 'That reply is no longer streaming.' } };
  }

  /** Sends the socket a reply's frames after `after`, tagged with the client's requestId. */
  private async attach(socket: ChatSocket, requestId: string, replyId: string, after: number, asked: boolean): Promise<boolean> {
    const followed: Followed = { replyId, asked, stop: () => undefined };
    socket.data.requests.set(requestId, followed);
    const release = () => {
      if (socket.data.requests.get(requestId) === followed) socket.data.requests.delete(requestId);
    };
    const result = await this.streams.follow(replyId, socket.data.visitor.key, after, (frame) => {
      this.emitFrame(socket, requestId, frame);
      if (isFinal(frame)) release();
    });
    if (!result.ok) {
      release();
      return false;
    }
    followed.stop = () => {
      result.stop();
      release();
    };
    if (!socket.connected) followed.stop();
    return true;
  }

  private emitFrame(socket: ChatSocket, requestId: string, frame: ReplyFrame): void {
    if (!socket.connected) return;
    switch (frame.kind) {
      case 'delta':
        socket.emit('chat:delta', { requestId, text: frame.text, seq: frame.seq });
        break;
      case 'restart':
        socket.emit('chat:restart', { requestId, seq: frame.seq, attempt: frame.attempt });
        break;
      case 'done':
        socket.emit('chat:done', { requestId, data: frame.data, seq: frame.seq });
        break;
      case 'error':
        socket.emit('chat:error', { requestId, code: frame.code, message: frame.message, seq: frame.seq });
        break;
    }
  }

  private async pushHealth(): Promise<void> {
    try {
      const push = await this.health.healthPush({ fresh: true });
      // Each server reports its own health to its own clients only.
      this.server.local.emit('health', push);
    } catch (error) {
      this.logger.warn(`Health push failed: ${(error as Error).message}`);
    }
  }
}
