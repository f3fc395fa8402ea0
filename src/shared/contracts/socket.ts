/**
 * Socket.IO events: payload schemas and the event maps used as the generic parameters of the
 * server and client sockets, so both sides are checked against the same contract. `/` is public;
 * `/admin` needs an admin session.
 */
import { z } from 'zod';
import { AnalyticsUpdateSchema, type AnalyticsUpdate } from './analytics';
import { ChatSendPayloadSchema, ReplyDataSchema, RequestIdSchema, type ChatSendPayload } from './chat';
import {
  ChatResumePayloadSchema,
  ConversationMessageEventSchema,
  GapsChangedEventSchema,
  type ChatResumePayload,
  type ConversationMessageEvent,
  type GapsChangedEvent,
} from './conversations';
import { PublicSettingsSchema, type PublicSettings } from './config';
import {
  ChatHandoffPayloadSchema,
  ChatHumanPayloadSchema,
  ChatHumanTypingPayloadSchema,
  InboxChangedPayloadSchema,
  type ChatHandoffPayload,
  type ChatHumanPayload,
  type ChatHumanTypingPayload,
  type InboxChangedPayload,
} from './handoff';
import { ErrorBodySchema, HealthStatusSchema } from './http';
import { BudgetUpdateEventSchema, type BudgetUpdateEvent } from './limits';
import { ACCESS, RoleSchema, type Role } from './roles';

export { ChatSendPayloadSchema, type ChatSendPayload, type ParsedChatSendPayload } from './chat';

/**
 * `chat:send` acknowledgement. `replyId` names the reply from its first frame on: a client that
 * loses its connection (or reloads) resumes it with `chat:resume`, or reads it at
 * GET /interact/replies/{replyId}.
 */
export const ChatSendAckSchema = z.union([
  z.object({ accepted: z.literal(true), replyId: z.string().optional() }),
  z.object({ accepted: z.literal(false), error: ErrorBodySchema }),
]);
export type ChatSendAck = z.infer<typeof ChatSendAckSchema>;

/**
 * Frames carry `seq`, the reply's frame number (1, 2, ...; the final chat:done or chat:error has
 * the last): a client keeps the highest it has applied and resumes after it, so no text is lost
 * or repeated. Optional for frames made elsewhere (tests, older servers).
 */
const seq = z.number().int().optional();

export const ChatDeltaPayloadSchema = z.object({ requestId: z.string(), text: z.string(), seq });
export type ChatDeltaPayload = z.infer<typeof ChatDeltaPayloadSchema>;

/**
 * The server writing the reply stopped and another took it over: discard the reply's text so far,
 * the frames that follow write it again from the start (chat:done then carries the whole text).
 */
export const ChatRestartPayloadSchema = z.object({
  requestId: z.string(),
  seq,
  /**
   * 1 for the first takeover, 2 for the second. A restart with a higher attempt than the client
   * has seen is applied even if its seq is not above the client's last (the client was following
   * a server that stalled and wrote frames the taker replaced); the frames after it follow its seq.
   */
  attempt: z.number().int().optional(),
});
export type ChatRestartPayload = z.infer<typeof ChatRestartPayloadSchema>;

export const ChatDonePayloadSchema = z.object({ requestId: z.string(), data: ReplyDataSchema, seq });
export type ChatDonePayload = z.infer<typeof ChatDonePayloadSchema>;

export const ChatErrorPayloadSchema = z.object({
  requestId: z.string(),
  message: z.string(),
  code: z.string(),
  seq,
  /** rate_limited, quota_exhausted: seconds until the message may be sent again. */
  retryAfter: z.number().int().optional(),
});
export type ChatErrorPayload = z.infer<typeof ChatErrorPayloadSchema>;

/** `chat:resume` acknowledgement: accepted (the missed frames follow), or not_found / forbidden. */
export const ChatResumeAckSchema = z.union([z.object({ accepted: z.literal(true) }), z.object({ accepted: z.literal(false), error: ErrorBodySchema })]);
export type ChatResumeAck = z.infer<typeof ChatResumeAckSchema>;

/** POST /interact as server-sent events: the first event names the reply (resume it with Last-Event-ID). */
export const ChatStartPayloadSchema = z.object({ requestId: z.string(), replyId: z.string() });
export type ChatStartPayload = z.infer<typeof ChatStartPayloadSchema>;

export const ChatCancelPayloadSchema = z.object({ requestId: RequestIdSchema }, { error: 'Send the cancel as an object.' });
export type ChatCancelPayload = z.infer<typeof ChatCancelPayloadSchema>;

/** Pushed on connect and every health interval. */
export const HealthPushSchema = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  overallHealth: HealthStatusSchema,
  /** ISO timestamp. */
  timestamp: z.string(),
});
export type HealthPush = z.infer<typeof HealthPushSchema>;

