/**
 * The chat request's limits as plain numbers, apart from the zod schemas in chat.ts: the chat page
 * trims what it sends with them without loading zod (chat.ts re-exports them).
 */
export const MAX_QUERY_CHARS = 4000;
/** Conversation history the server reads: at most this many entries (the prompt uses the newest). */
export const MAX_HISTORY_ARRAY = 500;
/** One history entry; the prompt keeps at most 4,000 characters of each. */
export const MAX_HISTORY_ENTRY_CHARS = 100_000;
