/**
 * Kept conversations: what the chat page reads back after a reload (the visitor's own
 * conversations, by the visitor cookie), the reply of a chat request fetched or resumed by its id,
 * and the admin console's transcripts and knowledge gaps. Shared by the server and the client.
 */
import { z } from 'zod';
import { getJurisdiction } from '../catalog/jurisdictions';
import { ENABLED_VERTICAL_IDS, VERTICALS, type EnabledVerticalId } from '../catalog/verticals';
import { ChatVerticalSchema, ReplyDataSchema, RequestIdSchema, tupleOf } from './chat';
import { HandoffInfoSchema } from './handoff';
import { body, coded, integer, optional, text, timestamp } from './rules';

/** Messages of one conversation the chat page gets back (the newest; older ones stay on the server). */
export const VISITOR_MESSAGE_LIMIT = 200;
/** Retention of kept conversations, in days (global setting). */
export const RETENTION_DAYS = Object.freeze({ default: 90, min: 1, max: 3650 });

/** Where a message stands: a reply that is `streaming` can be resumed by its id. */
export const MessageStatusSchema = z.enum(['complete', 'streaming', 'error', 'stopped', 'interrupted']);
export type MessageStatus = z.infer<typeof MessageStatusSchema>;

const verticalId = z.enum(tupleOf(VERTICALS.map((v) => v.id)));

/** One message as the chat page shows it again. */
export const VisitorMessageSchema = z
  .object({
    id: z.string(),
    /** user (the visitor), agent (the assistant) or human (a member's reply; `author` names them). */
    role: z.enum(['user', 'agent', 'human']),
    content: z.string(),
    /** ISO timestamp. */
    createdAt: z.string(),
    status: MessageStatusSchema,
    /** Language code the message was asked or answered in. */
    language: z.string().nullable(),
    /** Agent: the client's requestId of the chat request it answers (to pick up a reply whose acknowledgement was lost). */
    requestId: z.string().nullable(),
    /** Agent, complete: the reply data as chat:done carried it. */
    reply: ReplyDataSchema.nullable(),
    /** Agent: the visitor's vote. */
    feedback: z.enum(['up', 'down']).nullable(),
    /** Agent, error: what went wrong. */
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    /** Human: the member who wrote it (their name only). */
    author: z.object({ name: z.string() }).optional(),
  })
  .meta({ id: 'VisitorMessage' });
export type VisitorMessage = z.infer<typeof VisitorMessageSchema>;

/** A conversation of the visitor: one per vertical, and per jurisdiction (and sub-region) for legal. */
export const VisitorConversationSchema = z
  .object({
    id: z.string(),
    vertical: verticalId,
    /** Legal: jurisdiction code. */
    jurisdiction: z.string().nullable(),
    /** Legal: sub-region where the jurisdiction has them. */
    subJurisdiction: z.string().nullable(),
    /** Language code of the latest question. */
    language: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    messages: z.array(VisitorMessageSchema),
    /** More, older messages are kept than are sent here. */
    truncated: z.boolean(),
    /** Whether a person was asked for, took it or resolved it (`bot` otherwise). */
    handoff: HandoffInfoSchema,
  })
  .meta({ id: 'VisitorConversation' });
export type VisitorConversation = z.infer<typeof VisitorConversationSchema>;

/** GET /api/visitor/conversations `data`: the visitor's current conversations (those not closed by "New chat"). */
export const VisitorConversationsSchema = z.object({ conversations: z.array(VisitorConversationSchema) }).meta({ id: 'VisitorConversations' });
export type VisitorConversations = z.infer<typeof VisitorConversationsSchema>;

/** The scope "New chat" starts over in. */
export const NewChatRequestSchema = body({
  vertical: ChatVerticalSchema,
  jurisdiction: optional(text('The jurisdiction', 10)),
  subJurisdiction: optional(text('The sub-region', 100)),
})
  .refine((scope) => scope.vertical !== 'legal' || !scope.jurisdiction || getJurisdiction(scope.jurisdiction) !== undefined, {
    message: coded('unknown_jurisdiction', 'Unknown jurisdiction.'),
    path: ['jurisdiction'],
  })
  .meta({ id: 'NewChatRequest' });
