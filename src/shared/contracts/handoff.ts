/**
 * Handing a conversation to a person: its handoff state, the visitor's request for a person, the
 * inbox of the members who answer (agent, admin, owner), their messages and internal notes, the
 * socket events that carry them live, and the handoff settings (hours, webhook, rules).
 *
 * States: `bot` (the assistant answers) -> `waiting` (a person was asked for; the assistant stays
 * quiet) -> `open` (a member took it) -> `resolved`. A visitor message after `resolved` goes back
 * to the assistant (state `bot`), or reopens the conversation (`waiting`) when the setting
 * `rules.reopenOnMessage` is on. Every transition bumps `version`.
 */
import { z } from 'zod';
import { findSubRegion, getJurisdiction } from '../catalog/jurisdictions';
import { ChatVerticalSchema } from './chat';
import { body, coded, flag, integer, optional, text } from './rules';

import { HandoffStateSchema } from './handoff-state';

export { HANDOFF_STATES, HandoffStateSchema, type HandoffState } from './handoff-state';

/** Why a person was asked for. */
export const HANDOFF_REASONS = ['visitor', 'words', 'unanswered', 'tool', 'message'] as const;
export type HandoffReason = (typeof HANDOFF_REASONS)[number];

/** Longest member message or note (characters). */
export const HUMAN_MESSAGE_LIMIT = 4000;
/** Longest message a visitor leaves with a request for a person. */
export const HANDOFF_NOTE_LIMIT = 4000;

/** The member a conversation is assigned to, as the visitor may see them (their name only). */
export const HandoffAssigneeSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: 'HandoffAssignee' });

/** A conversation's handoff, as the chat page and the inbox get it. */
export const HandoffInfoSchema = z
  .object({
    state: HandoffStateSchema,
    /** Bumped by every transition; send it back with take/resolve to act only on what you saw. */
    version: z.number().int(),
    /** open: who took it. */
    assignee: HandoffAssigneeSchema.nullable(),
    /** waiting, open: when the person was asked for (ISO). */
    requestedAt: z.string().nullable(),
    /** waiting: place in the queue (1 = next). */
    queuePosition: z.number().int().nullable(),
    /** waiting: expected wait in seconds (from the recent times to take a conversation). */
    expectedWaitSeconds: z.number().int().nullable(),
  })
  .meta({ id: 'HandoffInfo' });
export type HandoffInfo = z.infer<typeof HandoffInfoSchema>;

export const BOT_HANDOFF: HandoffInfo = Object.freeze({ state: 'bot', version: 0, assignee: null, requestedAt: null, queuePosition: null, expectedWaitSeconds: null }) as HandoffInfo;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const email = (label: string) =>
  optional(
    z
      .string({ error: `${label} must be text` })
      .trim()
      .max(254, `${label} must be at most 254 characters`)
      .refine((v) => v === '' || EMAIL.test(v), coded('validation_failed', 'Enter a valid email address'))
      .transform((v) => (v === '' ? undefined : v.toLowerCase())),
  );

/** POST /api/visitor/conversations/handoff: the visitor asks for a person in a vertical (and legal jurisdiction). */
export const HandoffRequestSchema = body({
  vertical: ChatVerticalSchema,
  jurisdiction: optional(text('The jurisdiction', 10)),
  subJurisdiction: optional(text('The sub-region', 100)),
  /** Where a person's reply goes when the visitor has left. */
  email: email('The email address'),
  /** A message for the person (out of hours: what the visitor wants to be answered). */
  message: optional(text('The message', HANDOFF_NOTE_LIMIT)),
  /** The visitor's language code (the answer's wording, the next opening time). */
  language: optional(text('The language', 10)),
  /** The visitor's IANA time zone (the next opening time is written in it). */
  timeZone: optional(text('The time zone', 64)),
})
  // A legal conversation is kept per known jurisdiction (and sub-region), as the chat does.
  .refine((r) => r.vertical !== 'legal' || !r.jurisdiction || getJurisdiction(r.jurisdiction) !== undefined, {
    message: coded('unknown_jurisdiction', 'Unknown jurisdiction.'),
    path: ['jurisdiction'],
  })
  .refine(
    (r) => {
      const known = r.vertical === 'legal' && r.jurisdiction && r.subJurisdiction ? getJurisdiction(r.jurisdiction) : undefined;
      return !known || known.subRegions.length === 0 || findSubRegion(known, r.subJurisdiction) !== undefined;
    },
    { message: coded('unknown_jurisdiction', 'Unknown sub-region of that jurisdiction.'), path: ['subJurisdiction'] },
  )
  .meta({ id: 'HandoffRequest' });
