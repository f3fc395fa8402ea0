import { io, type Socket } from 'socket.io-client';
import { check } from '@shared/contracts/rules';
import { ChatSendPayloadSchema, type ChatSendPayload, type ClientToServerEvents, type ServerToClientEvents } from '@shared/contracts/socket';
import { CHAT_ERROR_DEFAULTS } from '../../../lib/reply-stream';
import { ReplyHandlers, streamInteract } from './interact-stream';

export type ChatSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** 'connecting' only until the first answer after page load; then 'online' or 'offline'. */
export type ConnectionStatus = 'connecting' | 'online' | 'offline';

export interface ConnectionSnapshot {
  status: ConnectionStatus;
  /** How messages go out while online: the socket, or POST /interact with SSE. */
  transport: 'socket' | 'http' | null;
}

/** The network edge, replaceable in tests: the socket factory and fetch. */
export interface ChatConnectionOptions {
  createSocket?: () => ChatSocket;
  fetch?: typeof fetch;
  /** How often GET /health is checked while the socket is down (product-spec section 9). */
  healthPollMs?: number;
  /** A single /health check gives up after this long. */
  healthTimeoutMs?: number;
  /** How long the socket may take to come up before GET /health is asked instead. */
  connectGraceMs?: number;
}

export interface ActiveReply {
  /** Stops the reply: `chat:cancel` on the socket, or aborting the /interact request. */
  cancel(): void;
}

export const HEALTH_POLL_MS = 30000;
const HEALTH_TIMEOUT_MS = 5000;
const RECONNECT_AFTER_KICK_MS = 1000;
/** A socket still not up after this long (a proxy may swallow the handshake) triggers a /health check. */
export const CONNECT_GRACE_MS = 2500;

export function createDefaultSocket(): ChatSocket {
  return io({
    // Websocket first (no sticky sessions needed behind a load balancer), long-polling if it fails.
    transports: ['websocket', 'polling'],
    tryAllTransports: true,
    reconnectionDelay: 500,
    reconnectionDelayMax: 3000,
    timeout: 10000,
  });
}

/**
 * The chat page's link to the server. Online means: the socket is up and the last `health`
 * push said healthy; or, when the socket cannot connect at all, GET /health answers ok (then
 * messages go through POST /interact with SSE). Socket.IO reconnects by itself, so the page
 * recovers when the server comes back.
 */
export class ChatConnection {
  private readonly createSocket: () => ChatSocket;
  private readonly fetchImpl: typeof fetch;
  private readonly healthPollMs: number;
  private readonly healthTimeoutMs: number;
  private readonly connectGraceMs: number;
  private socket: ChatSocket | null = null;
  private socketUp = false;
  /** The last health push on the current socket connection; undefined until one arrives. */
  private socketHealthy: boolean | undefined;
  private httpHealthy = false;
  /** Some answer (a push, a failed connect, a disconnect) has come in since page load. */
  private settled = false;
  private probing = false;
  private lastProbeAt = Number.NEGATIVE_INFINITY;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private snapshot: ConnectionSnapshot = { status: 'connecting', transport: null };
  private readonly listeners = new Set<() => void>();
  private readonly socketReplies = new Map<string, ReplyHandlers>();

  constructor(options: ChatConnectionOptions = {}) {
    this.createSocket = options.createSocket ?? createDefaultSocket;
    this.fetchImpl = options.fetch ?? ((...args) => fetch(...args));
    this.healthPollMs = options.healthPollMs ?? HEALTH_POLL_MS;
    this.healthTimeoutMs = options.healthTimeoutMs ?? HEALTH_TIMEOUT_MS;
    this.connectGraceMs = options.connectGraceMs ?? CONNECT_GRACE_MS;
  }

  start(): void {
    if (this.socket) return;
    const socket = this.createSocket();
    this.socket = socket;
    this.startGrace();
    socket.on('connect', () => {
      this.socketUp = true;
      this.socketHealthy = undefined;
      clearTimeout(this.graceTimer);
      this.stopPolling();
      this.update();
    });
    socket.on('health', (push) => {
      this.socketHealthy = push.status === 'healthy';
      this.settled = true;
      this.update();
    });
    socket.on('disconnect', (reason) => {
      // Socket.IO reconnects by itself, except after the server itself dropped this client.
      if (reason === 'io server disconnect') this.reconnectTimer = setTimeout(() => this.socket?.connect(), RECONNECT_AFTER_KICK_MS);
      this.socketUp = false;
      this.socketHealthy = undefined;
      this.httpHealthy = false;
      this.settled = true;
      this.failSocketReplies();
      this.startPolling();
      this.startGrace();
      this.update();
    });
    socket.on('connect_error', () => {
      this.socketUp = false;
      this.startPolling();
      // Reconnection attempts come every few seconds; one /health check per grace period is enough.
      if (Date.now() - this.lastProbeAt >= this.connectGraceMs) void this.probeHealth();
    });
    socket.on('chat:delta', (p) => this.socketReplies.get(p.requestId)?.onDelta(p.text));
    socket.on('chat:done', (p) => {
      const handlers = this.socketReplies.get(p.requestId);
      this.socketReplies.delete(p.requestId);
      handlers?.onDone(p.data);
    });
    socket.on('chat:error', (p) => {
      const handlers = this.socketReplies.get(p.requestId);
      this.socketReplies.delete(p.requestId);
      handlers?.onError(p.message || CHAT_ERROR_DEFAULTS.unknown, p.code);
    });
  }

