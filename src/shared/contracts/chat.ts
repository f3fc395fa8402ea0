/**
 * The chat request and reply, shared by POST /interact, its SSE variant and the socket's
 * `chat:send` / `chat:done` events.
 */
import { z } from 'zod';
import { HandoffStateSchema } from './handoff-state';
import { findSubRegion, getJurisdiction, requiresSubRegion } from '../catalog/jurisdictions';
import { getLanguageByCode, getLanguageByName } from '../catalog/languages';
import { PROVIDER_IDS, type ProviderId } from '../catalog/providers';
import { ENABLED_VERTICAL_IDS, VERTICALS, type EnabledVerticalId } from '../catalog/verticals';
import type { SuccessEnvelope } from './http';
import { coded, codedIssue, flag, optional, text, timestamp, withArticle } from './rules';

import { MAX_HISTORY_ARRAY, MAX_HISTORY_ENTRY_CHARS, MAX_QUERY_CHARS } from './chat-limits';

export { MAX_HISTORY_ARRAY, MAX_HISTORY_ENTRY_CHARS, MAX_QUERY_CHARS } from './chat-limits';

/** A readonly list as the non-empty tuple z.enum wants. */
export function tupleOf<T extends string>(values: readonly T[]): [T, ...T[]] {
  return values as unknown as [T, ...T[]];
}

const QUERY_EMPTY = coded('query_empty', 'Please type a question.');
const QUERY_TOO_LONG = coded('query_too_long', `The question can be at most ${MAX_QUERY_CHARS.toLocaleString('en-US')} characters long.`);
export const UNKNOWN_VERTICAL = coded('unknown_vertical', `Unknown vertical. Choose one of ${ENABLED_VERTICAL_IDS.join(', ')}.`);
const NOT_YET = new Map(VERTICALS.filter((v) => !v.enabled).map((v) => [v.id as string, coded('vertical_disabled', `${v.name} is not available yet.`)]));

export const QuerySchema = z
  .string({ error: (issue) => (issue.input === undefined || issue.input === null ? QUERY_EMPTY : 'The question must be text.') })
  .max(MAX_QUERY_CHARS, QUERY_TOO_LONG)
  .trim()
  .min(1, QUERY_EMPTY);

/** A vertical visitors can chat in (whether it is switched on now is the server's business). */
export const ChatVerticalSchema = z.enum(tupleOf<EnabledVerticalId>(ENABLED_VERTICAL_IDS), {
  error: (issue) => {
    if (issue.input === undefined || issue.input === null) return 'Vertical is required';
    if (typeof issue.input !== 'string') return 'Vertical must be text';
    return NOT_YET.get(issue.input) ?? UNKNOWN_VERTICAL;
  },
});

function isOfferedLanguage(value: string): boolean {
  return getLanguageByName(value) !== undefined || getLanguageByCode(value.toLowerCase()) !== undefined;
}

/** A language of the dropdown, by English name ('Spanish') or code ('es'). */
function language(label: string) {
  return optional(
    text(label, 40).refine(
      (value) => value === '' || isOfferedLanguage(value),
      codedIssue('unknown_language', (input) => `${String(input).slice(0, 40)} is not a language we offer.`),
    ),
  );
}

/** One prior message of the conversation, oldest first. */
export const ChatHistoryEntrySchema = z.object(
  {
    type: z.enum(['user', 'agent'], { error: 'Each earlier message must be from the user or the agent' }),
    content: z
      .string({ error: 'Each earlier message must be text' })
      .max(MAX_HISTORY_ENTRY_CHARS, `Each earlier message can be at most ${MAX_HISTORY_ENTRY_CHARS.toLocaleString('en-US')} characters long`),
    timestamp: timestamp('The time of an earlier message').optional(),
  },
  { error: 'Each earlier message must be an object' },
);
export type ChatHistoryEntry = z.input<typeof ChatHistoryEntrySchema>;

