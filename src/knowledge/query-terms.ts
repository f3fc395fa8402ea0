/**
 * Turns a visitor's free-text question into the content words a full-text index should look for.
 *
 * The output is deliberately plain: lower-case words made only of letters and digits, so it can be
 * quoted into an FTS5 MATCH expression or a Postgres tsquery without any way to inject operators
 * (`"AND OR NEAR( * ^` yields no terms, never a syntax error). Stemming is NOT done here: each
 * index applies its own stemmer (FTS5 porter, Postgres english) to these words, so the query is
 * stemmed exactly like the indexed text.
 */

/**
 * English function words plus the words people wrap a support question in ("how do I", "can you
 * tell me", "please"). It contains the whole Postgres/Snowball english stop list, so both indexes
 * agree on which words can never match.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  `
  a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself no nor not now of off on once only or other our ours ourselves out over own same she should
  so some such than that the their theirs them themselves then there these they this those through to
  too under until up very was we were what when where which while who whom why will with you your
  yours yourself yourselves s t d ll m o re ve y
  ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn
  cant dont doesnt didnt isnt arent wasnt werent wont wouldnt couldnt shouldnt im ive youre youve
  theyre thats whats hows wheres whens whos lets youll
  would might must shall may also still even else ever yet etc
  get gets getting got gotten go goes going make makes made let
  please tell explain know want wants wanted need needs needed like
  hi hello hey thanks thank ok okay yes yeah sure
  anyone someone somebody anybody something anything everything everyone
  way ways thing things possible able really actually just kind sort
  us one ones
  happen happens happened say says said
  help
  `
    .split(/\s+/)
    .filter(Boolean),
);

/** Longest query we look at; anything after this is ignored rather than rejected. */
const MAX_QUERY_CHARS = 2000;
/** More terms than this add noise and cost, not recall. */
const MAX_TERMS = 32;
/** Longer "words" are almost certainly pasted junk (hashes, base64) and are dropped. */
const MAX_TERM_CHARS = 40;

/**
 * Question phrases whose second word carries no topic ("how long does shipping take" is about
 * shipping, not about length). Removed before the stop-word pass.
 */
const QUESTION_PHRASES = /\bhow\s+(?:long|much|many|often|soon|far)\b/g;

/**
 * A crude plural/singular key used only to de-duplicate terms that the index stemmer would
 * collapse anyway ("refund refunds" would otherwise be counted twice by the scorer).
 */
function dedupeKey(word: string): string {
  if (/^\d+$/.test(word) || word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  return word;
}

/**
 * The content words of `query`, in first-seen order, without duplicates. An empty array means the
 * question has nothing searchable (e.g. "how do I?"); callers treat that as "no results".
 */
export function extractQueryTerms(query: string): string[] {
  if (typeof query !== 'string' || query.length === 0) return [];
  const text = query
    .slice(0, MAX_QUERY_CHARS)
    .normalize('NFKC')
    .toLowerCase()
    // Possessives and contractions: "customer's" -> "customer", "don't" -> "dont".
    .replace(/['\u2019]s\b/g, '')
    .replace(/['\u2019]/g, '')
    .replace(QUESTION_PHRASES, ' ')
    // Everything that is not a letter, a combining mark or a digit separates words. This removes
    // every FTS5 / tsquery operator character: " * ^ ( ) : + - & | ! < > etc.
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ');

  const terms: string[] = [];
  const seen = new Set<string>();
  for (const word of text.split(' ')) {
    if (word.length === 0 || word.length > MAX_TERM_CHARS) continue;
    if (STOP_WORDS.has(word)) continue;
    // Single letters are noise; single digits are not ("step 2", "form 8").
    if (word.length === 1 && !/\d/.test(word)) continue;
    const key = dedupeKey(word);
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(word);
    if (terms.length === MAX_TERMS) break;
  }
  return terms;
}

/** True when `word` is one the extractor always drops (exposed for tests and diagnostics). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}
