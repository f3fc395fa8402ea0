/**
 * A stand-in for the Socket.IO client socket (the network edge): records what the page emits and
 * lets a test play the server's side (connect, health pushes, reply frames, disconnects).
 */
import type { ReplyData } from '@shared/contracts/chat';
import type { ChatResumeAck, ChatSendAck, ChatSendPayload } from '@shared/contracts/socket';
import type { ChatSocket } from '../api/chat-connection';

type Listener = (...args: unknown[]) => void;

export class FakeSocket {
  connected = false;
  closed = false;
  connectCalls = 0;
  /** Every event the page emitted, in order. */
  readonly emitted: { event: string; payload: unknown }[] = [];
  /** The ack sent for each chat:send; null holds acks back (see `pendingAcks`). */
  ack: ChatSendAck | null = { accepted: true };
  readonly pendingAcks: ((ack: ChatSendAck) => void)[] = [];
  /** The ack sent for each chat:resume. */
  resumeAck: ChatResumeAck = { accepted: true };
  private readonly listeners = new Map<string, Set<Listener>>();

  asSocket(): ChatSocket {
    return this as unknown as ChatSocket;
  }

  on(event: string, listener: Listener): this {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  removeAllListeners(): this {
    this.listeners.clear();
    return this;
  }

  emit(event: string, payload: unknown, ack?: (ack: ChatSendAck) => void): this {
    this.emitted.push({ event, payload });
    if (event === 'chat:send' && ack) {
      if (this.ack) {
        // Like the server: a reply id per accepted question (here, derived from its requestId).
        const answer: ChatSendAck = this.ack.accepted ? { accepted: true, replyId: `reply-${(payload as ChatSendPayload).requestId}` } : this.ack;
        queueMicrotask(() => ack(answer));
      } else this.pendingAcks.push(ack);
    }
    if (event === 'chat:resume' && ack) {
      const answer = this.resumeAck;
      queueMicrotask(() => (ack as unknown as (a: ChatResumeAck) => void)(answer));
    }
    return this;
  }

  connect(): this {
    this.connectCalls += 1;
    return this;
  }

  close(): this {
    this.closed = true;
    this.connected = false;
    return this;
  }

  // ---- the server's side

  fire(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }

  /** The socket connects and the server pushes its health, as the real gateway does on connect. */
  serverConnect(status: 'healthy' | 'unhealthy' | null = 'healthy'): void {
    this.connected = true;
    this.fire('connect');
    if (status) this.health(status);
  }

  health(status: 'healthy' | 'unhealthy'): void {
    this.fire('health', { status, overallHealth: status, timestamp: new Date().toISOString() });
  }

  serverDisconnect(reason = 'transport close'): void {
    this.connected = false;
    this.fire('disconnect', reason);
  }

  connectError(): void {
    this.fire('connect_error', new Error('websocket error'));
  }

  delta(requestId: string, text: string, seq?: number): void {
    this.fire('chat:delta', { requestId, text, ...(seq === undefined ? {} : { seq }) });
  }

  done(requestId: string, data: ReplyData, seq?: number): void {
    this.fire('chat:done', { requestId, data, ...(seq === undefined ? {} : { seq }) });
  }

  error(requestId: string, message: string, code = 'provider_error'): void {
    this.fire('chat:error', { requestId, message, code });
  }

  resumes(): { requestId: string; replyId: string; after: number }[] {
    return this.emitted.filter((e) => e.event === 'chat:resume').map((e) => e.payload as { requestId: string; replyId: string; after: number });
  }

  sends(): ChatSendPayload[] {
    return this.emitted.filter((e) => e.event === 'chat:send').map((e) => e.payload as ChatSendPayload);
  }

  lastSend(): ChatSendPayload {
    const all = this.sends();
    if (all.length === 0) throw new Error('nothing was sent');
    return all[all.length - 1];
  }

  cancels(): string[] {
    return this.emitted.filter((e) => e.event === 'chat:cancel').map((e) => (e.payload as { requestId: string }).requestId);
  }
}
