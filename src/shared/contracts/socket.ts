/**
 * Socket.IO event maps, used as the generic parameters of the server and client sockets so
 * both sides are checked against the same contract. `/` is public; `/admin` needs an admin session.
 */
import type { AnalyticsUpdate } from './analytics';
import type { InteractRequest, ReplyData } from './chat';
import type { ErrorCode, HealthStatus } from './http';

/** `chat:send` payload: the /interact body plus a client-chosen id that tags every reply frame. */
export type ChatSendPayload = InteractRequest & { requestId: string };

export type ChatSendAck =
  | { accepted: true }
  | { accepted: false; error: { code: ErrorCode | string; message: string } };

export interface ChatDeltaPayload {
  requestId: string;
  text: string;
}

export interface ChatDonePayload {
  requestId: string;
  data: ReplyData;
}

export interface ChatErrorPayload {
  requestId: string;
  message: string;
  code: ErrorCode | string;
}

export interface ChatCancelPayload {
  requestId: string;
}

/** Pushed on connect and every health interval. */
export interface HealthPush {
  status: 'healthy' | 'unhealthy';
  overallHealth: HealthStatus;
  /** ISO timestamp. */
  timestamp: string;
}

export interface ServerToClientEvents {
  'chat:delta': (p: ChatDeltaPayload) => void;
  'chat:done': (p: ChatDonePayload) => void;
  'chat:error': (p: ChatErrorPayload) => void;
  health: (p: HealthPush) => void;
}

export interface ClientToServerEvents {
  'chat:send': (p: ChatSendPayload, ack: (a: ChatSendAck) => void) => void;
  'chat:cancel': (p: ChatCancelPayload) => void;
}

export type KnowledgeChangeAction = 'created' | 'updated' | 'deleted';

export interface KnowledgeChangedPayload {
  id: string;
  action: KnowledgeChangeAction;
}

export interface ConfigChangedPayload {
  /** The agent that changed; absent for global settings. */
  agentId?: string;
}

export interface AdminServerToClientEvents {
  'analytics:update': (p: AnalyticsUpdate) => void;
  'knowledge:changed': (p: KnowledgeChangedPayload) => void;
  'config:changed': (p: ConfigChangedPayload) => void;
}

/** The admin namespace is push-only. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AdminClientToServerEvents {}
