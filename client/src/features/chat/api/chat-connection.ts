import type { ChatHandoffPayload, ChatHumanPayload, ChatHumanTypingPayload } from '@shared/contracts/handoff';
import { io, type Socket } from 'socket.io-client';
import type { ReplyStatus } from '@shared/contracts/conversations';
import { check } from '@shared/contracts/problems';
import type { PublicSettings } from '@shared/contracts/config';
import type { ChatSendPayload, ClientToServerEvents, ServerToClientEvents } from '@shared/contracts/socket';
import { SOCKET_RECONNECTION } from '@shared/contracts/socket-reconnection';
import type { z } from 'zod';
import { CANCELLED_CODE, CHAT_ERROR_DEFAULTS } from '../../../lib/reply-stream';
import { ReplyHandlers, resumeInteract, streamInteract, type StreamSink } from './interact-stream';

export type ChatSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** What the public socket says about a conversation handed to a person. */
export type HandoffEvent =
  | ({ kind: 'human' } & ChatHumanPayload)
  | ({ kind: 'typing' } & ChatHumanTypingPayload)
  | ({ kind: 'state' } & ChatHandoffPayload);

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
  /** How often GET /health is checked while the socket is down. */
  healthPollMs?: number;
  /** A single /health check gives up after this long. */
  healthTimeoutMs?: number;
  /** How long the socket may take to come up before GET /health is asked instead. */
  connectGraceMs?: number;
  /**
   * The server's contract for `chat:send` (ChatSendPayloadSchema). Given, a question it refuses
   * fails at once with the server's words, without a round trip; left out (the widget's iframe,
   * which stays small without zod), the server's refusal arrives in the acknowledgement instead.
   */
  payloadContract?: z.ZodType;
}

export interface ActiveReply {
  /** Stops the reply on the server: `chat:cancel` on the socket, or POST /interact/replies/{id}/cancel. */
  cancel(): void;
}

/**
 * A reply the page is receiving. `lastSeq` is the number of the last frame handed over: frames
 * arriving again (a resume overlaps what came live) are dropped, and a resume asks for the ones
 * after it. `via` is how frames arrive now; `waiting` means the connection broke and the reply is
 * picked up again as soon as the socket is back (or, without it, over HTTP).
 */
interface TrackedReply {
  requestId: string;
  replyId?: string;
  lastSeq: number;
  /** The highest takeover attempt whose restart frame was applied (0: none). */
  attempt?: number;
  handlers: ReplyHandlers;
  via: 'socket' | 'http' | 'waiting';
  http?: AbortController;
  retry?: ReturnType<typeof setTimeout>;
}

/** How long a reply that cannot be resumed (it is still being written elsewhere) waits between looks. */
const RECOVER_RETRY_MS = 2000;
const HTTP_RESUME_DELAY_MS = 500;

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
    ...SOCKET_RECONNECTION,
    timeout: 10000,
  });
}