export type NewChatRequest = z.output<typeof NewChatRequestSchema>;

/** POST /api/visitor/conversations/new `data`. */
export const NewChatResultSchema = z.object({ closed: z.number().int() }).meta({ id: 'NewChatResult' });
/** DELETE /api/visitor/conversations[/{id}] `data`. */
export const DeletedConversationsSchema = z.object({ deleted: z.number().int() }).meta({ id: 'DeletedConversations' });

// --- replies by id (POST /interact callers, and any client that lost its connection) -----------

/** `{replyId}` in a path. */
export const ReplyIdSchema = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'The reply id must be the replyId of a reply')
  .transform((id) => id.toLowerCase());

/** GET /interact/replies/{replyId} `data`: a reply, finished or still streaming. */
export const ReplyStatusSchema = z
  .object({
    replyId: z.string(),
    status: MessageStatusSchema,
    /** The text so far (all of it when complete). */
    text: z.string(),
    /** Sequence number of the last frame the text includes (resume the stream after it); 0 when read from the stored message. */
    seq: z.number().int(),
    /** Complete: the reply data. */
    data: ReplyDataSchema.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'ReplyStatus' });
export type ReplyStatus = z.infer<typeof ReplyStatusSchema>;

/** GET /interact/replies/{replyId}/stream ?after (the Last-Event-ID header wins when both are sent). */
export const ReplyStreamQuerySchema = z
  .object({
    after: z
      .string({ error: 'after must be a frame number' })
      .regex(/^\d{1,9}$/, 'after must be a frame number')
      .optional()
      .transform((v) => (v === undefined ? undefined : Number(v)))
      .meta({ description: 'Send the frames after this sequence number (default 0: all of them).' }),
  })
  .meta({ id: 'ReplyStreamQuery' });

/** `chat:resume`: pick up a reply after a lost connection or a reload; frames come tagged with `requestId`. */
export const ChatResumePayloadSchema = z
  .object(
    {
      requestId: RequestIdSchema,
      replyId: ReplyIdSchema,
      /** The sequence number of the last frame the client has (0: none). */
      after: integer('after', 0, 1_000_000_000),
    },
    { error: 'Send the resume as an object.' },
  )
  .meta({ id: 'ChatResumePayload' });
export type ChatResumePayload = z.input<typeof ChatResumePayloadSchema>;

// --- admin: transcripts -----------------------------------------------------------------------

/** Page sizes of the console's lists. */
export const PAGE_SIZES = [10, 20, 50, 100] as const;

/** Query-string helpers (a parameter given twice arrives as a list and is refused); the audit log's filters use them too. */
export function queryText(label: string, max: number) {
  return z
    .string({ error: (issue) => (Array.isArray(issue.input) ? `Give ${label} only once` : `${label} must be text`) })
    .pipe(text(label, max))
    .optional()
    .transform((v) => v || undefined);
}

export function queryEnum<const T extends readonly [string, ...string[]]>(label: string, values: T) {
  return z
    .enum([...values, ''] as unknown as [string, ...string[]], {
      error: (issue) => (Array.isArray(issue.input) ? `Give ${label} only once` : `${label} must be one of ${values.join(', ')}`),
    })
    .optional()
    .transform((v) => (v ? (v as T[number]) : undefined));
}

