/**
 * Token counting for when a provider does not report usage (some OpenAI-compatible servers, a
 * stream cut short) and for the offline responder.
 *
 * This is an ESTIMATE, not a tokenizer. It mimics how byte-pair encoders (cl100k/o200k-style)
 * split text closely enough for usage and cost figures, cheaply and deterministically, with no
 * vocabulary file:
 * - a word of Latin letters up to 8 characters is one token (with its leading space); longer words
 *   cost one more token per 4 further characters;
 * - letters of other alphabets (Cyrillic, Greek, Arabic, accented Latin...) encode less well:
 *   about one token per 3 characters;
 * - Chinese, Japanese and Korean characters are about one token each;
 * - digits go in groups of up to 3;
 * - each punctuation or symbol character is a token; a run of line breaks is one token; other
 *   whitespace rides along with the following word.
 * Expect it to land within roughly 10-20% of a real tokenizer on ordinary prose.
 */
import type { LlmMessage } from './llm.types';

/** Tokens a chat request spends per message on role and framing (OpenAI documents ~3-4). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens that prime the assistant's reply. */
export const REPLY_PRIMING_TOKENS = 3;

const PIECE =
  /(\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul})|([A-Za-z]+)|(\p{L}[\p{L}\p{M}]*)|(\p{N}+)|(\n+)|(\s+)|([^\s\p{L}\p{N}])/gu;

/** Estimated token count of a text. */
export function countTokens(text: string): number {
  if (!text) return 0;
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) {
    const [piece, cjk, latin, otherLetters, digits, newlines] = match;
    if (cjk) tokens += 1;
    else if (latin) tokens += latinWordTokens(latin.length);
    else if (otherLetters) tokens += Math.ceil(otherLetters.length / 3);
    else if (digits) tokens += Math.ceil(digits.length / 3);
    else if (newlines) tokens += 1;
    else if (piece.trim() === '') continue; // spaces merge into the next piece
    else tokens += 1; // punctuation or symbol
  }
  return tokens;
}

/** Estimated prompt tokens of a chat request: its messages plus per-message and reply framing. */
export function countMessageTokens(messages: readonly LlmMessage[]): number {
  if (messages.length === 0) return 0;
  const content = messages.reduce((sum, m) => sum + countTokens(m.content) + MESSAGE_OVERHEAD_TOKENS, 0);
  return content + REPLY_PRIMING_TOKENS;
}

function latinWordTokens(length: number): number {
  return length <= 8 ? 1 : 1 + Math.ceil((length - 8) / 4);
}