export type HandoffRequest = z.output<typeof HandoffRequestSchema>;

/** The answer to a request for a person. */
export const HandoffRequestResultSchema = z
  .object({
    conversationId: z.string(),
    handoff: HandoffInfoSchema,
    /** Whether people are available now (the vertical's business hours). */
    withinHours: z.boolean(),
    /** Outside hours: when people are next available (ISO), null when no opening is scheduled. */
    nextOpening: z.string().nullable(),
    /** What to tell the visitor, in their language (the next opening written in their time zone). */
    message: z.string(),
  })
  .meta({ id: 'HandoffRequestResult' });
export type HandoffRequestResult = z.infer<typeof HandoffRequestResultSchema>;

// --- the inbox -----------------------------------------------------------------------------------

export const InboxItemSchema = z
  .object({
    conversationId: z.string(),
    vertical: z.string(),
    /** The first question, shortened. */
    title: z.string(),
    language: z.string().nullable(),
    handoff: HandoffInfoSchema,
    /** Why a person was asked for: visitor (the button), words, unanswered (the rule), tool (the LLM), message (a visitor message reopened it). */
    reason: z.string().nullable(),
    /** The question that led to the handoff (the last one the knowledge had no answer to), if any. */
    question: z.string().nullable(),
    /** The visitor left an address for replies by mail. */
    visitorEmail: z.string().nullable(),
    /** Asked outside business hours (a message left for later). */
    withinHours: z.boolean(),
    messageCount: z.number().int(),
    /** Visitor messages since the last member message (unread for the tab title). */
    unread: z.number().int(),
    updatedAt: z.string(),
  })
  .meta({ id: 'InboxItem' });
export type InboxItem = z.infer<typeof InboxItemSchema>;

/** GET /api/inbox `data`: waiting (longest first) and open conversations. */
export const InboxSchema = z.object({ waiting: z.array(InboxItemSchema), open: z.array(InboxItemSchema) }).meta({ id: 'Inbox' });
export type Inbox = z.infer<typeof InboxSchema>;

/** One message of a conversation as the inbox shows it (notes included). */
export const InboxMessageSchema = z
  .object({
    id: z.string(),
    /** user (the visitor), agent (the assistant), human (a member's reply), note (internal, never shown to the visitor). */
    role: z.enum(['user', 'agent', 'human', 'note']),
    content: z.string(),
    createdAt: z.string(),
    status: z.string(),
    /** human, note: who wrote it. */
    author: HandoffAssigneeSchema.nullable(),
    /** agent: how well the knowledge covered the question, and the items it used. */
    confidence: z.number().nullable(),
    answered: z.boolean().nullable(),
    sources: z.array(z.object({ id: z.string(), title: z.string(), score: z.number() })),
  })
  .meta({ id: 'InboxMessage' });
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

/** GET /api/inbox/{conversationId} `data`: the conversation and its transcript (oldest first). */
export const InboxConversationSchema = z.object({ item: InboxItemSchema, messages: z.array(InboxMessageSchema) }).meta({ id: 'InboxConversation' });
export type InboxConversation = z.infer<typeof InboxConversationSchema>;

/** POST /api/inbox/{conversationId}/take: take it (or, with `assigneeId`, assign it to that member). */
export const InboxTakeSchema = body({
  /** The version the member saw: another version (someone else acted first) is refused with 409. */
  version: optional(integer('The version', 0, 1_000_000_000)),
  assigneeId: optional(text('The member', 36)),
}).meta({ id: 'InboxTake' });
export type InboxTake = z.output<typeof InboxTakeSchema>;

/** POST /api/inbox/{conversationId}/resolve. */
export const InboxResolveSchema = body({ version: optional(integer('The version', 0, 1_000_000_000)) }).meta({ id: 'InboxResolve' });
export type InboxResolve = z.output<typeof InboxResolveSchema>;