export interface ServerToClientEvents {
  'chat:delta': (p: ChatDeltaPayload) => void;
  'chat:restart': (p: ChatRestartPayload) => void;
  'chat:done': (p: ChatDonePayload) => void;
  'chat:error': (p: ChatErrorPayload) => void;
  health: (p: HealthPush) => void;
  'settings:changed': (p: PublicSettings) => void;
  'chat:human': (p: ChatHumanPayload) => void;
  'chat:human-typing': (p: ChatHumanTypingPayload) => void;
  'chat:handoff': (p: ChatHandoffPayload) => void;
}

export interface ClientToServerEvents {
  'chat:send': (p: ChatSendPayload, ack: (a: ChatSendAck) => void) => void;
  'chat:cancel': (p: ChatCancelPayload) => void;
  'chat:resume': (p: ChatResumePayload, ack: (a: ChatResumeAck) => void) => void;
}

export const KnowledgeChangeActionSchema = z.enum(['created', 'updated', 'deleted']);
export type KnowledgeChangeAction = z.infer<typeof KnowledgeChangeActionSchema>;

export const KnowledgeChangedPayloadSchema = z.object({ id: z.string(), action: KnowledgeChangeActionSchema });
export type KnowledgeChangedPayload = z.infer<typeof KnowledgeChangedPayloadSchema>;

/** `agentId`: the agent that changed; absent for global settings. */
export const ConfigChangedPayloadSchema = z.object({ agentId: z.string().optional() });
export type ConfigChangedPayload = z.infer<typeof ConfigChangedPayloadSchema>;

/** A member was invited, joined, changed, disabled or removed: reload the Team tab. */
export const TeamChangedPayloadSchema = z.object({ memberId: z.string().optional() });
export type TeamChangedPayload = z.infer<typeof TeamChangedPayloadSchema>;

/** Sent to a member's own consoles when an owner or admin changed their role: reload the session (GET /api/auth/me). */
export const AccountChangedPayloadSchema = z.object({ role: RoleSchema });
export type AccountChangedPayload = z.infer<typeof AccountChangedPayloadSchema>;

export interface AdminServerToClientEvents {
  'analytics:update': (p: AnalyticsUpdate) => void;
  'knowledge:changed': (p: KnowledgeChangedPayload) => void;
  'config:changed': (p: ConfigChangedPayload) => void;
  'conversation:message': (p: ConversationMessageEvent) => void;
  'knowledge-gaps:changed': (p: GapsChangedEvent) => void;
  'budget:update': (p: BudgetUpdateEvent) => void;
  'team:changed': (p: TeamChangedPayload) => void;
  'account:changed': (p: AccountChangedPayload) => void;
  'inbox:changed': (p: InboxChangedPayload) => void;
}

/**
 * Which roles receive each /admin event: the same roles that may read it over HTTP, so an agent
 * or viewer never hears of configuration, keys or budgets. A new event must be listed here (the
 * compiler checks). `account:changed` goes only to the member it is about.
 */
export const ADMIN_EVENT_ROLES: Readonly<Record<keyof AdminServerToClientEvents, readonly Role[]>> = Object.freeze({
  'analytics:update': ACCESS.analyticsRead,
  'knowledge:changed': ACCESS.knowledgeRead,
  'config:changed': ACCESS.configuration,
  'conversation:message': ACCESS.conversationsRead,
  'knowledge-gaps:changed': ACCESS.conversationsRead,
  'budget:update': ACCESS.budgets,
  'team:changed': ACCESS.team,
  'account:changed': ACCESS.signedIn,
  'inbox:changed': ACCESS.conversationsAnswer,
});