export const InteractContextSchema = z.object(
  {
    preferredLanguage: language('The reply language'),
    /** true when replying in English, so no translation step is needed. */
    skipTranslation: optional(flag('Skip translation')),
    /** Legal: display name of the chosen jurisdiction. */
    jurisdictionName: optional(text('The jurisdiction name', 200)),
    /** Legal: the chosen jurisdiction's legal system. */
    legalSystem: optional(text('The legal system', 200)),
  },
  { error: 'The context must be an object' },
);
export type InteractContext = z.input<typeof InteractContextSchema>;

const interactShape = {
  query: QuerySchema,
  vertical: ChatVerticalSchema,
  userId: optional(text('The user id', 200)),
  conversationHistory: optional(
    z
      .array(ChatHistoryEntrySchema, { error: 'The conversation history must be a list of messages' })
      .max(MAX_HISTORY_ARRAY, `The conversation history can hold at most ${MAX_HISTORY_ARRAY} messages`),
  ),
  /** English name of the reply language, e.g. 'Spanish' (or its code). */
  preferredLanguage: language('The reply language'),
  detectedLanguage: language('The detected language'),
  /** Legal: jurisdiction code, e.g. 'US'. */
  jurisdiction: optional(text('The jurisdiction', 10)),
  /** Legal: sub-region, e.g. 'California'. */
  subJurisdiction: optional(text('The sub-region', 100)),
  context: optional(InteractContextSchema),
};

/** Legal questions name a known jurisdiction, and a sub-region where laws differ inside it. */
function legalRules(body: { vertical: string; jurisdiction?: string; subJurisdiction?: string }, ctx: z.RefinementCtx): void {
  if (body.vertical !== 'legal') return;
  const fail = (code: 'jurisdiction_required' | 'unknown_jurisdiction', message: string, path: string) =>
    ctx.addIssue({ code: 'custom', message, path: [path], params: { code }, input: body });
  if (!body.jurisdiction) return fail('jurisdiction_required', 'Please choose a jurisdiction before asking a legal question.', 'jurisdiction');
  const jurisdiction = getJurisdiction(body.jurisdiction);
  if (!jurisdiction) return fail('unknown_jurisdiction', `Unknown jurisdiction: ${body.jurisdiction}.`, 'jurisdiction');
  const sub = body.subJurisdiction;
  if (sub) {
    if (!findSubRegion(jurisdiction, sub)) {
      fail('unknown_jurisdiction', `${sub} is not ${withArticle((jurisdiction.subRegionLabel ?? 'region').toLowerCase())} of ${jurisdiction.name}.`, 'subJurisdiction');
    }
  } else if (requiresSubRegion(jurisdiction.code)) {
    fail('jurisdiction_required', `Please choose ${withArticle((jurisdiction.subRegionLabel ?? 'region').toLowerCase())} of ${jurisdiction.name}.`, 'subJurisdiction');
  }
}

/** POST /interact body. Unknown fields are ignored. */
export const InteractRequestSchema = z
  .object(interactShape, { error: 'Send the question as a JSON object.' })
  .superRefine(legalRules)
  .meta({ id: 'InteractRequest' });
export type InteractRequest = z.input<typeof InteractRequestSchema>;
export type ParsedInteractRequest = z.output<typeof InteractRequestSchema>;

/** The socket's request id: client-chosen, short, printable; it tags every reply frame. */
export const RequestIdSchema = z
  .string({ error: 'The request id must be text' })
  .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'The request id must be 1 to 100 letters, digits or . _ : -');

/** `chat:send` payload: the /interact body plus the client-chosen `requestId`. */
export const ChatSendPayloadSchema = z
  .object({ requestId: RequestIdSchema, ...interactShape }, { error: 'Send the question as an object.' })
  .superRefine(legalRules)
  .meta({ id: 'ChatSendPayload' });
export type ChatSendPayload = z.input<typeof ChatSendPayloadSchema>;
export type ParsedChatSendPayload = z.output<typeof ChatSendPayloadSchema>;

// --- the reply ----------------------------------------------------------------------------------