export const queryInt = (label: string, min: number, max: number, fallback: number) =>
  z
    .string({ error: `${label} must be a whole number` })
    .regex(/^\d{1,6}$/, `${label} must be a whole number from ${min} to ${max}`)
    .optional()
    .transform((v, ctx) => {
      const n = v === undefined ? fallback : Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${label} must be a whole number from ${min} to ${max}`, input: v });
        return z.NEVER;
      }
      return n;
    });

const DAY_MS = 86_400_000;

/** A date in a query string; a plain date (2025-01-31, UTC) means its start, or with `wholeDay` the start of the next day. */
export const queryDate = (label: string, wholeDay = false) =>
  z
    .string({ error: (issue) => (Array.isArray(issue.input) ? `Give ${label} only once` : `${label} must be a date`) })
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const plainDate = /^\d{4}-\d{2}-\d{2}$/.test(v);
      const parsed = timestamp(label).safeParse(/^\d+$/.test(v) ? Number(v) : plainDate ? `${v}T00:00:00Z` : v);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]?.message ?? `${label} must be a date`, input: v });
        return z.NEVER;
      }
      return plainDate && wholeDay ? parsed.data + DAY_MS : parsed.data;
    })
    .meta({ description: `${label}: a date (2025-01-31), an ISO 8601 date-time or epoch milliseconds.` });

/** GET /api/conversations: filters and page. */
export const ConversationListQuerySchema = z
  .object({
    page: queryInt('The page', 1, 100_000, 1),
    pageSize: z
      .enum(['10', '20', '50', '100', ''], { error: `The page size must be one of ${PAGE_SIZES.join(', ')}` })
      .optional()
      .transform((v) => (v ? Number(v) : 20)),
    vertical: queryEnum('The vertical', tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS)),
    /** Last activity on or after. */
    from: queryDate('From'),
    /** Last activity before (a plain date counts the whole day). */
    to: queryDate('To', true),
    language: queryText('The language', 10),
    /** down: a reply got a thumbs-down; up: a thumbs-up; none: no vote at all. */
    feedback: queryEnum('The feedback', ['up', 'down', 'none'] as const),
    /** no: at least one reply found nothing in the knowledge base; yes: every reply did. */
    answered: queryEnum('Answered', ['yes', 'no'] as const),
    /** Words that a message of the conversation contains (all of them; each also as the start of a longer word). */
    search: queryText('The search', 200),
  })
  .meta({ id: 'ConversationListQuery' });
export type ConversationListQuery = z.output<typeof ConversationListQuerySchema>;

/** One row of the Conversations tab. */
export const ConversationSummarySchema = z
  .object({
    id: z.string(),
    vertical: verticalId,
    jurisdiction: z.string().nullable(),
    subJurisdiction: z.string().nullable(),
    language: z.string().nullable(),
    /** The first question (shortened). */
    title: z.string(),
    messageCount: z.number().int(),
    /** Replies that found nothing in the knowledge base. */
    unanswered: z.number().int(),
    feedback: z.object({ up: z.number().int(), down: z.number().int() }),
    channel: z.string(),
    /** Still the visitor's current conversation of its vertical (not closed by "New chat"). */
    open: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** With a search: the start of the newest matching message. */
    match: z.string().nullable(),
  })
  .meta({ id: 'ConversationSummary' });
export type ConversationSummary = z.infer<typeof ConversationSummarySchema>;

export const ConversationPageSchema = z
  .object({ items: z.array(ConversationSummarySchema), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() })
  .meta({ id: 'ConversationPage' });
export type ConversationPage = z.infer<typeof ConversationPageSchema>;

/** A message of a transcript, with what the admin needs to judge the reply. */
export const TranscriptMessageSchema = z
  .object({
    id: z.string(),
    /** user (the visitor), agent (the assistant), human (a member's reply) or note (a member's internal note); `author` names the member. */
    role: z.enum(['user', 'agent', 'human', 'note']),
    content: z.string(),
    createdAt: z.string(),
    status: MessageStatusSchema,
    language: z.string().nullable(),
    /** Agent: 0-1 (see ReplyData.confidence). */
    confidence: z.number().nullable(),
    /** Agent: found something in the knowledge base. */
    answered: z.boolean().nullable(),
    sources: z.array(z.object({ id: z.string(), title: z.string(), score: z.number() })),
    feedback: z.enum(['up', 'down']).nullable(),
    agentId: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    /** Agent: ms from the question to the end of the reply. */
    executionTime: z.number().nullable(),
    /** Agent: ms to the first text. */
    timeToFirstToken: z.number().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    /** human, note: the member who wrote it. */
    author: z.object({ name: z.string() }).optional(),
  })
  .meta({ id: 'TranscriptMessage' });
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

/** GET /api/conversations/{id} `data`. */
export const ConversationTranscriptSchema = ConversationSummarySchema.omit({ match: true })
  .extend({ messages: z.array(TranscriptMessageSchema) })
  .meta({ id: 'ConversationTranscript' });
export type ConversationTranscript = z.infer<typeof ConversationTranscriptSchema>;

/** GET /api/conversations/{id}/export: the transcript as a JSON file. */
export const ConversationExportSchema = z
  .object({
    format: z.literal('support-assistant-conversation'),
    version: z.literal(1),
    exportedAt: z.string(),
    conversation: ConversationTranscriptSchema,
  })
  .meta({ id: 'ConversationExport' });
export type ConversationExport = z.infer<typeof ConversationExportSchema>;

/** `conversation:message` on /admin: a message was stored (or a reply finished). */
export const ConversationMessageEventSchema = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  role: z.enum(['user', 'agent']),
  vertical: z.string(),
  status: MessageStatusSchema,
  /** ISO timestamp. */
  at: z.string(),
});
export type ConversationMessageEvent = z.infer<typeof ConversationMessageEventSchema>;

// --- admin: knowledge gaps --------------------------------------------------------------------

export const GapStatusSchema = z.enum(['open', 'resolved']);
export type GapStatus = z.infer<typeof GapStatusSchema>;

/** GET /api/knowledge-gaps ?status&vertical&page&pageSize: most asked first (then last asked). Status defaults to open. */
export const GapListQuerySchema = z
  .object({
    status: queryEnum('The status', ['open', 'resolved', 'all'] as const),
    vertical: queryEnum('The vertical', tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS)),
    page: queryInt('The page', 1, 100_000, 1),
    pageSize: z
      .enum(['10', '20', '50', '100', ''], { error: `The page size must be one of ${PAGE_SIZES.join(', ')}` })
      .optional()
      .transform((v) => (v ? Number(v) : 20)),
  })
  .meta({ id: 'GapListQuery' });
export type GapListQuery = z.output<typeof GapListQuerySchema>;

/** Questions the knowledge base did not answer well, grouped when they share their stemmed words. */
export const KnowledgeGapSchema = z
  .object({
    id: z.string(),
    vertical: verticalId,
    /** The question as last asked. */
    question: z.string(),
    /** Other wordings of the group, newest first (at most 5). */
    examples: z.array(z.string()),
    /** The stemmed words the group is about. */
    terms: z.array(z.string()),
    /** Times asked (every question of the group that failed). */
    count: z.number().int(),
    reasons: z.object({ notFound: z.number().int(), lowConfidence: z.number().int(), thumbsDown: z.number().int() }),
    status: GapStatusSchema,
    firstAskedAt: z.string(),
    lastAskedAt: z.string(),
    resolvedAt: z.string().nullable(),
    /** Failed again after it was marked resolved (the latest time). */
    reopenedAt: z.string().nullable(),
  })
  .meta({ id: 'KnowledgeGap' });
export type KnowledgeGap = z.infer<typeof KnowledgeGapSchema>;

export const GapPageSchema = z
  .object({ items: z.array(KnowledgeGapSchema), total: z.number().int(), page: z.number().int(), pageSize: z.number().int() })
  .meta({ id: 'KnowledgeGapPage' });
export type GapPage = z.infer<typeof GapPageSchema>;

/** PUT /api/knowledge-gaps/{id}: mark a group resolved (new knowledge covers it) or open again. */
export const GapUpdateSchema = body({
  status: z.enum(['open', 'resolved'], { error: 'The status must be open or resolved' }),
}).meta({ id: 'GapUpdate' });
export type GapUpdate = z.output<typeof GapUpdateSchema>;

/** A reply below this confidence (though answered from knowledge) counts as a knowledge gap. */
export const GAP_LOW_CONFIDENCE = 0.5;

/** `knowledge-gaps:changed` on /admin. */
export const GapsChangedEventSchema = z.object({ id: z.string(), status: GapStatusSchema, count: z.number().int() });
export type GapsChangedEvent = z.infer<typeof GapsChangedEventSchema>;