/**
 * The chat page's link to the server. Online means: the socket is up and the last `health`
 * push said healthy; or, when the socket cannot connect at all, GET /health answers ok (then
 * messages go through POST /interact with SSE). Socket.IO reconnects by itself, so the page
 * recovers when the server comes back.
 *
 * Replies survive the connection: a reply whose connection drops keeps streaming on the server,
 * and is picked up again after the last frame the page has, on the reconnected socket (any
 * server), or over GET /interact/replies/{id}/stream without one. A reply that ended meanwhile is
 * read back (GET /interact/replies/{id}). A reply whose server stopped is taken over by another
 * (with Redis): a `chat:restart` frame says to discard the text so far. After a reload, `resume` does the same for a reply the
 * conversation shows as still streaming.
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
  private readonly replies = new Map<string, TrackedReply>();
  /** Told about public settings changes: the new settings, or null after a reconnect (changes may have been missed). */
  private readonly settingsListeners = new Set<(settings: PublicSettings | null) => void>();
  private connectedBefore = false;
  private readonly handoffListeners = new Set<(event: HandoffEvent) => void>();
  private readonly payloadContract: z.ZodType | undefined;

  constructor(options: ChatConnectionOptions = {}) {
    this.createSocket = options.createSocket ?? createDefaultSocket;
    this.fetchImpl = options.fetch ?? ((...args) => fetch(...args));
    this.healthPollMs = options.healthPollMs ?? HEALTH_POLL_MS;
    this.healthTimeoutMs = options.healthTimeoutMs ?? HEALTH_TIMEOUT_MS;
    this.connectGraceMs = options.connectGraceMs ?? CONNECT_GRACE_MS;
    this.payloadContract = options.payloadContract;
  }

  start(): void {
    if (this.socket) return;
    const socket = this.createSocket();
    this.socket = socket;
    this.startGrace();
    socket.on('connect', () => {
      if (this.connectedBefore) for (const listener of this.settingsListeners) listener(null);
      this.connectedBefore = true;
      this.socketUp = true;
      this.socketHealthy = undefined;
      clearTimeout(this.graceTimer);
      this.stopPolling();
      this.update();
      for (const reply of this.replies.values()) if (reply.via !== 'socket') this.resumeOverSocket(reply);
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
      this.socketLost();
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
    socket.on('settings:changed', (settings) => {
      for (const listener of this.settingsListeners) listener(settings);
    });
    socket.on('chat:human', (p) => this.tellHandoff({ kind: 'human', ...p }));
    socket.on('chat:human-typing', (p) => this.tellHandoff({ kind: 'typing', ...p }));
    socket.on('chat:handoff', (p) => this.tellHandoff({ kind: 'state', ...p }));
    socket.on('chat:delta', (p) => {
      const reply = this.replies.get(p.requestId);
      if (reply?.via === 'socket' && this.accept(reply, p.seq)) reply.handlers.onDelta(p.text, p.seq);
    });
    socket.on('chat:restart', (p) => {
      const reply = this.replies.get(p.requestId);
      if (reply?.via === 'socket' && this.accept(reply, p.seq, p.attempt)) reply.handlers.onRestart?.();
    });
    socket.on('chat:done', (p) => {
      const reply = this.replies.get(p.requestId);
      if (reply?.via === 'socket' && this.accept(reply, p.seq)) this.settle(reply, (h) => h.onDone(p.data));
    });
    socket.on('chat:error', (p) => {
      const reply = this.replies.get(p.requestId);
      if (reply?.via === 'socket' && this.accept(reply, p.seq)) this.settle(reply, (h) => h.onError(p.message || CHAT_ERROR_DEFAULTS.unknown, p.code, p.retryAfter));
    });
  }

  stop(): void {
    this.stopPolling();
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.graceTimer);
    for (const reply of this.replies.values()) {
      reply.http?.abort();
      clearTimeout(reply.retry);
    }
    this.replies.clear();
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

  /** Public settings pushed live (`settings:changed`); null when they should be read again (after a reconnect). */
  onSettings(listener: (settings: PublicSettings | null) => void): () => void {
    this.settingsListeners.add(listener);
    return () => this.settingsListeners.delete(listener);
  }

  /** A person's messages, typing and the handoff's state, live (`chat:human`, `chat:human-typing`, `chat:handoff`). */
  onHandoff(listener: (event: HandoffEvent) => void): () => void {
    this.handoffListeners.add(listener);
    return () => this.handoffListeners.delete(listener);
  }

  private tellHandoff(event: HandoffEvent): void {
    for (const listener of this.handoffListeners) listener(event);
  }

  /** Whether the connection is online now. */
  get online(): boolean {
    return this.snapshot.status === 'online';
  }

  /** Sends one question; the handlers get its frames. Fails at once (onError) when offline. */
  send(payload: ChatSendPayload, handlers: ReplyHandlers): ActiveReply {
    // Checked with the server's own contract first: a refusal reads the same, without a round trip.
    const checked = this.payloadContract ? check(this.payloadContract, payload) : ({ ok: true } as const);
    if (!checked.ok) {
      queueMicrotask(() => handlers.onError(checked.problem.message, checked.problem.code));
      return { cancel: () => undefined };
    }
    const { requestId } = payload;
    const socket = this.socket;
    if (socket && this.socketUp && socket.connected) {
      const reply: TrackedReply = { requestId, lastSeq: 0, handlers, via: 'socket' };
      this.replies.set(requestId, reply);
      socket.emit('chat:send', payload, (ack) => {
        if (this.replies.get(requestId) !== reply) return;
        if (ack?.accepted) {
          reply.replyId = ack.replyId;
          return;
        }
        this.settle(reply, (h) => h.onError(ack?.error?.message || CHAT_ERROR_DEFAULTS.send, ack?.error?.code, ack?.error?.retryAfter));
      });
      return { cancel: () => this.cancel(requestId) };
    }
    if (this.httpHealthy) {
      const reply: TrackedReply = { requestId, lastSeq: 0, handlers, via: 'http', http: new AbortController() };
      this.replies.set(requestId, reply);
      void streamInteract(payload, this.sinkFor(reply), { fetch: this.fetchImpl, signal: reply.http!.signal });
      return { cancel: () => this.cancel(requestId) };
    }
    queueMicrotask(() => handlers.onError(CHAT_ERROR_DEFAULTS.send));
    return { cancel: () => undefined };
  }

  /**
   * Picks up a reply the page knows only by id (after a reload, a conversation shows it still
   * streaming): the frames after `after`, then the live ones. `requestId` tags them.
   */
  resume(requestId: string, replyId: string, handlers: ReplyHandlers, after = 0): ActiveReply {
    const reply: TrackedReply = { requestId, replyId, lastSeq: after, handlers, via: 'waiting' };
    this.replies.set(requestId, reply);
    if (this.socket && this.socketUp && this.socket.connected) this.resumeOverSocket(reply);
    else this.resumeSoon(reply);
    return { cancel: () => this.cancel(requestId) };
  }

  /** Stops a reply on the server and forgets it here. */
  private cancel(requestId: string): void {
    const reply = this.replies.get(requestId);
    if (!reply) return;
    this.forget(reply);
    if (reply.via === 'socket' && this.socket?.connected) {
      this.socket.emit('chat:cancel', { requestId });
    } else if (reply.replyId) {
      void this.fetchImpl(`/interact/replies/${encodeURIComponent(reply.replyId)}/cancel`, { method: 'POST', credentials: 'same-origin' }).catch(() => undefined);
    }
  }

  /**
   * Drops frames the page already has (a frame without a number is always new). A restart frame of
   * a newer takeover (`restartAttempt`) is always applied, and numbering goes on from it: the page
   * may have followed a stalled server's frames that the taker replaced.
   */
  private accept(reply: TrackedReply, seq: number | undefined, restartAttempt?: number): boolean {
    if (restartAttempt !== undefined && restartAttempt > (reply.attempt ?? 0)) {
      reply.attempt = restartAttempt;
      if (seq !== undefined) reply.lastSeq = seq;
      return true;
    }
    if (seq === undefined) return true;
    if (seq <= reply.lastSeq) return false;
    reply.lastSeq = seq;
    return true;
  }

  private settle(reply: TrackedReply, deliver: (handlers: ReplyHandlers) => void): void {
    if (this.replies.get(reply.requestId) !== reply) return;
    this.forget(reply);
    deliver(reply.handlers);
  }

  private forget(reply: TrackedReply): void {
    if (this.replies.get(reply.requestId) === reply) this.replies.delete(reply.requestId);
    reply.http?.abort();
    clearTimeout(reply.retry);
  }

  /** Frames of the HTTP transport, numbered like the socket's. */
  private sinkFor(reply: TrackedReply): StreamSink {
    const mine = () => this.replies.get(reply.requestId) === reply;
    return {
      onStart: (replyId) => {
        reply.replyId = replyId;
      },
      accept: (seq, restartAttempt) => mine() && this.accept(reply, seq, restartAttempt),
      onDelta: (text, seq) => reply.handlers.onDelta(text, seq),
      onRestart: () => reply.handlers.onRestart?.(),
      onDone: (data) => this.settle(reply, (h) => h.onDone(data)),
      onError: (message, code, retryAfter) => this.settle(reply, (h) => h.onError(message, code, retryAfter)),
      onCut: () => {
        if (!mine()) return;
        reply.via = 'waiting';
        reply.http = undefined;
        this.resumeSoon(reply);
      },
    };
  }

  /**
   * The socket went away: its replies wait to be picked up again. One not acknowledged yet has no
   * id to resume by; it fails as before (the acknowledgement normally comes within milliseconds).
   */
  private socketLost(): void {
    for (const reply of [...this.replies.values()]) {
      if (reply.via !== 'socket') continue;
      if (reply.replyId) reply.via = 'waiting';
      else this.settle(reply, (h) => h.onError(CHAT_ERROR_DEFAULTS.response));
    }
  }

  private resumeOverSocket(reply: TrackedReply): void {
    const socket = this.socket;
    if (!reply.replyId || !socket) return;
    clearTimeout(reply.retry);
    reply.via = 'socket';
    socket.emit('chat:resume', { requestId: reply.requestId, replyId: reply.replyId, after: reply.lastSeq }, (ack) => {
      if (this.replies.get(reply.requestId) !== reply || ack?.accepted) return;
      // No longer streaming anywhere: the stored reply tells how it ended.
      reply.via = 'waiting';
      void this.recover(reply);
    });
  }

  /** Resumes without the socket when only HTTP works (otherwise the socket's connect does it). */
  private resumeSoon(reply: TrackedReply): void {
    clearTimeout(reply.retry);
    reply.retry = setTimeout(() => {
      if (this.replies.get(reply.requestId) !== reply || reply.via !== 'waiting') return;
      if (this.socketUp && this.socket?.connected) this.resumeOverSocket(reply);
      else if (this.httpHealthy && reply.replyId) {
        reply.via = 'http';
        reply.http = new AbortController();
        void resumeInteract(reply.replyId, reply.lastSeq, this.sinkFor(reply), { fetch: this.fetchImpl, signal: reply.http.signal });
      } else this.resumeSoon(reply);
    }, HTTP_RESUME_DELAY_MS);
  }

  /** Reads a reply that can no longer be followed: how it ended, or (still running elsewhere) looks again later. */
  private async recover(reply: TrackedReply): Promise<void> {
    if (!reply.replyId) return;
    let status: ReplyStatus | undefined;
    let missing = false;
    try {
      const response = await this.fetchImpl(`/interact/replies/${encodeURIComponent(reply.replyId)}`, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
      if (response.status === 404) missing = true;
      else if (response.ok) status = ((await response.json()) as { data?: ReplyStatus }).data;
    } catch {
      // Looked at again below.
    }
    if (this.replies.get(reply.requestId) !== reply) return;
    if (missing) return this.settle(reply, (h) => h.onError(CHAT_ERROR_DEFAULTS.response));
    if (status?.status === 'complete' && status.data) {
      const data = status.data;
      return this.settle(reply, (h) => h.onDone(data));
    }
    if (status && status.status !== 'streaming') {
      const code = status.status === 'stopped' ? CANCELLED_CODE : (status.error?.code ?? undefined);
      const message = status.error?.message ?? CHAT_ERROR_DEFAULTS.response;
      return this.settle(reply, (h) => h.onError(message, code));
    }
    reply.retry = setTimeout(() => {
      if (this.replies.get(reply.requestId) !== reply) return;
      if (this.socketUp && this.socket?.connected) this.resumeOverSocket(reply);
      else void this.recover(reply);
    }, RECOVER_RETRY_MS);
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
