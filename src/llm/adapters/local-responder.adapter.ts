/**
 * The offline knowledge responder (provider `local`): a real answerer for installs without an LLM
 * key. It picks the sentences of the retrieved passages that best cover the question, quotes them
 * as Markdown under the title of the knowledge item they come from, on its own line (saying in
 * which language they are written when it is not the visitor's). Knowledge is Markdown: a table, a
 * list or a code block is quoted whole (a long table: its header and the matching rows) under the
 * heading it sits below, never cut into sentences; each passage is quoted apart from the others,
 * so an attachment's text (its own passage, named by the attachment) is never run into the
 * item's. It says plainly when nothing matched, with the next steps:
 * rephrasing, and the vertical whose knowledge does match; a greeting, thanks or goodbye alone
 * is answered in kind (small-talk.ts). Its own sentences are in the 11 offered languages. It
 * streams its answer in small word groups like a vendor model would.
 */
import { detectLanguage } from '../../retrieval/language';
import { extractQueryTerms } from '../../retrieval/query-terms';
import { getLanguageByCode, getLanguageByName } from '../../shared/catalog/languages';
import { countMessageTokens, countTokens } from '../token-counter';
import { LlmChunk, LlmError, LlmPassage, LlmProvider, LlmRequest } from '../llm.types';
import { SMALL_TALK_REPLIES, smallTalkLanguage, smallTalkOf } from './small-talk';

const MAX_SENTENCES = 5;
/**
 * Every item the reply cites is quoted (the chat pipeline cites at most 4: `sources` lists only
 * what the reply used), each with at least one sentence.
 */
const MAX_ITEMS = 4;
const WORDS_PER_DELTA = 3;

/** The responder's own sentences in one language; the knowledge itself is quoted as written. */
interface Phrases {
  found: string;
  /** The line above quoted passages written in another language than the reply's. */
  quotedIn: (languageName: string) => string;
  none: string;
  rephrase: string;
  /** The vertical whose knowledge matches (its tab label, as the chat page shows it). */
  suggest: (vertical: string) => string;
  contact: string;
  /** A legal answer from general items only: nothing specific to the visitor's jurisdiction (named in English). */
  generalOnly: (where: string) => string;
}

