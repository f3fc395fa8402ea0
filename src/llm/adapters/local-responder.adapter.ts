/**
 * The offline knowledge responder (provider `local`): a real answerer for installs without an LLM
 * key. It picks the sentences of the retrieved passages that best cover the question, quotes them
 * under the title of the knowledge item they come from, and says plainly when nothing matched.
 * It streams its answer in small word groups like a vendor model would.
 */
import { extractQueryTerms } from '../../retrieval/query-terms';
import { countMessageTokens, countTokens } from '../token-counter';
import { LlmChunk, LlmError, LlmPassage, LlmProvider, LlmRequest } from '../llm.types';

const MAX_SENTENCES = 4;
const MAX_ITEMS = 2;
const WORDS_PER_DELTA = 3;

/** Localised lead-ins; the knowledge itself stays in the language it was written in. */
const PHRASES: Record<string, { found: string; none: string; note?: string }> = {
  English: {
    found: "Here's what I found in our knowledge base:",
    none: "I couldn't find anything in our knowledge base that answers this. Could you rephrase the question or add a detail? If it's urgent, please contact a member of our team.",
  },
  Spanish: {
    found: 'Esto es lo que encontré en nuestra base de conocimiento:',
    none: 'No encontré nada en nuestra base de conocimiento que responda a esto. ¿Puede reformular la pregunta o añadir un detalle?',
    note: '(La información de referencia está en inglés.)',
  },
  French: {
    found: 'Voici ce que j’ai trouvé dans notre base de connaissances :',
    none: 'Je n’ai rien trouvé dans notre base de connaissances qui réponde à cette question. Pouvez-vous la reformuler ou préciser un détail ?',
    note: '(Les informations de référence sont en anglais.)',
  },
  German: {
    found: 'Das habe ich in unserer Wissensdatenbank gefunden:',
    none: 'Ich habe in unserer Wissensdatenbank nichts gefunden, das diese Frage beantwortet. Können Sie sie umformulieren oder ein Detail ergänzen?',
    note: '(Die Referenzinformationen sind auf Englisch.)',
  },
  Portuguese: {
    found: 'Aqui está o que encontrei na nossa base de conhecimento:',
    none: 'Não encontrei nada na nossa base de conhecimento que responda a isto. Pode reformular a pergunta ou acrescentar um detalhe?',
    note: '(As informações de referência estão em inglês.)',
  },
  Italian: {
    found: 'Ecco cosa ho trovato nella nostra base di conoscenza:',
    none: 'Non ho trovato nulla nella nostra base di conoscenza che risponda a questa domanda. Può riformularla o aggiungere un dettaglio?',
    note: '(Le informazioni di riferimento sono in inglese.)',
  },
};

function phrasesFor(language: string) {
  return PHRASES[language] ?? PHRASES.English;
}

/** Crude stem so "refunds", "refunded" and "refund" meet; the search index does the real stemming. */
function stem(word: string): string {
  let w = word.toLowerCase();
  for (const suffix of ['ations', 'ation', 'ments', 'ment', 'ings', 'ing', 'ied', 'ies', 'ed', 'es', 's', 'ly']) {
    if (w.length - suffix.length >= 4 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  return w;
}

function splitSentences(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/(?<=[.!?])\s+|\n{2,}|\n(?=[-*•]|\d+\.)/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

interface ScoredSentence {
  text: string;
  index: number;
  hits: number;
}

/** The sentences of one passage that mention the question's terms, best first, at most `max`. */
function bestSentences(passage: LlmPassage, stems: Set<string>, max: number): ScoredSentence[] {
  const scored = splitSentences(passage.text).map((text, index) => {
    const words = new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
    let hits = 0;
    for (const s of stems) if (words.has(s)) hits += 1;
    return { text, index, hits };
  });
  const relevant = scored.filter((s) => s.hits > 0).sort((a, b) => b.hits - a.hits || a.index - b.index);
  const chosen = (relevant.length > 0 ? relevant : scored.slice(0, 2)).slice(0, max);
  return chosen.sort((a, b) => a.index - b.index);
}

/** Builds the whole answer text from the grounding; exported for unit tests. */
export function composeLocalAnswer(request: LlmRequest): string {
  const grounding = request.grounding;
  const language = grounding?.language ?? 'English';
  const phrases = phrasesFor(language);
  const passages = grounding?.passages ?? [];
  if (passages.length === 0) return phrases.none;

  const stems = new Set(extractQueryTerms(grounding?.query ?? '').map(stem));
  const byItem = new Map<string, { title: string; passages: LlmPassage[] }>();
  for (const p of passages) {
    const entry = byItem.get(p.itemId) ?? { title: p.title, passages: [] };
    entry.passages.push(p);
    byItem.set(p.itemId, entry);
  }
  const sections: string[] = [];
  let budget = MAX_SENTENCES;
  for (const { title, passages: itemPassages } of [...byItem.values()].slice(0, MAX_ITEMS)) {
    if (budget <= 0) break;
    const sentences = itemPassages
      .flatMap((p) => bestSentences(p, stems, budget))
      .filter((s, i, all) => all.findIndex((o) => o.text === s.text) === i)
      .slice(0, budget);
    if (sentences.length === 0) continue;
    budget -= sentences.length;
    sections.push(`**${title}**\n${sentences.map((s) => s.text).join(' ')}`);
  }
  if (sections.length === 0) return phrases.none;
  const lead = phrases.note ? `${phrases.found} ${phrases.note}` : phrases.found;
  return `${lead}\n\n${sections.join('\n\n')}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new LlmError('cancelled', 'The request was cancelled.'));
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmError('cancelled', 'The request was cancelled.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export class LocalResponderAdapter implements LlmProvider {
  readonly provider = 'local' as const;

  /** @param delayMs pause between word groups, so the reply streams at a readable pace. */
  constructor(private readonly delayMs = 12) {}

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    if (signal.aborted) throw new LlmError('cancelled', 'The request was cancelled.');
    const answer = composeLocalAnswer(request);
    const pieces = answer.match(/\S+\s*/g) ?? [answer];
    for (let i = 0; i < pieces.length; i += WORDS_PER_DELTA) {
      if (i > 0 && this.delayMs > 0) await sleep(this.delayMs, signal);
      else if (signal.aborted) throw new LlmError('cancelled', 'The request was cancelled.');
      yield { type: 'delta', text: pieces.slice(i, i + WORDS_PER_DELTA).join('') };
    }
    yield {
      type: 'usage',
      usage: { promptTokens: countMessageTokens(request.messages), completionTokens: countTokens(answer), reported: false },
    };
  }
}