/** POST /api/inbox/{conversationId}/messages: a reply to the visitor, or an internal note (`internal: true`). */
export const InboxMessageInputSchema = body({
  text: text('The message', HUMAN_MESSAGE_LIMIT, { required: true }),
  internal: optional(flag('internal')).transform((v) => v ?? false),
}).meta({ id: 'InboxMessageInput' });
export type InboxMessageInput = z.output<typeof InboxMessageInputSchema>;

/** POST /api/inbox/{conversationId}/typing: the member is typing (or stopped); the visitor sees it live. */
export const InboxTypingSchema = body({ typing: flag('typing') }).meta({ id: 'InboxTyping' });

// --- socket events -----------------------------------------------------------------------------

/** A member's message as the visitor gets it. */
export const HumanMessageSchema = z
  .object({ id: z.string(), content: z.string(), createdAt: z.string(), author: z.object({ name: z.string() }) })
  .meta({ id: 'HumanMessage' });
export type HumanMessage = z.infer<typeof HumanMessageSchema>;

/** `chat:human` (public socket): a member's reply to the visitor's conversation. */
export const ChatHumanPayloadSchema = z.object({ conversationId: z.string(), message: HumanMessageSchema });
export type ChatHumanPayload = z.infer<typeof ChatHumanPayloadSchema>;

/** `chat:human-typing` (public socket). */
export const ChatHumanTypingPayloadSchema = z.object({ conversationId: z.string(), typing: z.boolean(), author: z.object({ name: z.string() }) });
export type ChatHumanTypingPayload = z.infer<typeof ChatHumanTypingPayloadSchema>;

/** `chat:handoff` (public socket): the conversation's handoff changed (a person took it, it was resolved). */
export const ChatHandoffPayloadSchema = z.object({ conversationId: z.string(), handoff: HandoffInfoSchema });
export type ChatHandoffPayload = z.infer<typeof ChatHandoffPayloadSchema>;

/** `inbox:changed` (/admin, agent/admin/owner): a conversation entered, moved in or left the inbox, or got a message. */
export const InboxChangedPayloadSchema = z.object({
  conversationId: z.string(),
  state: HandoffStateSchema,
  version: z.number().int(),
  /** What happened: requested, taken, assigned, message (visitor), reply (member), note, resolved, returned (back to the bot). */
  event: z.string(),
});
export type InboxChangedPayload = z.infer<typeof InboxChangedPayloadSchema>;

// --- settings ----------------------------------------------------------------------------------

const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar date that exists (2026-02-30 does not). */
function isRealDay(day: string): boolean {
  const date = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === day;
}
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const timeOfDay = (label: string) => z.string({ error: `${label} must be a time such as 09:00` }).regex(TIME, `${label} must be a time such as 09:00`);

export const OpeningSchema = z
  .object({ open: timeOfDay('The opening time'), close: timeOfDay('The closing time') }, { error: 'An opening must be {open, close}' })
  .refine((o) => o.open < o.close, { message: 'An opening must close after it opens' });

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const BusinessHoursSchema = z
  .object(
    {
      timeZone: z.string({ error: 'The time zone must be an IANA name such as Europe/Paris' }).max(64).refine(isTimeZone, 'The time zone must be an IANA name such as Europe/Paris'),
      /** Openings per weekday (mon..sun); a day left out is closed. */
      // Strict: a misspelt day ("tues") would otherwise be dropped and leave that day closed.
      weekly: z.strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(OpeningSchema).max(6).optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<z.ZodArray<typeof OpeningSchema>>>, {
        error: (issue) => (issue.code === 'unrecognized_keys' ? `The weekly schedule's days are ${WEEKDAYS.join(', ')} (got ${issue.keys.join(', ')})` : 'The weekly schedule must be an object of days'),
      }),
      /** Closed days (YYYY-MM-DD, in the time zone). */
      holidays: z
        .array(
          z
            .string()
            .regex(DAY, 'A holiday must be a date such as 2026-12-25')
            .refine(isRealDay, 'A holiday must be a date that exists, such as 2026-12-25'),
        )
        .max(366)
        .default([]),
    },
    { error: 'Business hours must be {timeZone, weekly, holidays}' },
  )
  .meta({ id: 'BusinessHours' });