  stop(): void {
    this.stopPolling();
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.graceTimer);
    this.socketReplies.clear();
    this.socket?.removeAllListeners();
    this.socket?.close();
    this.socket = null;
    this.socketUp = false;
    this.socketHealthy = undefined;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): ConnectionSnapshot => this.snapshot;

  /** Sends one question; the handlers get its frames. Fails at once (onError) when offline. */
  send(payload: ChatSendPayload, handlers: ReplyHandlers): ActiveReply {
    // Checked with the server's own contract first: a refusal reads the same, without a round trip.
    const checked = check(ChatSendPayloadSchema, payload);
    if (!checked.ok) {
      queueMicrotask(() => handlers.onError(checked.problem.message, checked.problem.code));
      return { cancel: () => undefined };
    }
    const socket = this.socket;
    if (socket && this.socketUp && socket.connected) {
      const { requestId } = payload;
      this.socketReplies.set(requestId, handlers);
      socket.emit('chat:send', payload, (ack) => {
        if (ack?.accepted) return;
        if (!this.socketReplies.delete(requestId)) return;
        handlers.onError(ack?.error?.message || CHAT_ERROR_DEFAULTS.send, ack?.error?.code);
      });
      return {
        cancel: () => {
          if (this.socketReplies.delete(requestId)) socket.emit('chat:cancel', { requestId });
        },
      };
    }
    if (this.httpHealthy) {
      const controller = new AbortController();
      void streamInteract(payload, handlers, { fetch: this.fetchImpl, signal: controller.signal });
      return { cancel: () => controller.abort() };
    }
    queueMicrotask(() => handlers.onError(CHAT_ERROR_DEFAULTS.send));
    return { cancel: () => undefined };
  }

  private failSocketReplies(): void {
    const pending = [...this.socketReplies.values()];
    this.socketReplies.clear();
    for (const handlers of pending) handlers.onError(CHAT_ERROR_DEFAULTS.response);
  }

  private startGrace(): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => {
      if (this.socketUp) return;
      this.startPolling();
      void this.probeHealth();
    }, this.connectGraceMs);
  }

  private startPolling(): void {
    if (this.pollTimer !== undefined) return;
    this.pollTimer = setInterval(() => void this.probeHealth(), this.healthPollMs);
  }

  private stopPolling(): void {
    if (this.pollTimer !== undefined) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.httpHealthy = false;
  }

  /** GET /health while the socket is down: ok means we can still chat over POST /interact. */
  private async probeHealth(): Promise<void> {
    if (this.probing || this.socketUp || !this.socket) return;
    this.probing = true;
    this.lastProbeAt = Date.now();
    let ok = false;
    try {
      const response = await this.fetchImpl('/health', {
        headers: { Accept: 'application/json' },
        cache: 'no-store',
        signal: AbortSignal.timeout(this.healthTimeoutMs),
      });
      const body = (await response.json().catch(() => undefined)) as { ok?: boolean } | undefined;
      ok = response.ok && body?.ok !== false;
    } catch {
      ok = false;
    } finally {
      this.probing = false;
    }
    if (!this.socket || this.socketUp) return;
    this.httpHealthy = ok;
    this.settled = true;
    this.update();
  }

  private update(): void {
    const next = this.compute();
    if (next.status === this.snapshot.status && next.transport === this.snapshot.transport) return;
    this.snapshot = next;
    for (const listener of this.listeners) listener();
  }

  private compute(): ConnectionSnapshot {
    if (this.socketUp && this.socketHealthy !== undefined) {
      return this.socketHealthy ? { status: 'online', transport: 'socket' } : { status: 'offline', transport: null };
    }
    if (!this.socketUp && this.httpHealthy) return { status: 'online', transport: 'http' };
    return { status: this.settled ? 'offline' : 'connecting', transport: null };
  }
}