/** The admin namespace is push-only. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AdminClientToServerEvents {}

/** Every event, its direction and payload schema: the OpenAPI document describes them from this. */
export const SOCKET_EVENTS = {
  '/': {
    clientToServer: {
      'chat:send': { payload: ChatSendPayloadSchema, ack: ChatSendAckSchema, about: 'Ask a question; acknowledged at once with {accepted} or {accepted:false, error}. The reply streams as chat:delta frames, then chat:done or chat:error, all tagged with the requestId.' },
      'chat:cancel': { payload: ChatCancelPayloadSchema, about: 'Stop a reply that is streaming; it ends with chat:error (code cancelled). The only way to stop one: a lost connection does not (the reply keeps streaming into the conversation until it ends or CHAT_TIMEOUT_MS).' },
      'chat:resume': {
        payload: ChatResumePayloadSchema,
        ack: ChatResumeAckSchema,
        about:
          'Pick up a reply (replyId from the chat:send acknowledgement or the visitor\'s conversation) after a lost connection or a reload, on any server: the frames after `after` arrive (tagged with this requestId), then the live ones, then chat:done or chat:error. Needs the visitor cookie the reply was asked with; not_found once the reply ended more than a minute ago (read the conversation instead).',
      },
    },
    serverToClient: {
      'chat:delta': { payload: ChatDeltaPayloadSchema, about: 'The next piece of the reply text (coalesced: the first at once, then at most one frame per ~30 ms); `seq` numbers the frames of a reply from 1.' },
      'chat:restart': {
        payload: ChatRestartPayloadSchema,
        about:
          'The server writing the reply stopped (with REDIS_URL, within a few seconds another server takes it over, at most twice): discard the text received so far; the next chat:delta frames write the reply again from the start.',
      },
      'chat:done': { payload: ChatDonePayloadSchema, about: 'The reply is complete; `data` is the /interact reply data.' },
      'chat:error': { payload: ChatErrorPayloadSchema, about: 'The reply failed or was cancelled; `code` is an error code, `message` is for people.' },
      health: { payload: HealthPushSchema, about: 'Service health, on connect and every HEALTH_INTERVAL_MS (30 s).' },
      'settings:changed': {
        payload: PublicSettingsSchema,
        about: 'An administrator changed the global settings (a vertical switched off or on, the default language): the new GET /api/public/settings data, to every open chat page on every server.',
      },
      'chat:human': {
        payload: ChatHumanPayloadSchema,
        about: "A member's reply in the visitor's conversation (handed to a person), with the member's name: to every open socket of that visitor, on any server, once. It is also in GET /api/visitor/conversations (role human).",
      },
      'chat:human-typing': { payload: ChatHumanTypingPayloadSchema, about: 'The member answering the conversation started (typing: true) or stopped typing.' },
      'chat:handoff': { payload: ChatHandoffPayloadSchema, about: "The conversation's handoff changed: a person was asked for (waiting, with the place in the queue), took it (open, with their name), or resolved it." },
    },
  },
  '/admin': {
    clientToServer: {},
    serverToClient: {
      'analytics:update': { payload: AnalyticsUpdateSchema, about: 'New usage was recorded (or a reply rated): reload the analytics. At most once a second.' },
      'knowledge:changed': { payload: KnowledgeChangedPayloadSchema, about: 'A knowledge item was created, updated or deleted (by any console, on any server).' },
      'config:changed': { payload: ConfigChangedPayloadSchema, about: 'An agent (agentId) or the global settings (no agentId) changed.' },
      'conversation:message': { payload: ConversationMessageEventSchema, about: 'A visitor message was stored, or a reply finished (any server): the Conversations tab shows it.' },
      'knowledge-gaps:changed': { payload: GapsChangedEventSchema, about: 'A knowledge gap was asked again, opened, resolved or reopened.' },
      'budget:update': { payload: BudgetUpdateEventSchema, about: 'Spend changed (at most 4 times a second per server): reload GET /api/budgets. With `alert`: a budget reached its soft threshold or its cap (once per budget, threshold and month).' },
      'team:changed': { payload: TeamChangedPayloadSchema, about: 'A member was invited, joined, changed, disabled or removed: reload GET /api/team/members.' },
      'inbox:changed': { payload: InboxChangedPayloadSchema, about: 'Agents, admins and owners: a conversation was handed to a person, taken, assigned, answered, got a visitor message, or was resolved (any server): reload GET /api/inbox.' },
      'account:changed': { payload: AccountChangedPayloadSchema, about: "Only to the member concerned: an owner or admin changed this member's role (the socket now receives that role's events): reload GET /api/auth/me." },
    },
  },
} as const;


/**
 * POST /interact with `Accept: text/event-stream`: the same frames as the socket, each as one
 * server-sent event (`event: <name>`, `data: <payload as JSON>`): chat:delta frames, then one
 * chat:done or chat:error.
 */
export const ChatStreamEventSchema = z
  .discriminatedUnion('event', [
    z.object({ event: z.literal('chat:start'), data: ChatStartPayloadSchema }),
    z.object({ event: z.literal('chat:delta'), data: ChatDeltaPayloadSchema }),
    z.object({ event: z.literal('chat:restart'), data: ChatRestartPayloadSchema }),
    z.object({ event: z.literal('chat:done'), data: ChatDonePayloadSchema }),
    z.object({ event: z.literal('chat:error'), data: ChatErrorPayloadSchema }),
  ])
  .meta({
    id: 'ChatStreamEvent',
    description:
      'One server-sent event: its `event:` line, its `data:` line (JSON) and, for frames, an `id:` line with the frame number: a stream cut off mid-reply resumes at GET /interact/replies/{replyId}/stream with that number as Last-Event-ID.',
  });
