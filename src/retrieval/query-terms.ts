/**
 * retrieval/ holds the stateless rules of finding: question analysis (this file, the thesaurus,
 * languages, cross-lingual translation), the FTS5 tokenizer, the BM25 parameters, the relevance
 * floor and confidence, jurisdiction. knowledge/ applies them to its index; nothing here imports
 * knowledge/ or embeddings/ (enforced by eslint.config.mjs).
 */
/**
 * Turns a visitor's free-text question into the content words a full-text index should look for.
 *
 * The output is deliberately plain: lower-case words made only of letters and digits, so it can be
 * quoted into an FTS5 MATCH expression or a Postgres tsquery without any way to inject operators
 * (`"AND OR NEAR( * ^` yields no terms, never a syntax error). Stemming is NOT done here: each
 * index applies its own stemmer (FTS5 porter, Postgres english) to these words, so the query is
 * stemmed exactly like the indexed text.
 */
import { detectLanguage, isQuestionFiller, LATIN_LANGUAGES } from './language';
import { dedupeKey } from './dedupe-key';
import { PHRASE_EXPANSIONS, relatedWords } from './support-thesaurus';
import { LEXICON_LANGUAGES } from './crosslingual/lexicon';
import { LexiconLanguage, translateQuestion } from './crosslingual/translate';

/**
 * English function words plus the words people wrap a support question in ("how do I", "can you
 * tell me", "please"). It contains the whole Postgres/Snowball english stop list, so both indexes
 * agree on which words can never match.
 */
const FUNCTION_WORDS = `
  a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself no nor not now of off on once only or other our ours ourselves out over own same she should
  so some such than that the their theirs them themselves then there these they this those through to
  too under until up very was we were what when where which while who whom why will with you your
  yours yourself yourselves s t d ll m o re ve y
`;
const STOP_WORDS: ReadonlySet<string> = new Set(
  `${FUNCTION_WORDS}
  ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn
  cant dont doesnt didnt isnt arent wasnt werent wont wouldnt couldnt shouldnt im ive youre youve
  theyre thats whats hows wheres whens whos lets youll
  would might must shall may also still even else ever yet etc
  get gets getting got gotten go goes going make makes made let
  please tell explain know want wants wanted need needs needed like
  hi hello hey thanks thank ok okay yes yeah sure
  anyone someone somebody anybody something anything everything everyone
  way ways thing things possible able really actually just kind
  us one ones
  happen happens happened say says said
  keep keeps keeping kept give gives giving gave put puts take takes taking took taken
  right currently
  help
  without within upon via per across toward towards among amongst despite besides beyond onto
  whether though although however therefore thus unless whereas
  `
    .split(/\s+/)
    .filter(Boolean),
);

/** The Snowball/Postgres English stop list: words a translation never searches for. */
const ENGLISH_FUNCTION_WORDS: ReadonlySet<string> = new Set(FUNCTION_WORDS.split(/\s+/).filter(Boolean));

/** Longest query we look at; anything after this is ignored rather than rejected. */
const MAX_QUERY_CHARS = 2000;
/** More terms than this add noise and cost, not recall. */
const MAX_TERMS = 32;
/** Longer "words" are almost certainly pasted junk (hashes, base64) and are dropped. */
const MAX_TERM_CHARS = 40;

/**
 * Question phrases whose second word carries no topic ("how long does shipping take" is about
 * shipping, not about length), in English and the other Latin-script languages ("wie lange",
 * "cuánto tiempo", "combien de temps", "quanto tempo"). Removed before the stop-word pass.
 */
const QUESTION_PHRASES = /(?<![\p{L}\p{N}])(?:how\s+(?:long|much|many|often|soon|far)|wie\s+lange?|cu[aá]nto\s+tiempo|combien\s+de\s+temps|quanto\s+tempo)(?![\p{L}\p{N}])/gu;

