/**
 * Question rewriting for retrieval: with an LLM agent configured, a question that is not in the
 * knowledge base's language is rewritten into it by one short call before the search, so BM25
 * (and the embeddings, when on) meet the knowledge in its own words. The reply is still in the
 * visitor's language (the prompt says so); only the search uses the rewrite.
 *
 * Skipped when the question is already in the knowledge base's language (detectLanguage; a
 * question it cannot place counts as the visitor's chosen language). Bounded by a time limit:
 * a rewrite that fails, is late or comes back unusable leaves the original question, which the
 * offline cross-language path (crosslingual/translate.ts, inside analyseQuery) searches as before.
 */
import type { LlmMessage, LlmProvider, LlmUsage } from '../llm/llm.types';
import { LlmError } from '../llm/llm.types';
import { countMessageTokens, countTokens } from '../llm/token-counter';
import { getLanguageByCode } from '../shared/catalog/languages';
import { detectLanguage, LATIN_LANGUAGES } from './language';

/** The language the knowledge base is written in (the sample knowledge, the lexicon's target). */
export const KNOWLEDGE_LANGUAGE = { code: 'en', name: 'English' } as const;

/** Most tokens a rewrite may produce: a question, not an essay. */
export const REWRITE_MAX_TOKENS = 120;
/** A rewrite longer than this many times the question (plus a margin) is not a rewrite. */
const MAX_GROWTH = 4;

/**
 * The language (code) of a question that should be rewritten before the search; undefined when it
 * is already in the knowledge base's language. Function-word detection of the Latin-script
 * languages is weak on short questions ("What should an employment contract include?" scores as
 * German through "an"), so a Latin-script question is rewritten only when the visitor's chosen
 * language is not the knowledge base's either; a question in another script always is; one the
 * detector cannot place is taken to be in the visitor's chosen language.
 */
export function rewriteLanguageOf(question: string, visitorLanguage: string): string | undefined {
  const detected = detectLanguage(question);
  if (detected === KNOWLEDGE_LANGUAGE.code) return undefined;
  if (detected === undefined) return visitorLanguage === KNOWLEDGE_LANGUAGE.code ? undefined : visitorLanguage;
  if (LATIN_LANGUAGES.includes(detected) && visitorLanguage === KNOWLEDGE_LANGUAGE.code) return undefined;
  return detected;
}

/** The messages of a rewrite request: a fixed instruction and the question as the user's text. */
export function rewriteMessages(question: string, fromLanguage: string): LlmMessage[] {
  const from = getLanguageByCode(fromLanguage)?.name ?? 'another language';
  return [
    {
      role: 'system',
      content:
        `Rewrite the user's question, written in ${from}, into ${KNOWLEDGE_LANGUAGE.name} for a search of a knowledge base written in ${KNOWLEDGE_LANGUAGE.name}. ` +
        'Translate it faithfully and add nothing; keep product names, commands, code and numbers as written. ' +
        `Answer with the ${KNOWLEDGE_LANGUAGE.name} question only, on one line. Never answer the question itself.`,
    },
    { role: 'user', content: question },
  ];
}

export type RewriteOutcome = 'rewritten' | 'timeout' | 'failed' | 'unusable';

export interface RewriteResult {
  /** What to search for: the rewrite, or the original question when there is none. */
  query: string;
  outcome: RewriteOutcome;
  /** Time the rewrite added before the search, ms. */
  ms: number;
  promptTokens: number;
  completionTokens: number;
  /** The failure, when the outcome is not 'rewritten' ('unusable' included). */
  error?: { code: string; message: string };
}

export interface RewriteOptions {
  model: string;
  /** The question's language (rewriteLanguageOf). */
  fromLanguage: string;
  timeoutMs: number;
  /** The chat's own signal (a cancel): stops the rewrite too. */
  signal?: AbortSignal;
}

/** The rewrite as one line of plain text, or undefined when the model's answer cannot be one. */
function cleanRewrite(text: string, question: string): string | undefined {
  const line = text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return undefined;
  const unquoted = line.replace(/^["'“”«»„]+|["'“”«»„]+$/g, '').trim();
  if (unquoted === '' || unquoted.length > question.length * MAX_GROWTH + 80) return undefined;
  return unquoted;
}

/**
 * One short, non-streamed use of the agent's provider: collects the deltas of a rewrite request
 * within `timeoutMs`. Never throws: a failure leaves the original question (see RewriteResult).
 */
export async function rewriteQuestion(provider: LlmProvider, question: string, options: RewriteOptions): Promise<RewriteResult> {
  const started = performance.now();
  const messages = rewriteMessages(question, options.fromLanguage);
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.timeoutMs);
  const onCancel = () => abort.abort();
  options.signal?.addEventListener('abort', onCancel, { once: true });
  let text = '';
  let usage: LlmUsage | undefined;
  const done = (outcome: RewriteOutcome, query: string, error?: { code: string; message: string }): RewriteResult => {
    const anyOutput = text.length > 0 || usage !== undefined;
    return {
      query,
      outcome,
      ms: Math.round(performance.now() - started),
      promptTokens: usage?.promptTokens ?? (anyOutput ? countMessageTokens(messages) : 0),
      completionTokens: usage?.completionTokens ?? (anyOutput ? countTokens(text) : 0),
      ...(error ? { error } : {}),
    };
  };
  try {
    for await (const chunk of provider.stream({ model: options.model, messages, temperature: 0, maxTokens: REWRITE_MAX_TOKENS }, abort.signal)) {
      if (abort.signal.aborted) break;
      if (chunk.type === 'delta') text += chunk.text;
      else if (chunk.type === 'usage') usage = chunk.usage;
    }
    if (timedOut) return done('timeout', question, { code: 'rewrite_timeout', message: `The question rewrite took longer than ${options.timeoutMs} ms` });
    if (abort.signal.aborted) return done('failed', question, { code: 'cancelled', message: 'The request was cancelled.' });
    const rewritten = cleanRewrite(text, question);
    if (!rewritten) return done('unusable', question, { code: 'bad_response', message: 'The question rewrite was empty or too long' });
    return done('rewritten', rewritten);
  } catch (error) {
    if (timedOut) return done('timeout', question, { code: 'rewrite_timeout', message: `The question rewrite took longer than ${options.timeoutMs} ms` });
    const message = error instanceof LlmError ? error.message : 'The question rewrite failed';
    return done('failed', question, { code: error instanceof LlmError ? error.kind : 'provider_error', message });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}