/** By language code: every offered language (src/shared/catalog/languages.ts). */
const PHRASES: Readonly<Record<string, Phrases>> = {
  en: {
    found: "Here's what I found in our knowledge base:",
    quotedIn: (name) => `(The passages below are quoted as written, in ${name}.)`,
    none: "I couldn't find anything in our knowledge base that answers this.",
    rephrase: 'Could you rephrase the question or add a detail?',
    suggest: (v) => `This looks like ${/^[aeiou]/i.test(v) ? 'an' : 'a'} ${v} question: you can ask it in the ${v} tab.`,
    contact: "If it's urgent, please contact a member of our team.",
    generalOnly: (where) => `I found only general information, nothing specific to ${where}.`,
  },
  es: {
    found: 'Esto es lo que encontré en nuestra base de conocimiento:',
    quotedIn: (name) => `(Los fragmentos siguientes se citan tal como están escritos, en ${name}.)`,
    none: 'No encontré nada en nuestra base de conocimiento que responda a esto.',
    rephrase: '¿Podría reformular la pregunta o añadir algún detalle?',
    suggest: (v) => `Parece una pregunta para ${v}: puede hacerla en la pestaña ${v}.`,
    contact: 'Si es urgente, póngase en contacto con un miembro de nuestro equipo.',
    generalOnly: (where) => `Solo encontré información general, nada específico de ${where}.`,
  },
  fr: {
    found: 'Voici ce que j’ai trouvé dans notre base de connaissances :',
    quotedIn: (name) => `(Les extraits ci-dessous sont cités tels quels, en ${name}.)`,
    none: 'Je n’ai rien trouvé dans notre base de connaissances qui réponde à cette question.',
    rephrase: 'Pourriez-vous reformuler la question ou ajouter une précision ?',
    suggest: (v) => `Cette question semble relever de ${v} : vous pouvez la poser dans l’onglet ${v}.`,
    contact: 'En cas d’urgence, contactez un membre de notre équipe.',
    generalOnly: (where) => `Je n’ai trouvé que des informations générales, rien de spécifique à ${where}.`,
  },
  de: {
    found: 'Das habe ich in unserer Wissensdatenbank gefunden:',
    quotedIn: (name) => `(Die folgenden Auszüge werden im Original zitiert, auf ${name}.)`,
    none: 'Ich habe in unserer Wissensdatenbank nichts gefunden, das diese Frage beantwortet.',
    rephrase: 'Könnten Sie die Frage umformulieren oder ein Detail ergänzen?',
    suggest: (v) => `Das scheint eine Frage für ${v} zu sein: Sie können sie im Tab „${v}“ stellen.`,
    contact: 'Wenn es dringend ist, wenden Sie sich bitte an ein Mitglied unseres Teams.',
    generalOnly: (where) => `Ich habe nur allgemeine Informationen gefunden, nichts Spezifisches für ${where}.`,
  },
  zh: {
    found: '以下是我在知识库中找到的内容：',
    quotedIn: (name) => `（以下段落按原文引用，语言为${name}。）`,
    none: '我在知识库中没有找到能回答这个问题的内容。',
    rephrase: '您可以换一种说法，或补充一些细节吗？',
    suggest: (v) => `这似乎是 ${v} 方面的问题：您可以在“${v}”标签页中提问。`,
    contact: '如有紧急情况，请联系我们的团队成员。',
    generalOnly: (where) => `我只找到了一般性信息，没有专门针对${where}的内容。`,
  },
  ja: {
    found: 'ナレッジベースで見つかった情報は次のとおりです：',
    quotedIn: (name) => `（以下の文章は原文のまま引用しています。言語：${name}）`,
    none: 'ナレッジベースには、このご質問に答える情報が見つかりませんでした。',
    rephrase: '質問を言い換えるか、詳しい情報を加えていただけますか？',
    suggest: (v) => `これは ${v} に関するご質問のようです。「${v}」タブで質問してください。`,
    contact: 'お急ぎの場合は、担当チームまでお問い合わせください。',
    generalOnly: (where) => `一般的な情報しか見つからず、${where}に特有の情報はありませんでした。`,
  },
  ko: {
    found: '지식 베이스에서 찾은 내용은 다음과 같습니다:',
    quotedIn: (name) => `(아래 내용은 원문 그대로 인용한 것이며, ${name}로 작성되어 있습니다.)`,
    none: '지식 베이스에서 이 질문에 대한 답을 찾지 못했습니다.',
    rephrase: '질문을 다르게 표현하거나 자세한 내용을 덧붙여 주시겠어요?',
    suggest: (v) => `${v} 관련 질문인 것 같습니다. "${v}" 탭에서 질문해 주세요.`,
    contact: '급한 경우에는 저희 팀원에게 문의해 주세요.',
    generalOnly: (where) => `일반적인 정보만 찾았으며, ${where}에 해당하는 구체적인 정보는 없습니다.`,
  },
  hi: {
    found: 'हमारे ज्ञानकोष में मुझे यह जानकारी मिली:',
    quotedIn: (name) => `(नीचे दिए गए अंश मूल रूप में उद्धृत हैं, भाषा: ${name}।)`,
    none: 'मुझे हमारे ज्ञानकोष में ऐसा कुछ नहीं मिला जो इस प्रश्न का उत्तर देता हो।',
    rephrase: 'क्या आप प्रश्न को दूसरे शब्दों में पूछ सकते हैं या कोई विवरण जोड़ सकते हैं?',
    suggest: (v) => `यह ${v} से जुड़ा प्रश्न लगता है: आप इसे "${v}" टैब में पूछ सकते हैं।`,
    contact: 'यदि मामला अत्यावश्यक है, तो कृपया हमारी टीम के किसी सदस्य से संपर्क करें।',
    generalOnly: (where) => `मुझे केवल सामान्य जानकारी मिली, ${where} के लिए विशेष रूप से कुछ नहीं।`,
  },
  pt: {
    found: 'Aqui está o que encontrei na nossa base de conhecimento:',
    quotedIn: (name) => `(Os trechos abaixo são citados como foram escritos, em ${name}.)`,
    none: 'Não encontrei nada na nossa base de conhecimento que responda a isso.',
    rephrase: 'Você pode reformular a pergunta ou acrescentar algum detalhe?',
    suggest: (v) => `Parece uma pergunta para ${v}: você pode fazê-la na aba ${v}.`,
    contact: 'Se for urgente, entre em contato com um membro da nossa equipe.',
    generalOnly: (where) => `Só encontrei informações gerais, nada específico para ${where}.`,
  },
  it: {
    found: 'Ecco cosa ho trovato nella nostra base di conoscenza:',
    quotedIn: (name) => `(I passaggi seguenti sono citati così come sono scritti, in ${name}.)`,
    none: 'Non ho trovato nulla nella nostra base di conoscenza che risponda a questa domanda.',
    rephrase: 'Può riformulare la domanda o aggiungere qualche dettaglio?',
    suggest: (v) => `Sembra una domanda per ${v}: può porla nella scheda ${v}.`,
    contact: 'Se è urgente, contatti un membro del nostro team.',
    generalOnly: (where) => `Ho trovato solo informazioni generali, niente di specifico per ${where}.`,
  },
  ar: {
    found: 'إليك ما وجدته في قاعدة المعرفة لدينا:',
    quotedIn: (name) => `(المقاطع التالية مقتبسة كما كُتبت، باللغة ${name}.)`,
    none: 'لم أجد في قاعدة المعرفة لدينا ما يجيب عن هذا السؤال.',
    rephrase: 'هل يمكنك إعادة صياغة السؤال أو إضافة بعض التفاصيل؟',
    suggest: (v) => `يبدو أن هذا سؤال يخص ${v}: يمكنك طرحه في تبويب "${v}".`,
    contact: 'إذا كان الأمر عاجلاً، يُرجى التواصل مع أحد أعضاء فريقنا.',
    generalOnly: (where) => `لم أجد سوى معلومات عامة، ولا شيء خاص بـ${where}.`,
  },
};