export type BusinessHours = z.output<typeof BusinessHoursSchema>;

export const HandoffRulesSchema = z.object({
  /** Hand over after this many questions in a row the knowledge had no answer to (0: never). */
  unansweredInARow: integer('Unanswered questions in a row', 0, 20),
  /** A visitor message after `resolved` reopens the conversation (waiting) instead of going back to the assistant. */
  reopenOnMessage: flag('Reopen on message'),
});

/** GET /api/config/handoff `data` (the webhook secret is never sent back: `secretSet` says whether one is stored). */
export const HandoffSettingsSchema = z
  .object({
    /** Business hours per vertical; a vertical without hours is always staffed. */
    hours: z.record(z.string(), BusinessHoursSchema),
    webhook: z.object({ url: z.string(), secretSet: z.boolean(), allowPrivateAddresses: z.boolean() }),
    rules: HandoffRulesSchema,
    /** Members mailed on a handoff (ids); empty: every enabled agent, admin and owner. */
    onDuty: z.array(z.string()),
  })
  .meta({ id: 'HandoffSettings' });
export type HandoffSettings = z.infer<typeof HandoffSettingsSchema>;

/** PUT /api/config/handoff: any part; what is left out stays. */
export const HandoffSettingsUpdateSchema = body({
  hours: z.partialRecord(ChatVerticalSchema, BusinessHoursSchema.nullable()).optional(),
  webhook: z
    .object({
      url: z.union([z.literal(''), z.string().max(2000, 'The webhook URL must be at most 2,000 characters').url('The webhook URL must be an http(s) URL')]).optional(),
      /** Empty: keep the stored secret; null: remove it. */
      secret: z.string().max(200, 'The webhook secret must be at most 200 characters').nullable().optional(),
      /** Allow a webhook URL on a private or loopback address (an on-premises receiver). */
      allowPrivateAddresses: flag('Allow private addresses').optional(),
    })
    .optional(),
  rules: HandoffRulesSchema.partial().optional(),
  onDuty: z.array(text('A member', 36)).max(500).optional(),
}).meta({ id: 'HandoffSettingsUpdate' });
export type HandoffSettingsUpdate = z.output<typeof HandoffSettingsUpdateSchema>;

/**
 * Off until an administrator turns it on: a fresh install may have nobody to answer, and a
 * visitor handed over after three unanswerable questions would then wait for no one while the
 * assistant stays quiet. The visitor can always ask for a person.
 */
export const DEFAULT_HANDOFF_RULES = Object.freeze({ unansweredInARow: 0, reopenOnMessage: false });

// --- analytics -----------------------------------------------------------------------------------

/** Seconds: how many, the mean, the median and the 95th percentile (null when none). */
export const DurationSummarySchema = z
  .object({ count: z.number().int(), meanSeconds: z.number().nullable(), p50Seconds: z.number().nullable(), p95Seconds: z.number().nullable() })
  .meta({ id: 'DurationSummary' });
export type DurationSummary = z.infer<typeof DurationSummarySchema>;

/** GET /api/analytics/handoffs `data`: the handoffs asked for in the window. */
export const HandoffAnalyticsSchema = z
  .object({
    hours: z.number().int(),
    from: z.string(),
    to: z.string(),
    total: z.number().int(),
    /** Asked outside business hours (a message left for later). */
    outsideHours: z.number().int(),
    byVertical: z.array(
      z.object({
        vertical: z.string(),
        handoffs: z.number().int(),
        resolved: z.number().int(),
        firstHumanReply: DurationSummarySchema,
        resolve: DurationSummarySchema,
      }),
    ),
    byReason: z.array(z.object({ reason: z.string(), handoffs: z.number().int() })),
    /** From the request to the first member reply. */
    firstHumanReply: DurationSummarySchema,
    /** From the request to resolved. */
    resolve: DurationSummarySchema,
    /** The knowledge gaps (questions the knowledge had no answer to) that led to handoffs, most first. */
    gaps: z.array(z.object({ gapId: z.string().nullable(), vertical: z.string(), question: z.string(), handoffs: z.number().int() })),
  })
  .meta({ id: 'HandoffAnalytics' });
export type HandoffAnalytics = z.infer<typeof HandoffAnalyticsSchema>;