/** The query as a list of lower-case words (stop words included), question phrases removed. */
function queryWords(query: string): string[] {
  if (typeof query !== 'string' || query.length === 0) return [];
  return query
    .slice(0, MAX_QUERY_CHARS)
    .normalize('NFKC')
    .toLowerCase()
    // Possessives and contractions: "customer's" -> "customer", "don't" -> "dont".
    .replace(/['\u2019]s\b/g, '')
    .replace(/['\u2019]/g, '')
    .replace(QUESTION_PHRASES, ' ')
    // Everything that is not a letter, a combining mark or a digit separates words. This removes
    // every FTS5 / tsquery operator character: " * ^ ( ) : + - & | ! < > etc.
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((word) => word.length > 0 && word.length <= MAX_TERM_CHARS);
}

function isContentWord(word: string): boolean {
  if (STOP_WORDS.has(word)) return false;
  // Single letters are noise; single digits are not ("step 2", "form 8").
  return word.length > 1 || /\d/.test(word);
}

/**
 * The content words of `query`, in first-seen order, without duplicates. An empty array means the
 * question has nothing searchable (e.g. "how do I?"); callers treat that as "no results".
 */
export function extractQueryTerms(query: string): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  // A question in Spanish, French, German, Italian or Portuguese drops that language's fillers too.
  const lang = latinLanguageOf(query);
  for (const word of queryWords(query)) {
    if (!isContentWord(word) || (lang && isQuestionFiller(lang, word))) continue;
    const key = dedupeKey(word);
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(word);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** A word searched for in place of the visitor's own wording (see support-thesaurus.ts). */
export interface QueryExpansion {
  term: string;
  /** The visitor's terms it stands in for (it "covers" them when it matches). */
  for: string[];
  /** Weight of its BM25 contribution; the thesaurus' (EXPANSION_WEIGHT, relevance.ts) when left out. */
  weight?: number;
  /** Share of the visitor's term it covers when it matches; relatedCredit (relevance.ts) when left out. */
  credit?: number;
  /** An English word the visitor's (non-English) term translates to (crosslingual/translate.ts). */
  translation?: boolean;
}

/** The Latin-script offered language other than English a question is written in, if any. */
function latinLanguageOf(query: string): string | undefined {
  const lang = detectLanguage(query);
  return lang && LATIN_LANGUAGES.includes(lang) ? lang : undefined;
}

/**
 * Offline, a question in another Latin-script language meets English knowledge through cognates
 * ("documentação" / documentation, "sortieren" / sort, "Patente" / patent, "copier" / copy): each
 * of its words of COGNATE_MIN_CHARS letters or more is also searched cut short, down to
 * COGNATE_STEM_CHARS letters (diacritics off), each cut a word the index stems like English. A
 * cut is searched with COGNATE_WEIGHT and covers its word COGNATE_CREDIT.
 */
const COGNATE_MIN_CHARS = 5;
const COGNATE_STEM_CHARS = 4;
export const COGNATE_WEIGHT = 0.5;
export const COGNATE_CREDIT = 0.75;
/** Most cognate cuts one question gets. */
const MAX_COGNATES = 24;

function cognatesOf(terms: string[]): QueryExpansion[] {
  const out: QueryExpansion[] = [];
  const seen = new Set(terms);
  for (const term of terms) {
    const plain = term.normalize('NFD').replace(/\p{M}/gu, '');
    if (!/^\p{Script=Latin}+$/u.test(plain) || plain.length < COGNATE_MIN_CHARS) continue;
    for (let n = plain === term ? plain.length - 1 : plain.length; n >= COGNATE_STEM_CHARS; n--) {
      const cut = plain.slice(0, n);
      if (seen.has(cut) || STOP_WORDS.has(cut)) continue;
      seen.add(cut);
      out.push({ term: cut, for: [term], weight: COGNATE_WEIGHT, credit: COGNATE_CREDIT });
      if (out.length >= MAX_COGNATES) return out;
    }
  }
  return out;
}

/** Most expansion terms added to one query. */
const MAX_EXPANSIONS = 16;

/**
 * The query's content terms plus related words from the support thesaurus ("money back" ->
 * refund, "maternity" -> parental, "coupon" -> discount). Expansions never repeat a term and are
 * meant to be searched with less weight than the visitor's own words.
 */
export function analyseQuery(query: string, vertical?: string): AnalysedQuery {
  let terms = extractQueryTerms(query);
  const lang = detectLanguage(query);
  const foreign = lang !== undefined && (LEXICON_LANGUAGES as readonly string[]).includes(lang) ? (lang as LexiconLanguage) : undefined;
  const translated = foreign ? translateQuestion(query, foreign, terms) : undefined;
  if (translated) {
    // A word whose English is a stop word ("obtener": get) names no topic, as in English.
    const topicless = new Set(translated.translations.filter((t) => t.english.length > 0 && STOP_WORDS.has(t.english[0])).map((t) => t.word));
    translated.translations = translated.translations.filter((t) => !topicless.has(t.word));
    terms = translated.words.filter((w) => !topicless.has(w)).slice(0, MAX_TERMS);
  }
  if (terms.length === 0) return { terms, expansions: [] };
  const termKeys = new Map(terms.map((t) => [dedupeKey(t), t]));
  const byKey = new Map<string, QueryExpansion>();
  const add = (word: string, source: string[]): void => {
    const key = dedupeKey(word);
    if (termKeys.has(key) || !isContentWord(word)) return;
    const existing = byKey.get(key);
    if (existing) {
      for (const s of source) if (!existing.for.includes(s)) existing.for.push(s);
    } else if (byKey.size < MAX_EXPANSIONS) {
      byKey.set(key, { term: word, for: [...source] });
    }
  };

  const words = queryWords(query);
  for (const rule of PHRASE_EXPANSIONS) {
    for (let i = 0; i + rule.phrase.length <= words.length; i++) {
      if (!rule.phrase.every((w, j) => words[i + j] === w)) continue;
      const source = rule.phrase.map((w) => termKeys.get(dedupeKey(w))).filter((t): t is string => t !== undefined);
      if (source.length > 0) for (const e of rule.expansions) add(e, source);
    }
  }
  for (const term of terms) {
    for (const related of relatedWords(dedupeKey(term))) add(related, [term]);
  }
  const expansions = [...byKey.values()];
  if (latinLanguageOf(query)) expansions.push(...cognatesOf(terms).filter((c) => !byKey.has(dedupeKey(c.term))));
  let weights = terms.map((t) => termWeight(t, vertical));
  /** Terms of another language whose English is all generic words. */
  const genericOnly = new Set<string>();
  if (translated) {
    const inQuestion = new Set(terms);
    const translatedTerms = new Set<string>();
    const byWord = new Map<string, QueryExpansion>();
    for (const t of translated.translations) {
      const covers = [t.word, ...t.alsoCovers].filter((w) => inQuestion.has(w));
      if (covers.length === 0) continue;
      const english = t.english.filter((e) => !ENGLISH_FUNCTION_WORDS.has(e) && (e.length > 1 || /\d/.test(e)) && !inQuestion.has(e));
      for (const w of covers) translatedTerms.add(w);
      for (const e of english) {
        const key = dedupeKey(e);
        const known = byWord.get(key);
        if (known) {
          for (const w of covers) if (!known.for.includes(w)) known.for.push(w);
          continue;
        }
        if (byWord.size >= MAX_TRANSLATIONS) break;
        // A word with several translations spreads its weight over them (they often all match).
        byWord.set(key, { term: e, for: covers, weight: TRANSLATION_WEIGHT / Math.sqrt(english.length), credit: TRANSLATION_CREDIT, translation: true });
      }
    }
    // A translation is searched as one, not also as a thesaurus word or a cognate cut.
    for (let i = expansions.length - 1; i >= 0; i--) if (byWord.has(dedupeKey(expansions[i].term))) expansions.splice(i, 1);
    // The thesaurus words of a translation, as the English word would have them ("vacaciones":
    // vacation -> "time off"), searched and credited as a thesaurus word of a translation.
    const hops: QueryExpansion[] = [];
    const taken = new Set([...byWord.keys(), ...expansions.map((e) => dedupeKey(e.term)), ...terms.map((t) => dedupeKey(t))]);
    for (const translation of [...byWord.values()]) {
      for (const related of relatedWords(dedupeKey(translation.term))) {
        const key = dedupeKey(related);
        if (taken.has(key) || !isContentWord(related) || hops.length >= MAX_EXPANSIONS) continue;
        taken.add(key);
        hops.push({ term: related, for: translation.for, weight: TRANSLATION_HOP_WEIGHT, credit: TRANSLATION_HOP_CREDIT });
      }
    }
    expansions.push(...byWord.values(), ...hops);
    // A word of another script with no English found: the lexicon's gap more often than a topic
    // the knowledge lacks. A word whose English is all generic words ("عملية": process) weighs as
    // they would.
    for (const t of translated.translations) if (t.english.length > 0 && t.english.every((e) => genericWord(e, vertical))) genericOnly.add(t.word);
    weights = weights.map((w, i) => {
      const t = terms[i];
      if (genericOnly.has(t)) return Math.min(w, GENERIC_WEIGHT);
      return translatedTerms.has(t) || /^[\p{Script=Latin}\p{N}]+$/u.test(t) ? w : UNTRANSLATED_WEIGHT * w;
    });
  }
  // A length of time ("6 weeks", "30 days") says when, not what: the knowledge states its own
  // figures ("within 30 days"), which a visitor's rarely match.
  const quantities = quantityTerms(words, terms);
  weights = weights.map((w, i) => (quantities.has(terms[i]) ? Math.min(w, QUANTITY_WEIGHT) : w));
  // A number is searched ("error 404", "year 2000") but names no topic on its own ("thanks 9").
  const topic = terms.some((t) => !/^\d+$/.test(t) && !quantities.has(t) && !genericWord(t, vertical) && !genericOnly.has(t));
  return { terms, expansions, weights, topic };
}

/** Units of time, in the offered Latin-script languages (base forms; plurals share their dedupe key where English-like). */
const TIME_UNITS: ReadonlySet<string> = new Set(
  `second minute hour day week month year business
   segundo minuto hora día dia semana mes meses año ano años anos
   seconde heure jour semaine mois an ans année annee années annees
   sekunde sekunden minuten stunde stunden tag tage tagen woche wochen monat monate monaten jahr jahre jahren
   secondo secondi minuti ora ore giorno giorni settimana settimane mese mesi anno anni
   hora horas dias semanas meses anos`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => dedupeKey(w)),
);

/** The terms of a length of time in the question's words: a number and the unit of time right after it ("6 weeks"). */
function quantityTerms(words: string[], terms: string[]): Set<string> {
  const inTerms = new Set(terms);
  const out = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) {
    const [number, unit] = [words[i], words[i + 1]];
    if (!/^\d+$/.test(number) || !TIME_UNITS.has(dedupeKey(unit))) continue;
    for (const w of [number, unit]) if (inTerms.has(w)) out.add(w);
  }
  return out;
}

/** The weight of the words of a length of time ("6 weeks"), like a generic word's. */
export const QUANTITY_WEIGHT = 0.3;

/** What analyseQuery makes of a question. */
export interface AnalysedQuery {
  /** The visitor's content words (Chinese and Japanese segmented into words). */
  terms: string[];
  /** Related words and translations searched with them. */
  expansions: QueryExpansion[];
  /**
   * Weight of each term (set whenever there are terms): termWeight's, less for the number and
   * unit of a length of time (QUANTITY_WEIGHT), and in a question in another language for words of
   * its script that could not be translated (UNTRANSLATED_WEIGHT) or whose English is generic.
   */
  weights?: number[];
  /**
   * Whether a term names a topic: one that is neither a number, the unit of a length of time, nor
   * a generic word. Without one ("thanks 9", "policy?", in Legal "is that legal?") nothing in the
   * knowledge can be said to answer the question.
   */
  topic?: boolean;
}

/** Most translations added to one query. */
const MAX_TRANSLATIONS = 32;

/**
 * A question in another language meets English knowledge through its words' English
 * (crosslingual/translate.ts): each English word is searched with TRANSLATION_WEIGHT (shared out
 * over a word's translations: / sqrt(their number)) and covers its word TRANSLATION_CREDIT, less
 * than the visitor's own word since a word-by-word translation can miss the sense. A word of
 * another script with no translation weighs UNTRANSLATED_WEIGHT of a word. Chosen on the Python
 * FAQ's questions in other languages (`npm run eval`; the git and zlib FAQs held out): credit
 * 0.5 / 0.65 / 0.8 / 1 gave R@1 0.67 / 0.80 / 0.80 / 0.87 and "not found" 0.60 / 0.40 / 0.40 /
 * 0.00 there (0.65: the lower of the two best); weight 1 rather than 0.5 or 0.8 said "not found"
 * to one more unanswerable question; untranslated 0.5 rather than 1: R@1 0.80 instead of 0.73.
 */
export const TRANSLATION_WEIGHT = 1;
/** A thesaurus word of a translation: searched and credited like a thesaurus word (0.5), times the translation's credit. */
export const TRANSLATION_HOP_WEIGHT = 0.5;
export const TRANSLATION_HOP_CREDIT = 0.5 * 0.65;
export const TRANSLATION_CREDIT = 0.65;
export const UNTRANSLATED_WEIGHT = 0.5;

/**
 * Words people wrap a support question in that name no topic ("what's your return POLICY", "a
 * QUESTION about my invoice", "what are my OPTIONS"): kept (they can matter: "privacy policy"),
 * but weighed GENERIC_WEIGHT of a topic word, in the search and in how much of the question a
 * passage covers. Base forms; plurals share their dedupe key.
 */
const GENERIC_WORDS: ReadonlySet<string> = new Set(
  'policy policies information question problem issue detail option rule process procedure guide guideline general'
    .split(' ')
    .map((w) => dedupeKey(w)),
);
export const GENERIC_WEIGHT = 0.3;

/**
 * Words that frame any question of a vertical rather than name its topic: every Legal question
 * asks whether something is legal or allowed, and what the law says. Weighed GENERIC_WEIGHT
 * there, so a passage that shares only them with the question (the tenant-rights article for
 * "I was fired without notice, is that legal?") does not pass for an answer.
 */
const VERTICAL_GENERIC_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  legal: new Set('legal illegal legally law lawful unlawful allowed'.split(' ').map((w) => dedupeKey(w))),
};

/** Whether `term` is a generic support word, or one that frames every question of `vertical`. */
function genericWord(term: string, vertical?: string): boolean {
  const key = dedupeKey(term);
  return GENERIC_WORDS.has(key) || (vertical !== undefined && (VERTICAL_GENERIC_WORDS[vertical]?.has(key) ?? false));
}

/** The weight of a visitor's term: 1, or GENERIC_WEIGHT for a generic support word (or one that frames every question of `vertical`). */
export function termWeight(term: string, vertical?: string): number {
  return genericWord(term, vertical) ? GENERIC_WEIGHT : 1;
}

/** True when `word` is one the extractor always drops (exposed for tests and diagnostics). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