/** The reply language's code (grounding.language is its English name, e.g. 'Spanish'); English when unknown. */
function languageCodeOf(name: string | undefined): string {
  const code = name ? (getLanguageByName(name)?.code ?? getLanguageByCode(name)?.code) : undefined;
  return code && PHRASES[code] ? code : 'en';
}

/** A language's name in another language ('inglés' for en in es), from the runtime's ICU data. */
function languageName(code: string, inLanguage: string): string {
  try {
    return new Intl.DisplayNames([inLanguage], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The "not found" reply: says so, asks to rephrase, names the vertical whose knowledge matches, and who to contact. */
export function notFoundReply(language: string | undefined, suggestedVertical?: string): string {
  const phrases = PHRASES[languageCodeOf(language)];
  const parts = [`${phrases.none} ${phrases.rephrase}`];
  if (suggestedVertical) parts.push(phrases.suggest(suggestedVertical));
  parts.push(phrases.contact);
  return parts.join('\n\n');
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
  /** The Markdown block it belongs to: sentences of one block are joined by a space, blocks by a blank line. */
  block: number;
  /** The heading (or heading path line) the block sits under, quoted above it. */
  context?: string;
  /** A table, list or code block (quoted whole). */
  structured?: boolean;
}

/** A Markdown block of a passage. */
interface Block {
  kind: 'text' | 'table' | 'list' | 'code' | 'heading' | 'path';
  lines: string[];
}

const TABLE_LINE = /^\s*\|.*\|\s*$/;
const LIST_LINE = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\S/;
const FENCE_LINE = /^\s{0,3}(```+|~~~+)/;
const HEADING_LINE = /^#{1,6}\s+\S/;
const PATH_LINE = /^_[^_].*_$/;
/** A table longer than this is quoted as its header and the rows that match. */
const TABLE_ROWS_QUOTED = 15;

/** The passage's blocks: headings, tables, lists (with their continuation lines), code, paragraphs. */
function blocksOf(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (line.trim() === '') continue;
    const fence = FENCE_LINE.exec(line);
    if (fence) {
      const block = [line];
      for (i += 1; i < lines.length; i += 1) {
        block.push(lines[i]);
        if (lines[i].trim().startsWith(fence[1])) break;
      }
      if (!FENCE_LINE.test(block[block.length - 1]) || block.length === 1) block.push(fence[1]);
      blocks.push({ kind: 'code', lines: block });
      continue;
    }
    if (HEADING_LINE.test(line)) {
      blocks.push({ kind: 'heading', lines: [line.trim()] });
      continue;
    }
    if (blocks.length === 0 && PATH_LINE.test(line.trim())) {
      blocks.push({ kind: 'path', lines: [line.trim()] });
      continue;
    }
    const kind: Block['kind'] = TABLE_LINE.test(line) ? 'table' : LIST_LINE.test(line) ? 'list' : 'text';
    const last = blocks[blocks.length - 1];
    const continues = last && last.kind === kind && kind !== 'text' && lines[i - 1]?.trim() !== '';
    const listContinuation = last?.kind === 'list' && kind === 'text' && /^\s{2,}\S/.test(line) && lines[i - 1]?.trim() !== '';
    if (continues || listContinuation) last.lines.push(line);
    else if (last && last.kind === 'text' && kind === 'text' && lines[i - 1]?.trim() !== '') last.lines.push(line);
    else blocks.push({ kind, lines: [line] });
  }
  return blocks;
}

const wordsOf = (text: string) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
const hitsIn = (text: string, stems: Set<string>) => {
  const words = wordsOf(text);
  let hits = 0;
  for (const s of stems) if (words.has(s)) hits += 1;
  return hits;
};

/** A long table: its header, separator and the rows that match (the first rows when none does). */
function quotedTable(lines: string[], stems: Set<string>): string {
  if (lines.length <= TABLE_ROWS_QUOTED + 2) return lines.join('\n');
  const [header, separator, ...rows] = lines;
  const matching = rows.filter((row) => hitsIn(row, stems) > 0);
  const shown = (matching.length > 0 ? matching : rows).slice(0, TABLE_ROWS_QUOTED);
  return [header, separator, ...shown].join('\n');
}

/**
 * The units of one passage that mention the question's terms, best first, at most `max`: the
 * sentences of its paragraphs, and its tables, lists and code blocks whole.
 */
function bestSentences(passage: LlmPassage, stems: Set<string>, max: number): ScoredSentence[] {
  const units: Omit<ScoredSentence, 'index'>[] = [];
  let context: string | undefined;
  const title = passage.title.trim().toLowerCase();
  blocksOf(passage.text).forEach((block, b) => {
    if (block.kind === 'heading' || block.kind === 'path') {
      const heading = block.lines[0].replace(/^#+\s*/, '').replace(/\s*#*$/, '').replace(/^_|_$/g, '');
      // The item's own title as its first heading is already quoted above the passage.
      context = heading.trim().toLowerCase() === title ? undefined : block.lines[0];
      return;
    }
    if (block.kind === 'text') {
      for (const text of splitSentences(block.lines.join('\n'))) units.push({ text, hits: hitsIn(text, stems), block: b, context });
      return;
    }
    const whole = block.lines.join('\n');
    const text = block.kind === 'table' ? quotedTable(block.lines, stems) : whole;
    // A table, list or code block is about what its heading says.
    units.push({ text, hits: hitsIn(`${context ?? ''}\n${whole}`, stems), block: b, context, structured: true });
  });
  const scored = units.map((u, index) => ({ ...u, index }));
  const relevant = scored.filter((s) => s.hits > 0).sort((a, b) => b.hits - a.hits || a.index - b.index);
  const chosen = (relevant.length > 0 ? relevant : scored.slice(0, 2)).slice(0, max);
  // Every matching table, list and code block is quoted, however many sentences match too: they
  // hold the facts (the prices) that sentences only introduce.
  for (const unit of relevant) if (unit.structured && !chosen.includes(unit)) chosen.push(unit);
  // ...and so is the rest of a section's data: a table beside a matching list under one heading.
  const sections = new Set(chosen.filter((u) => u.structured).map((u) => u.context));
  for (const unit of scored) if (unit.structured && sections.has(unit.context) && !chosen.includes(unit)) chosen.push(unit);
  return chosen.sort((a, b) => a.index - b.index);
}

/** One passage's chosen units as Markdown: each block under its heading, blocks a blank line apart. */
function quote(units: ScoredSentence[]): string {
  const out: string[] = [];
  let context: string | undefined;
  let block = -1;
  for (const unit of units) {
    if (unit.context && unit.context !== context) {
      // A heading is quoted small (bold), whatever its level, under the item's title.
      out.push(unit.context.startsWith('_') ? unit.context : `**${unit.context.replace(/^#+\s*/, '').replace(/\s*#*$/, '')}**`);
      context = unit.context;
      block = -1;
    }
    if (unit.block === block && out.length > 0) out[out.length - 1] += ` ${unit.text}`;
    else out.push(unit.text);
    block = unit.block;
  }
  return out.join('\n\n');
}

/** Builds the whole answer text from the grounding; exported for unit tests. */
export function composeLocalAnswer(request: LlmRequest): string {
  const grounding = request.grounding;
  const code = languageCodeOf(grounding?.language);
  const phrases = PHRASES[code];
  const passages = grounding?.passages ?? [];
  const none = () => notFoundReply(grounding?.language, grounding?.suggestedVertical?.name);
  if (passages.length === 0) {
    // "hi", "thanks!", "merci beaucoup": answered in kind, not with "I couldn't find anything".
    const smallTalk = smallTalkOf(grounding?.query ?? '');
    return smallTalk ? SMALL_TALK_REPLIES[smallTalkLanguage(smallTalk, code)][smallTalk.kind] : none();
  }

  const stems = new Set(extractQueryTerms(grounding?.query ?? '').map(stem));
  const byItem = new Map<string, { title: string; passages: LlmPassage[] }>();
  for (const p of passages) {
    const entry = byItem.get(p.itemId) ?? { title: p.title, passages: [] };
    entry.passages.push(p);
    byItem.set(p.itemId, entry);
  }
  const sections: string[] = [];
  let budget = MAX_SENTENCES;
  const items = [...byItem.values()].slice(0, MAX_ITEMS);
  for (const [n, { title, passages: itemPassages }] of items.entries()) {
    if (budget <= 0) break;
    // Every cited item gets at least one sentence: the first leaves one for each of the others.
    const share = budget - (items.length - 1 - n);
    const seen = new Set<string>();
    let left = share;
    const quoted: string[] = [];
    for (const p of itemPassages) {
      if (left <= 0) break;
      const units = bestSentences(p, stems, left).filter((s) => !seen.has(s.text) && seen.add(s.text));
      if (units.length === 0) continue;
      left -= units.length;
      quoted.push(quote(units));
    }
    if (quoted.length === 0) continue;
    budget -= share - left;
    // The title on a line of its own, then each passage's quote: lists, tables and code render.
    sections.push(`**${title}**\n\n${quoted.join('\n\n')}`);
  }
  if (sections.length === 0) return none();
  // The passages are quoted as written: say in which language when it is not the reply's.
  const written = detectLanguage(passages.map((p) => p.text).join('\n')) ?? 'en';
  const found = grounding?.generalOnlyFor ? `${phrases.generalOnly(grounding.generalOnlyFor)}\n${phrases.found}` : phrases.found;
  const lead = written === code ? found : `${found}\n${phrases.quotedIn(languageName(written, code))}`;
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