/** A knowledge item the answer drew on. */
export const ReplySourceSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** Retrieval score relative to the best source (1); sources are listed best first. */
  score: z.number(),
  /**
   * The passage of the item that matched best, as indexed: the item's words in order with the white
   * space normalised (a paragraph break stays a blank line), so it is found in the item's content
   * (or one of its text attachments) by comparing everything but white space. The chat page opens
   * the item at this passage. Optional: older replies and servers have none.
   */
  passage: z.string().optional(),
  /** The web page the item was imported from: the chat links the source to it. */
  url: z.string().optional(),
});
export type ReplySource = z.infer<typeof ReplySourceSchema>;

export const ReplyUsageSchema = z.object({
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
  provider: z.enum(tupleOf<ProviderId>(PROVIDER_IDS)),
  model: z.string(),
});
export type ReplyUsage = z.infer<typeof ReplyUsageSchema>;

export const ReplyOptimizationSchema = z.object({
  /** The reply came from a cache rather than a fresh model call. */
  cacheHit: z.boolean().optional(),
  /** Knowledge passages placed in the prompt. */
  passages: z.number().int(),
  /** Streaming frames sent after coalescing deltas. */
  coalescedFrames: z.number().int().optional(),
  /**
   * The question was rewritten into the knowledge base's language for the search (an LLM agent
   * and a question in another language): how it went and the time it added, ms. A rewrite that
   * failed or was late leaves the original question (searched word by word across languages).
   */
  questionRewrite: z.object({ outcome: z.enum(['rewritten', 'timeout', 'failed', 'unusable']), ms: z.number().int() }).optional(),
  /** How the knowledge was searched: BM25 alone, or fused with embeddings ('hybrid'); 'lexical-fallback' when the embedding call failed or was late. */
  retrieval: z.enum(['lexical', 'hybrid', 'lexical-fallback']).optional(),
});
export type ReplyOptimization = z.infer<typeof ReplyOptimizationSchema>;

/** The `data` of a successful /interact and of `chat:done`. */
export const ReplyDataSchema = z
  .object({
    response: z.string(),
    /** Milliseconds from accepting the request to the end of the reply. */
    executionTime: z.number(),
    /**
     * 0-1: the estimated probability that the first source answers the question (calibrated on the
     * retrieval evaluation, see src/retrieval/relevance.ts); low when nothing matched.
     */
    confidence: z.number().min(0).max(1),
    vertical: z.enum(tupleOf(VERTICALS.map((v) => v.id))),
    agentsInvolved: z.array(z.string()),
    a2aCompliant: z.boolean(),
    optimization: ReplyOptimizationSchema,
    /** Only the knowledge items the reply used (those that cleared the relevance floor), best first. */
    sources: z.array(ReplySourceSchema),
    /**
     * Whether the reply was answered from the knowledge base: false when nothing cleared the
     * relevance floor (the reply then says so and suggests next steps). Optional so replies built
     * elsewhere (tests, older servers) stay valid.
     */
    answered: z.boolean().optional(),
    /**
     * When not answered: another vertical whose knowledge matches the question ("This looks like
     * an Employee Support question"); the chat page offers to ask it there.
     */
    suggestedVertical: z.enum(tupleOf(VERTICALS.map((v) => v.id))).optional(),
    /**
     * Legal replies: true when every source is general information, none specific to the
     * visitor's jurisdiction or sub-region (the reply says so); absent otherwise.
     */
    generalOnly: z.boolean().optional(),
    /**
     * The reply's id (its usage event's id): what POST /api/feedback rates. Always sent by the
     * server; optional so replies built elsewhere (tests, older servers) stay valid.
     */
    replyId: z.string().optional(),
    /** The visitor's conversation the exchange was saved in (absent from servers that keep none). */
    conversationId: z.string().optional(),
    /**
     * The conversation's handoff state after this message. `waiting` or `open`: a person was asked
     * for (or answers), so the assistant did not reply (`response` is empty) and the question waits
     * in the inbox; the person's replies arrive as `chat:human`.
     */
    handoff: HandoffStateSchema.optional(),
    usage: ReplyUsageSchema,
  })
  .meta({ id: 'ReplyData' });
export type ReplyData = z.infer<typeof ReplyDataSchema>;

export type InteractSuccess = SuccessEnvelope<ReplyData>;

