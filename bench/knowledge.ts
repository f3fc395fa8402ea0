/**
 * Knowledge search benchmark: the full-text index against a LIKE scan of the same chunks.
 *
 *   npx ts-node --transpile-only bench/knowledge.ts      (also part of `npm run bench`)
 *
 * Builds a knowledge base of BENCH_KB_CHUNKS (100,000) chunks of synthetic but varied English
 * support text: a vocabulary of ~5,300 content words (real English and support words, their
 * inflections, and product-like names in the tail) drawn with a Zipf-Mandelbrot distribution,
 * mixed with function words, domain phrases per vertical and rare order/error codes ("sku10037").
 * The corpus is seeded, so every run and both dialects get the same text. It is loaded on SQLite in a temporary DATA_DIR and, when DATABASE_URL is set,
 * on Postgres in a schema of its own (dropped afterwards), both through openDataSource (so the
 * real migrations: the inverted index `knowledge_postings` and `knowledge_search_stats`, kept by
 * triggers on knowledge_chunks; see src/knowledge/bm25.ts).
 *
 * Loading (BENCH_KB_LOAD): `service` (default) goes through KnowledgeService.createMany in
 * batches, exactly like the admin API; `direct` chunks with the app's chunker and writes items and
 * chunks with multi-row INSERTs in transactions, letting the index triggers index them (faster,
 * same rows). The report states which one ran.
 *
 * Then, per dialect, one run measures side by side:
 *  - KnowledgeService.search(q, { limit: 10 }) and KnowledgeService.retrieve(q) over queries of
 *    2-5 content words (common, mid-frequency and rare words, codes, domain phrases, and some
 *    with a misspelt word), on a service whose search cache has warmed as a started server's does
 *    (KnowledgeService.warmSearchCache: the postings of the corpus' most frequent terms; its time
 *    and size are reported), after BENCH_KB_WARMUP (10) unmeasured searches of other queries. They
 *    are measured in BENCH_KB_SEARCH_ROUNDS (3) rounds of BENCH_KB_QUERIES (200) distinct queries
 *    each, spread over the run: the first before the LIKE passes, the others between parts of the
 *    ranked LIKE pass and after it, so that both sides meet the same moments of a busy machine (a
 *    round lasts about a second, the ranked LIKE pass a minute or more); when the rounds exceed
 *    BENCH_KB_SEARCH_BUDGET_S (150 s) the remaining queries are skipped (reported);
 *  - the yardstick, a ranked LIKE scan of the same table, for an evenly spaced subset of
 *    BENCH_KB_LIKE_QUERIES (100) of the measured queries (budget BENCH_KB_RANKED_LIKE_BUDGET_S,
 *    180 s): `WHERE (title LIKE '%w1%' OR text LIKE '%w1%') OR ...` over the same content terms
 *    the index gets (extractQueryTerms; ILIKE on Postgres, since the index is case-insensitive),
 *    `ORDER BY` a LIKE relevance (per term: title match x 4 + text match) `DESC, id LIMIT 10`.
 *    It does search()'s job (the 10 most relevant chunks) the LIKE way, so like search() it must
 *    look at every matching row before it can answer. The speed-up goal is measured against it:
 *    its p50 and p95 over those queries against search()'s over all the measured queries (an
 *    evenly spaced subset has the same mix; the larger sample steadies search()'s p95, the 30th
 *    slowest of 600), and per query on the subset;
 *  - for scale, the same WHERE without ranking, `LIMIT 10` (budget BENCH_KB_LIKE_BUDGET_S, 120 s;
 *    Postgres: case-sensitive LIKE as well): it stops at the first 10 rows that contain any of
 *    the words, in table order, so for common words it reads a page or two and answers in well
 *    under a millisecond. It is not a search (any 10 matching rows, however weak), and no index
 *    can be 100 times faster than a read of two pages: it is shown, not judged;
 *    (Before anything is measured, the chunks table and the search index are each read once in
 *    full, so that both sides start from a warm page cache, see readAllPages.)
 *  - search() with an empty postings cache (a new KnowledgeService per query, not warmed): what
 *    a search costs before the warm-up has run (just after a start, or a write: a write empties
 *    the cache and a warm-up follows it 200 ms later);
 *  - index size against raw text size (SQLite: dbstat over the index tables; Postgres:
 *    pg_total_relation_size of knowledge_postings, and the stored `tsv` column its triggers read).
 * Finally the slowest search queries are traced: every SQL statement the search path issues,
 * timed on its own, with its plan (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE).
 *
 * Goals (printed next to the figures, reported, not asserted): search p95 <= 10 ms and at least
 * 100x faster than the ranked LIKE scan (ratio of p50s and ratio of p95s). Progress goes to
 * stderr, the report (Markdown) to stdout; a summary of both dialects closes it.
 *
 * Knobs: BENCH_KB_CHUNKS, BENCH_KB_QUERIES, BENCH_KB_SEARCH_ROUNDS, BENCH_KB_LIKE_QUERIES, BENCH_KB_LOAD=service|direct,
 * BENCH_KB_WARMUP, BENCH_KB_SEARCH_BUDGET_S, BENCH_KB_LIKE_BUDGET_S, BENCH_KB_RANKED_LIKE_BUDGET_S,
 * BENCH_KB_SLOWEST (queries
 * traced, default 3), BENCH_KB_DATA_DIR and BENCH_KB_PG_SCHEMA (keep the SQLite database in
 * that directory, the Postgres data in that schema; a later run reuses them and skips the load),
 * DATABASE_URL (adds the Postgres run).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config';
import { dialectOf, Dialect, dropPostgresSchema, openDataSource } from '../src/database/data-source';
import { chunkContent } from '../src/knowledge/chunker';
import { KnowledgeAttachment } from '../src/knowledge/knowledge-attachment.entity';
import { KnowledgeService } from '../src/knowledge/knowledge.service';
import { extractQueryTerms, isStopWord } from '../src/retrieval/query-terms';
import type { CheckedKnowledgeItem } from '../src/shared/contracts/knowledge';
import { POSTING_BYTES } from '../src/knowledge/postings-format';
import { fts5Tokens } from '../src/retrieval/fts5-tokenizer';
import { knowledgeServiceOn } from '../test/support/standalone';

/** A bench item: a checked knowledge item without attachments. */
type KnowledgeItemInput = Omit<CheckedKnowledgeItem, 'attachments'>;

// ------------------------------------------------------------------------------------------------
// Settings

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}

const TARGET_CHUNKS = intFromEnv('BENCH_KB_CHUNKS', 100_000, 100, 2_000_000);
/** Distinct queries per search() round. */
const QUERY_COUNT = intFromEnv('BENCH_KB_QUERIES', 200, 10, 5000);
/** Rounds of search() measurement, spread over the run (see benchDialect). */
const SEARCH_ROUNDS = intFromEnv('BENCH_KB_SEARCH_ROUNDS', 3, 1, 10);
const LIKE_QUERY_COUNT = Math.min(QUERY_COUNT * SEARCH_ROUNDS, intFromEnv('BENCH_KB_LIKE_QUERIES', 100, 2, 5000));
const SLOWEST_TRACED = intFromEnv('BENCH_KB_SLOWEST', 3, 0, 20);
/** Unmeasured search() calls before measuring (page cache, statement preparation). */
const WARMUP_QUERIES = intFromEnv('BENCH_KB_WARMUP', 10, 0, 5000);
/** Seconds per dialect for the search()/retrieve() pass; queries left when it runs out are skipped. */
const SEARCH_BUDGET_S = intFromEnv('BENCH_KB_SEARCH_BUDGET_S', 150, 5, 3600);
/** Seconds per dialect for the LIKE pass. */
const LIKE_BUDGET_S = intFromEnv('BENCH_KB_LIKE_BUDGET_S', 120, 5, 3600);
/** Seconds per dialect for the ranked LIKE pass. */
const RANKED_LIKE_BUDGET_S = intFromEnv('BENCH_KB_RANKED_LIKE_BUDGET_S', 180, 5, 3600);
const LOAD_MODE: 'service' | 'direct' = process.env.BENCH_KB_LOAD === 'direct' ? 'direct' : 'service';
/** Items per createMany call (one transaction each). */
const SERVICE_BATCH_ITEMS = 200;
/** Items per transaction in direct mode. */
const DIRECT_BATCH_ITEMS = 500;
const SEED = 20241121;
const GOAL_P95_MS = 10;
const GOAL_SPEEDUP = 100;
const VERTICALS = ['customer-service', 'hr', 'legal', 'sales'] as const;
type BenchVertical = (typeof VERTICALS)[number];

function progress(message: string): void {
  process.stderr.write(`[bench:knowledge] ${message}\n`);
}

// ------------------------------------------------------------------------------------------------
// Seeded randomness

/** mulberry32: small, fast, good enough for a corpus. */
function rngFrom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function intBetween(rng: () => number, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)];
}

/**
 * Draws ranks 0..n-1 with probability proportional to 1 / (rank + 1 + offset)^s (Zipf-Mandelbrot:
 * the offset stands for the function words ahead of the content words in a whole-text ranking).
 */
class Zipf {
  private readonly cumulative: Float64Array;
  constructor(n: number, s: number, offset = 0) {
    this.cumulative = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) {
      sum += 1 / Math.pow(r + 1 + offset, s);
      this.cumulative[r] = sum;
    }
    for (let r = 0; r < n; r++) this.cumulative[r] /= sum;
  }
  draw(rng: () => number): number {
    const u = rng();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

// ------------------------------------------------------------------------------------------------
// Vocabulary

/** Function words, most frequent first (the stop words a real text is full of). */
const FUNCTION_WORDS = `the to and a of you your is in for it on with that this be can will if or are we our by as at
  from an not have has after before when do may all any then so into which there also each more only than
  its their they was been these those what how out up about other some such no over most should would
  them us he she his her who where while both few again once here just because through during until`
  .split(/\s+/)
  .filter(Boolean);

/** Real English words of support articles; shuffled (seeded) into the frequent ranks. */
const BASE_WORDS = `
  account order refund payment card password email address delivery shipping package parcel return
  exchange item product price cost fee charge discount coupon voucher code subscription plan membership
  invoice receipt tax billing balance credit debit bank transfer wallet checkout cart basket store shop
  branch customer client service support team agent ticket request issue problem error message screen
  page link button setting option profile username login sign device phone mobile app browser website
  update version install download upload file document form field name number date time day week month
  year hour minute deadline schedule appointment booking reservation cancel cancellation change modify
  edit confirm confirmation verify verification identity security privacy data information record report
  history status tracking track courier carrier warehouse stock inventory supply size colour color model
  brand warranty guarantee repair replacement damage damaged broken faulty defect missing late delay
  delayed lost stolen wrong incorrect duplicate fraud dispute chargeback claim compensation credit loyalty
  points reward gift voucher promotion offer sale deal bundle upgrade downgrade renewal renew expire
  expiry trial free premium standard basic business personal family student senior international
  domestic local region country currency language translation access permission role admin owner member
  user guest visitor contact call chat callback hotline hours holiday weekend evening morning
  employee employer manager supervisor colleague staff worker contractor intern candidate applicant
  recruiter interview offer contract probation notice resignation termination dismissal redundancy
  severance salary wage pay payroll payslip bonus commission overtime allowance expense expenses mileage
  travel accommodation relocation pension retirement insurance health dental vision medical sick sickness
  leave absence vacation maternity paternity parental adoption bereavement jury training course
  certificate qualification appraisal review evaluation feedback objective goal performance promotion
  grievance complaint harassment bullying discrimination misconduct investigation disciplinary hearing
  appeal policy procedure handbook guideline rule regulation compliance audit safety hazard incident
  accident injury equipment laptop badge desk office remote hybrid shift rota timesheet attendance
  onboarding offboarding benefits perk wellbeing counselling childcare flexible part full entitlement
  lawyer attorney solicitor court judge tribunal claim lawsuit litigation settlement mediation arbitration
  tenant landlord lease tenancy rent deposit eviction repair notice agreement clause liability negligence
  damages breach consent signature witness evidence statute limitation jurisdiction county state federal
  consumer rights warranty copyright trademark patent license licence will probate estate inheritance
  divorce custody separation marriage visa immigration residency citizenship employment discrimination
  defamation privacy protection regulation filing fees hearing summons subpoena verdict penalty fine
  lead prospect pipeline forecast quota territory account opportunity proposal quote quotation demo
  trial pilot onboarding renewal upsell churn retention pricing tier seat license enterprise startup
  partner reseller distributor channel campaign webinar newsletter outreach followup objection budget
  stakeholder decision buyer champion procurement legal security questionnaire integration api
  implementation rollout adoption usage metric dashboard analytics crm calendar meeting presentation
  competitor comparison value return investment savings efficiency revenue margin target commission
  negotiate negotiation contract signature approval discount term payment net invoice purchase
  battery charger cable adapter screen keyboard mouse printer router modem speaker headphones camera
  lens watch strap bag shoe jacket shirt dress trousers sofa table chair mattress fridge oven kettle
  blender vacuum filter cartridge bulb lamp tyre bicycle helmet toy puzzle book ticket voucher gift
  cream bottle jar box lid seal label barcode serial manual instruction assembly screw part spare
  fragile heavy bulky oversized perishable frozen fresh organic allergy ingredient recipe
  quickly easily securely automatically manually immediately usually normally typically recently
  online offline available unavailable eligible ineligible valid invalid active inactive pending
  approved rejected declined refunded shipped delivered dispatched returned processed completed
  cancelled expired suspended locked unlocked blocked verified unverified registered unregistered
  new old original current previous next first last final additional extra minimum maximum total
  partial monthly annual weekly daily quarterly yearly early standard express priority urgent
  receive send submit apply choose select enter provide attach include require allow prevent
  contact reach check review manage open close start stop reset restore recover remove delete
  create add save keep pay charge bill refund replace repair collect drop pick ship deliver return
  print scan sign share export import sync connect disconnect enable disable activate deactivate
  report escalate resolve respond reply forward transfer assign approve decline reject accept
  calculate estimate compare measure notify remind inform explain describe understand learn find
  search browse filter sort view display show hide log track monitor protect store retain archive
  `
  .split(/\s+/)
  .filter(Boolean);

/** Suffixes that make inflections and derivations of base words (the stemmer folds most of them). */
const SUFFIXES = ['s', 'ed', 'ing', 'er', 'ers', 'ment', 'able', 'ly', 'ation', 'ness'];

/** Syllables of product, plan and place names for the rare tail ("zentrix", "calloway"). */
const SYLLABLES = `ka lo ri zen tro vex mar ten sol dra qui bel nor fin lux cor tal mo vin ash rel pra
  dex zo lu mi ta ver san kel bor nix gal hom pel tur wen yar cas dor fel gar hel jor lin mer nel ost
  pax rus sev tor ul var wil xan yor zel bri cla dro fra gre pla sta tre vor`
  .split(/\s+/)
  .filter(Boolean);

/** Multi-word phrases an article of each vertical tends to use. */
const DOMAIN_PHRASES: Record<BenchVertical, string[]> = {
  'customer-service': [
    'refund policy', 'return label', 'order number', 'tracking number', 'delivery address', 'reset your password',
    'two factor authentication', 'payment method', 'credit card', 'gift card balance', 'out of stock',
    'estimated delivery date', 'proof of purchase', 'original packaging', 'store credit', 'price match',
    'click and collect', 'express shipping', 'customs duties', 'account settings', 'order history',
    'damaged in transit', 'missing item', 'cancel your subscription', 'loyalty points',
  ],
  hr: [
    'annual leave', 'sick leave', 'parental leave', 'notice period', 'probation period', 'performance review',
    'expense claim', 'travel policy', 'pension scheme', 'health insurance', 'flexible working', 'remote work',
    'employee handbook', 'line manager', 'payroll cut off', 'overtime rate', 'training budget',
    'grievance procedure', 'disciplinary hearing', 'return to work', 'jury service', 'bank holiday',
  ],
  legal: [
    'security deposit', 'notice to quit', 'small claims court', 'statute of limitations', 'breach of contract',
    'terms and conditions', 'consumer rights', 'data protection', 'power of attorney', 'last will',
    'legal aid', 'cooling off period', 'unfair dismissal', 'personal injury', 'landlord repairs',
    'rent increase', 'eviction notice', 'mediation service', 'filing deadline', 'written agreement',
  ],
  sales: [
    'discovery call', 'pricing page', 'annual contract', 'volume discount', 'free trial', 'proof of concept',
    'security questionnaire', 'decision maker', 'renewal date', 'seat licence', 'enterprise plan',
    'case study', 'return on investment', 'sales pipeline', 'quarterly target', 'purchase order',
    'service level agreement', 'onboarding plan', 'competitor comparison', 'budget approval',
  ],
};

export interface Vocabulary {
  /** Content words, most frequent first. */
  words: string[];
  zipf: Zipf;
  functionZipf: Zipf;
}

export function buildVocabulary(): Vocabulary {
  const rng = rngFrom(SEED);
  const seen = new Set<string>();
  const keep = (word: string): boolean => {
    if (word.length < 2 || seen.has(word) || isStopWord(word)) return false;
    seen.add(word);
    return true;
  };
  const common = BASE_WORDS.filter(keep);
  // Inflections: a share of the base words with one or two suffixes each.
  const inflected: string[] = [];
  for (const base of common) {
    const n = intBetween(rng, 0, 2);
    for (let i = 0; i < n; i++) {
      const suffix = pick(rng, SUFFIXES);
      const stem = base.endsWith('e') && /^[aeio]/.test(suffix) ? base.slice(0, -1) : base;
      const word = stem + suffix;
      if (keep(word)) inflected.push(word);
    }
  }
  // Names: 2-3 syllables, occasionally with a model number.
  const names: string[] = [];
  while (names.length < 4000) {
    const parts = intBetween(rng, 2, 3);
    let word = '';
    for (let i = 0; i < parts; i++) word += pick(rng, SYLLABLES);
    if (rng() < 0.15) word += String(intBetween(rng, 2, 990));
    if (keep(word)) names.push(word);
  }
  // Frequent ranks: base words and inflections shuffled together (base words a little ahead).
  const head = [...common.map((w) => ({ w, k: rng() })), ...inflected.map((w) => ({ w, k: rng() + 0.35 }))]
    .sort((a, b) => a.k - b.k)
    .map((x) => x.w);
  const words = [...head, ...names];
  return { words, zipf: new Zipf(words.length, ZIPF_S, CONTENT_RANK_OFFSET), functionZipf: new Zipf(FUNCTION_WORDS.length, 0.9) };
}

/** Zipf exponent of the content words. */
const ZIPF_S = 1.1;
/** Content words rank after this many (function) words in a whole-text Zipf ranking. */
const CONTENT_RANK_OFFSET = 40;
/** Order, error and reference codes ("sku10037", "err40211"): the genuinely rare tokens. */
const CODE_SPACE = 40_000;
/** Share of tokens that are codes (~4 occurrences per code over 100,000 chunks). */
const CODE_SHARE = 0.01;

function code(i: number): string {
  return `${['sku', 'err', 'ref'][i % 3]}${10_000 + ((i * 37) % 90_000)}`;
}

// ------------------------------------------------------------------------------------------------
// Corpus

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

class CorpusWriter {
  private readonly rng = rngFrom(SEED + 1);
  constructor(private readonly vocab: Vocabulary) {}

  private word(): string {
    return this.vocab.words[this.vocab.zipf.draw(this.rng)];
  }

  private sentence(vertical: BenchVertical): string {
    const rng = this.rng;
    const length = intBetween(rng, 7, 22);
    const tokens: string[] = [];
    const phraseAt = rng() < 0.35 ? intBetween(rng, 0, length - 1) : -1;
    for (let i = 0; i < length; i++) {
      if (i === phraseAt) tokens.push(pick(rng, DOMAIN_PHRASES[vertical]));
      else if (rng() < 0.42) tokens.push(FUNCTION_WORDS[this.vocab.functionZipf.draw(rng)]);
      else if (rng() < 0.02) tokens.push(String(intBetween(rng, 1, 90)));
      else if (rng() < CODE_SHARE / 0.56) tokens.push(code(intBetween(rng, 0, CODE_SPACE - 1)));
      else tokens.push(this.word());
    }
    if (rng() < 0.12) tokens.splice(intBetween(rng, 1, tokens.length - 1), 0, `${pick(rng, ['step', 'section', 'form', 'day'])} ${intBetween(rng, 1, 30)}`);
    const end = rng() < 0.85 ? '.' : rng() < 0.7 ? '?' : '!';
    let text = tokens.join(' ');
    if (rng() < 0.25) text = text.replace(/ (\S+) /, ' $1, ');
    return capitalise(text) + end;
  }

  private body(vertical: BenchVertical, words: number): string {
    const paragraphs: string[] = [];
    let count = 0;
    while (count < words) {
      const sentences: string[] = [];
      const n = intBetween(this.rng, 2, 6);
      for (let i = 0; i < n && count < words; i++) {
        const s = this.sentence(vertical);
        count += s.split(' ').length;
        sentences.push(s);
      }
      paragraphs.push(sentences.join(' '));
    }
    return paragraphs.join('\n\n');
  }

  /** One item; `short` forces a single-chunk item (used to hit the chunk target exactly). */
  item(short: boolean): KnowledgeItemInput & { vertical: BenchVertical } {
    const rng = this.rng;
    const vertical = pick(rng, VERTICALS);
    const r = rng();
    const words = short || r < 0.5 ? intBetween(rng, 50, 200) : r < 0.8 ? intBetween(rng, 220, 650) : r < 0.95 ? intBetween(rng, 650, 1500) : intBetween(rng, 1500, 3000);
    const titleWords = [pick(rng, DOMAIN_PHRASES[vertical])];
    const extra = intBetween(rng, 1, 3);
    for (let i = 0; i < extra; i++) titleWords.push(rng() < 0.3 ? pick(rng, FUNCTION_WORDS) : this.word());
    if (rng() < 0.5) titleWords.reverse();
    return {
      title: capitalise(titleWords.join(' ')).slice(0, 200),
      content: this.body(vertical, words),
      category: capitalise(this.word()),
      vertical,
      tags: [this.word(), this.word()],
      jurisdiction: null,
      subRegion: null,
    };
  }
}

interface PlannedItem {
  input: KnowledgeItemInput & { vertical: BenchVertical };
  chunks: { text: string; tokenCount: number }[];
}

/**
 * Yields batches of items whose chunk count adds up to exactly TARGET_CHUNKS. Deterministic:
 * every call yields the same corpus.
 */
function* corpusBatches(vocab: Vocabulary, batchItems: number): Generator<PlannedItem[]> {
  const writer = new CorpusWriter(vocab);
  let remaining = TARGET_CHUNKS;
  let batch: PlannedItem[] = [];
  while (remaining > 0) {
    let input = writer.item(false);
    let chunks = chunkContent(input.content);
    while (chunks.length > remaining) {
      input = writer.item(true);
      chunks = chunkContent(input.content);
    }
    remaining -= chunks.length;
    batch.push({ input, chunks: chunks.map((c) => ({ text: c.text, tokenCount: c.tokenCount })) });
    if (batch.length === batchItems) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// ------------------------------------------------------------------------------------------------
// Queries

type QueryClass = 'common' | 'mixed' | 'rare' | 'phrase' | 'typo';
export interface BenchQuery {
  text: string;
  cls: QueryClass;
  /** Content terms as the index gets them. */
  terms: string[];
}

/** Support questions in the ten other offered languages (3 each), for the cross-language retrieve() row. */
const FOREIGN_QUESTIONS = [
  '¿Cómo puedo obtener un reembolso de mi pedido?', '¿Dónde veo el estado de mi envío?', '¿Cómo cambio la contraseña de mi cuenta?',
  'Comment réinitialiser mon mot de passe ?', 'Où est ma commande ?', 'Comment annuler mon abonnement ?',
  'Wie kann ich meine Bestellung stornieren?', 'Wo finde ich meine Rechnung?', 'Wie ändere ich meine Lieferadresse?',
  'Come posso restituire un prodotto danneggiato?', 'Quanto costa la spedizione?', 'Come aggiorno il mio indirizzo email?',
  'Como faço para rastrear meu pedido?', 'Posso trocar um produto com defeito?', 'Como excluir minha conta?',
  'كيف أسترد أموالي؟', 'أين طلبي؟', 'كيف أغير كلمة المرور؟',
  'मैं अपना पासवर्ड कैसे बदलूँ?', 'मेरा ऑर्डर कहाँ है?', 'मैं रिफंड कैसे पाऊँ?',
  '비밀번호를 어떻게 재설정하나요?', '주문을 취소하려면 어떻게 하나요?', '배송비는 얼마인가요?',
  '如何重置我的密码？', '我的订单在哪里？', '如何申请退款？',
  'パスワードをリセットするにはどうすればいいですか？', '注文をキャンセルできますか？', '返品の方法を教えてください',
];

const QUERY_TEMPLATES = ['{}', 'how do i {}', 'how can i {}?', 'what is the {}', 'why is my {} not there', '{} please', 'can you {} for me', 'where do i find {}'];

function misspell(rng: () => number, word: string): string {
  const i = intBetween(rng, 1, Math.max(1, word.length - 2));
  const swapped = word.slice(0, i - 1) + word[i] + word[i - 1] + word.slice(i + 1);
  return swapped === word ? `${word}x` : swapped.replace(/^(.)/, '$1q');
}

/** `count` distinct queries (the first ones are the same whatever the count). */
export function buildQueries(vocab: Vocabulary, count = QUERY_COUNT * SEARCH_ROUNDS + WARMUP_QUERIES): BenchQuery[] {
  const rng = rngFrom(SEED + 2);
  const n = vocab.words.length;
  const fromRanks = (lo: number, hi: number): string => vocab.words[intBetween(rng, lo, Math.min(hi, n - 1))];
  const common = (): string => fromRanks(0, 149);
  const mid = (): string => fromRanks(150, 1499);
  const rare = (): string => fromRanks(1500, n - 1);
  const classes: QueryClass[] = [];
  for (let i = 0; i < count; i++) {
    const r = (i * 0.6180339887) % 1; // even spread of classes over the list
    classes.push(r < 0.2 ? 'common' : r < 0.55 ? 'mixed' : r < 0.7 ? 'rare' : r < 0.9 ? 'phrase' : 'typo');
  }
  const queries: BenchQuery[] = [];
  const seen = new Set<string>();
  for (const cls of classes) {
    for (;;) {
      const k = intBetween(rng, 2, 5);
      let words: string[] = [];
      if (cls === 'common') for (let i = 0; i < k; i++) words.push(common());
      else if (cls === 'rare') {
        for (let i = 0; i < k; i++) words.push(rare());
        if (rng() < 0.5) words[intBetween(rng, 0, k - 1)] = code(intBetween(rng, 0, CODE_SPACE - 1));
      }
      else if (cls === 'mixed') for (let i = 0; i < k; i++) words.push(pick(rng, [common, mid, mid, rare])());
      else if (cls === 'phrase') {
        const vertical = pick(rng, VERTICALS);
        words = pick(rng, DOMAIN_PHRASES[vertical]).split(' ');
        while (words.length < k) words.push(pick(rng, [common, mid, rare])());
      } else {
        for (let i = 0; i < k; i++) words.push(pick(rng, [common, mid, rare])());
        const j = intBetween(rng, 0, words.length - 1);
        words[j] = misspell(rng, words[j]);
      }
      const text = pick(rng, QUERY_TEMPLATES).replace('{}', words.join(' '));
      const terms = extractQueryTerms(text);
      if (terms.length < 2 || terms.length > 5 || seen.has(text)) continue;
      seen.add(text);
      queries.push({ text, cls, terms });
      break;
    }
  }
  return queries;
}

// ------------------------------------------------------------------------------------------------
// Loading

interface LoadResult {
  items: number;
  chunks: number;
  ms: number;
  mode: string;
}

async function loadViaService(service: KnowledgeService, vocab: Vocabulary): Promise<LoadResult> {
  const started = performance.now();
  let items = 0;
  let chunks = 0;
  let lastReport = started;
  for (const batch of corpusBatches(vocab, SERVICE_BATCH_ITEMS)) {
    await service.createMany(batch.map((p) => ({ ...p.input, attachments: [] })));
    items += batch.length;
    chunks += batch.reduce((n, p) => n + p.chunks.length, 0);
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      progress(`  ${chunks.toLocaleString('en-US')} chunks (${items.toLocaleString('en-US')} items) in ${((lastReport - started) / 1000).toFixed(0)} s`);
    }
  }
  return { items, chunks, ms: performance.now() - started, mode: `KnowledgeService.createMany, ${SERVICE_BATCH_ITEMS} items per call (one transaction each)` };
}

/** Multi-row INSERT statement for `rows` rows of `columns`, placeholders in the dialect's style. */
function multiRowInsert(dialect: Dialect, table: string, columns: string[], rows: number): string {
  let p = 0;
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) tuples.push(`(${columns.map(() => (dialect === 'postgres' ? `$${++p}` : '?')).join(', ')})`);
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`;
}

async function loadDirect(dataSource: DataSource, vocab: Vocabulary): Promise<LoadResult> {
  const dialect = dialectOf(dataSource);
  const started = performance.now();
  let items = 0;
  let chunks = 0;
  let stamp = Date.now();
  let lastReport = started;
  const chunkRowsPerInsert = 1000;
  for (const batch of corpusBatches(vocab, DIRECT_BATCH_ITEMS)) {
    await dataSource.transaction(async (manager) => {
      const itemParams: unknown[] = [];
      const chunkRows: unknown[][] = [];
      for (const planned of batch) {
        const id = cryptoId();
        const now = ++stamp;
        const { title, content, category, vertical, tags } = planned.input;
        itemParams.push(id, title, content, category ?? '', vertical, JSON.stringify(tags ?? []), now, now);
        planned.chunks.forEach((c, ord) => chunkRows.push([id, ord, vertical, title, c.text, c.tokenCount]));
      }
      const itemColumns = ['id', 'title', 'content', 'category', 'vertical', 'tags', 'created_at', 'updated_at'];
      await manager.query(multiRowInsert(dialect, 'knowledge_items', itemColumns, batch.length), itemParams);
      const chunkColumns = ['item_id', 'ord', 'vertical', 'title', 'text', 'token_count'];
      for (let i = 0; i < chunkRows.length; i += chunkRowsPerInsert) {
        const slice = chunkRows.slice(i, i + chunkRowsPerInsert);
        await manager.query(multiRowInsert(dialect, 'knowledge_chunks', chunkColumns, slice.length), slice.flat());
      }
    });
    items += batch.length;
    chunks += batch.reduce((n, p) => n + p.chunks.length, 0);
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      progress(`  ${chunks.toLocaleString('en-US')} chunks (${items.toLocaleString('en-US')} items) in ${((lastReport - started) / 1000).toFixed(0)} s`);
    }
  }
  return {
    items,
    chunks,
    ms: performance.now() - started,
    mode: `direct multi-row INSERTs, ${DIRECT_BATCH_ITEMS} items per transaction (indexed by the search index triggers)`,
  };
}

function cryptoId(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ------------------------------------------------------------------------------------------------
// Measuring

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = process.hrtime.bigint();
  const value = await work();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, value };
}

function likeSql(dialect: Dialect, terms: string[], operator?: 'LIKE' | 'ILIKE'): { sql: string; params: string[] } {
  const op = operator ?? (dialect === 'postgres' ? 'ILIKE' : 'LIKE');
  const params: string[] = [];
  const ors: string[] = [];
  for (const term of terms) {
    // Terms are letters and digits only (extractQueryTerms), so no LIKE wildcard needs escaping.
    const p = dialect === 'postgres' ? `$${params.length + 1}` : '?';
    params.push(`%${term}%`);
    ors.push(`title ${op} ${p} OR text ${op} ${p}`);
    if (dialect === 'sqlite') params.push(`%${term}%`);
  }
  return { sql: `SELECT id, item_id, ord, title, text FROM knowledge_chunks WHERE ${ors.join(' OR ')} LIMIT 10`, params };
}

/**
 * The same LIKE candidates, ranked by a LIKE relevance (per term: title match x TITLE_WEIGHT +
 * text match), best 10: every matching row has to be examined, as a ranking search must.
 */
function rankedLikeSql(dialect: Dialect, terms: string[]): { sql: string; params: string[] } {
  const op = dialect === 'postgres' ? 'ILIKE' : 'LIKE';
  const p = (i: number): string => (dialect === 'postgres' ? `$${i + 1}` : `?${i + 1}`);
  const hit = (column: string, i: number): string => (dialect === 'postgres' ? `(${column} ${op} ${p(i)})::int` : `(${column} ${op} ${p(i)})`);
  const where = terms.map((_, i) => `title ${op} ${p(i)} OR text ${op} ${p(i)}`).join(' OR ');
  const rank = terms.map((_, i) => `${hit('title', i)} * 4 + ${hit('text', i)}`).join(' + ');
  return {
    sql: `SELECT id, item_id, ord, title, text FROM knowledge_chunks WHERE ${where} ORDER BY ${rank} DESC, id LIMIT 10`,
    params: terms.map((t) => `%${t}%`),
  };
}

interface QueryTiming {
  query: BenchQuery;
  searchMs: number;
  /** search() on a new KnowledgeService (empty postings cache). */
  coldMs: number;
  retrieveMs: number;
  searchHits: number;
  likeMs?: number;
  likeHits?: number;
  /** Postgres: case-sensitive LIKE, same query. */
  caseLikeMs?: number;
  rankedLikeMs?: number;
}

interface TracedCall {
  sql: string;
  params: unknown[];
  ms: number;
}

/** Records every dataSource.query call while `on` (the bench wraps the instance, src/ is untouched). */
function traceQueries(dataSource: DataSource): { on: boolean; calls: TracedCall[] } {
  const tracer = { on: false, calls: [] as TracedCall[] };
  const original = dataSource.query.bind(dataSource);
  (dataSource as { query: (sql: string, params?: unknown[]) => Promise<unknown> }).query = async (sql: string, params?: unknown[]) => {
    if (!tracer.on) return original(sql, params);
    const t0 = process.hrtime.bigint();
    try {
      return await original(sql, params);
    } finally {
      tracer.calls.push({ sql, params: params ?? [], ms: Number(process.hrtime.bigint() - t0) / 1e6 });
    }
  };
  return tracer;
}

// ------------------------------------------------------------------------------------------------
// Formatting

function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

function fmtBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

function fmtRatio(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return x >= 10 ? `${x.toFixed(0)}x` : `${x.toFixed(2)}x`;
}

function table(header: string[], rows: string[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

// ------------------------------------------------------------------------------------------------
// One dialect

interface SizeRow {
  what: string;
  bytes: number;
  /** Compared with raw text when true. */
  index: boolean;
}

async function sizes(dataSource: DataSource): Promise<{ rawText: number; rawTitleText: number; rows: SizeRow[] }> {
  if (dialectOf(dataSource) === 'sqlite') {
    const [raw] = await dataSource.query(
      `SELECT sum(length(CAST(text AS BLOB))) AS text, sum(length(CAST(title AS BLOB))) AS title FROM knowledge_chunks`,
    );
    const stats: { name: string; bytes: number }[] = await dataSource.query(
      `SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY name`,
    );
    const of = (name: string): number => Number(stats.find((s) => s.name === name)?.bytes ?? 0);
    const [payload] = await dataSource.query('SELECT sum(length(data)) AS bytes, count(*) AS rows FROM knowledge_postings');
    const tokenizer = stats.filter((s) => s.name.startsWith('knowledge_tokenizer')).reduce((n, s) => n + Number(s.bytes), 0);
    const index = of('knowledge_postings') + of('knowledge_search_chunks') + of('knowledge_search_stats') + tokenizer;
    const [pages] = await dataSource.query('SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()');
    return {
      rawText: Number(raw.text),
      rawTitleText: Number(raw.text) + Number(raw.title),
      rows: [
        {
          what: `search index: knowledge_postings ${fmtBytes(of('knowledge_postings'))} (${Number(payload.rows).toLocaleString('en-US')} rows, ${fmtBytes(Number(payload.bytes))} of headers and postings), knowledge_search_chunks ${fmtBytes(of('knowledge_search_chunks'))}, knowledge_search_stats ${fmtBytes(of('knowledge_search_stats'))}, empty tokenizer table ${fmtBytes(tokenizer)}`,
          bytes: index,
          index: true,
        },
        { what: 'knowledge_chunks table (the text itself)', bytes: of('knowledge_chunks'), index: false },
        { what: 'whole database file (items, chunks, indexes, search index)', bytes: Number(pages.bytes), index: false },
      ],
    };
  }
  const [raw] = await dataSource.query(
    `SELECT sum(octet_length(text))::float8 AS text, sum(octet_length(title))::float8 AS title,
            sum(pg_column_size(tsv))::float8 AS tsv
       FROM knowledge_chunks`,
  );
  const [rel] = await dataSource.query(
    `SELECT pg_total_relation_size('knowledge_postings')::float8 AS postings,
            pg_relation_size('knowledge_postings')::float8 AS heap,
            pg_indexes_size('knowledge_postings')::float8 AS pkey,
            (SELECT sum(octet_length(data))::float8 FROM knowledge_postings) AS payload,
            (SELECT count(*)::float8 FROM knowledge_postings) AS rows,
            pg_total_relation_size('knowledge_search_stats')::float8 AS stats,
            pg_total_relation_size('knowledge_search_chunks')::float8 AS chunkinfo,
            pg_table_size('knowledge_chunks')::float8 AS chunks,
            pg_total_relation_size('knowledge_chunks')::float8 AS total`,
  );
  return {
    rawText: Number(raw.text),
    rawTitleText: Number(raw.text) + Number(raw.title),
    rows: [
      {
        what: `search index: knowledge_postings heap ${fmtBytes(Number(rel.heap))} + indexes (primary key, partial indexes for reads) ${fmtBytes(Number(rel.pkey))} (${Number(rel.rows).toLocaleString('en-US')} rows, ${fmtBytes(Number(rel.payload))} of headers and postings), knowledge_search_chunks ${fmtBytes(Number(rel.chunkinfo))}, knowledge_search_stats ${fmtBytes(Number(rel.stats))}`,
        bytes: Number(rel.postings) + Number(rel.chunkinfo) + Number(rel.stats),
        index: true,
      },
      { what: 'tsv column, stored (sum of pg_column_size; read only by the index triggers)', bytes: Number(raw.tsv), index: false },
      { what: 'knowledge_chunks heap + TOAST (text, tsv, ...)', bytes: Number(rel.chunks), index: false },
      { what: 'knowledge_chunks total (heap + its indexes)', bytes: Number(rel.total), index: false },
    ],
  };
}

async function explain(dataSource: DataSource, call: TracedCall): Promise<string> {
  if (dialectOf(dataSource) === 'sqlite') {
    const rows: { id: number; parent: number; detail: string }[] = await dataSource.query(`EXPLAIN QUERY PLAN ${call.sql}`, call.params);
    const depth = new Map<number, number>([[0, -1]]);
    return rows
      .map((r) => {
        const d = (depth.get(r.parent) ?? -1) + 1;
        depth.set(r.id, d);
        return `${'  '.repeat(d)}${r.detail}`;
      })
      .join('\n');
  }
  const rows: { 'QUERY PLAN': string }[] = await dataSource.query(`EXPLAIN (ANALYZE, BUFFERS) ${call.sql}`, call.params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** Reads the chunks table and every structure of the search index once (see benchDialect). */
async function readAllPages(dataSource: DataSource, dialect: Dialect): Promise<void> {
  await dataSource.query('SELECT sum(length(title)) + sum(length(text)) AS n FROM knowledge_chunks');
  if (dialect === 'sqlite') {
    await dataSource.query('SELECT count(*) AS n, sum(length(data)) AS bytes FROM knowledge_postings');
    await dataSource.query('SELECT sum(length(data)) AS bytes FROM knowledge_search_chunks');
    return;
  }
  await dataSource.query('SELECT count(*) AS n, sum(octet_length(data)) AS bytes FROM knowledge_postings');
  await dataSource.query('SELECT sum(octet_length(data)) AS bytes FROM knowledge_search_chunks');
  // The indexes searches read: walked through, as an index scan would (a table scan does not
  // read them).
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SET enable_seqscan = off');
    await runner.query('SET enable_bitmapscan = off');
    await runner.query(`SELECT count(*) AS n FROM knowledge_postings WHERE term >= '' AND octet_length(data) <= 1024`);
    await runner.query(`SELECT count(*) AS n FROM knowledge_postings WHERE term >= '' AND octet_length(data) > 1024`);
    await runner.query('SELECT count(*) AS n FROM knowledge_chunks WHERE id > 0');
  } finally {
    await runner.query('RESET enable_seqscan');
    await runner.query('RESET enable_bitmapscan');
    await runner.release();
  }
}

async function medianMs(work: () => Promise<unknown>, runs = 3): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push((await timed(work)).ms);
  return percentile(times, 50);
}

/**
 * Re-times the slowest statement of a search, and cut-down forms of it, to show where its time
 * goes, then the whole search() warm and cold. Only read queries and per-connection settings of
 * the bench database; src/ is unchanged.
 */
async function variants(dataSource: DataSource, call: TracedCall, whole: [string, () => Promise<unknown>][]): Promise<string[][]> {
  const rows: string[][] = [];
  const add = async (label: string, work: () => Promise<unknown>): Promise<void> => {
    rows.push([label, fmtMs(await medianMs(work))]);
  };
  await add('as issued', () => dataSource.query(call.sql, call.params));
  if (call.sql.includes('knowledge_postings')) {
    if (dialectOf(dataSource) === 'sqlite') {
      const terms = call.params as string[];
      const list = terms.map(() => '?').join(', ');
      await add('same terms, number and bytes of their postings rows only (nothing transferred)', () =>
        dataSource.query(`SELECT count(*) AS n, sum(length(data)) AS bytes FROM knowledge_postings WHERE term IN (${list})`, terms),
      );
      const [{ cache_size: cacheSize }] = await dataSource.query('PRAGMA cache_size');
      await dataSource.query('PRAGMA cache_size = -262144');
      try {
        await dataSource.query(call.sql, call.params);
        await add(`as issued, PRAGMA cache_size = 256 MiB (set: ${cacheSize}: ${Number(cacheSize) < 0 ? `${-Number(cacheSize) / 1024} MiB` : `${cacheSize} pages`})`, () =>
          dataSource.query(call.sql, call.params),
        );
      } finally {
        await dataSource.query(`PRAGMA cache_size = ${Number(cacheSize)}`);
      }
    } else {
      await add('same terms, number and bytes of their postings rows only (nothing transferred)', () =>
        dataSource.query('SELECT count(*) AS n, sum(octet_length(data)) AS bytes FROM knowledge_postings WHERE term = ANY ($1::text[])', [call.params[0]]),
      );
    }
  }
  for (const [label, work] of whole) await add(label, work);
  return rows;
}

function oneLine(sql: string, max = 160): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Chunks containing the term (its postings in the search index). */
async function documentFrequency(dataSource: DataSource, term: string): Promise<number> {
  if (dialectOf(dataSource) === 'sqlite') {
    const stems = fts5Tokens(term);
    if (stems.length === 0) return 0;
    const [row] = await dataSource.query(
      `SELECT coalesce(sum(length(data)), 0) / ${POSTING_BYTES} AS n FROM knowledge_postings WHERE term IN (${stems.map(() => '?').join(', ')})`,
      stems,
    );
    return Number(row.n);
  }
  const [row] = await dataSource.query(
    `SELECT coalesce(sum(octet_length(data)), 0)::int / ${POSTING_BYTES} AS n FROM knowledge_postings
      WHERE term = ANY (tsvector_to_array(to_tsvector('english', $1)))`,
    [term],
  );
  return Number(row.n);
}

/** One line per dialect for the closing summary. */
interface DialectSummary {
  label: string;
  chunks: number;
  searchP50: number;
  searchP95: number;
  likeP50: number;
  likeP95: number;
  speedP50: number;
  speedP95: number;
  indexBytes: number;
  rawBytes: number;
}
const summaries: DialectSummary[] = [];

function summaryTable(): string {
  return table(
    ['Dialect', 'chunks', 'search p50', 'search p95', 'ranked LIKE p50', 'ranked LIKE p95', 'speed-up p50', 'speed-up p95', 'index size (Postgres: with the tsv column)', 'raw text', 'index / raw', 'goals met'],
    summaries.map((d) => [
      d.label,
      d.chunks.toLocaleString('en-US'),
      fmtMs(d.searchP50),
      fmtMs(d.searchP95),
      fmtMs(d.likeP50),
      fmtMs(d.likeP95),
      fmtRatio(d.speedP50),
      fmtRatio(d.speedP95),
      fmtBytes(d.indexBytes),
      fmtBytes(d.rawBytes),
      fmtRatio(d.indexBytes / d.rawBytes),
      d.searchP95 <= GOAL_P95_MS && d.speedP50 >= GOAL_SPEEDUP && d.speedP95 >= GOAL_SPEEDUP ? '**yes**' : '**no**',
    ]),
  );
}

async function benchDialect(label: string, dataSource: DataSource, vocab: Vocabulary, queries: BenchQuery[]): Promise<string> {
  const dialect = dialectOf(dataSource);
  const tracer = traceQueries(dataSource);
  const service = knowledgeServiceOn(dataSource);
  const out: string[] = [];

  // createMany also writes attachments: it needs their entity and table. Without them (a working
  // tree where they are not registered) the bench loads directly and says so.
  let mode = LOAD_MODE;
  let modeNote = '';
  if (mode === 'service' && !dataSource.hasMetadata(KnowledgeAttachment)) {
    mode = 'direct';
    modeNote = ' (BENCH_KB_LOAD=service asked, but KnowledgeAttachment is not among the DataSource entities, so createMany cannot run: loaded directly)';
  }
  const [existing] = await dataSource.query('SELECT count(*) AS n FROM knowledge_chunks');
  let load: LoadResult;
  if (Number(existing.n) > 0) {
    // A kept database (BENCH_KB_DATA_DIR) from an earlier run.
    load = { items: 0, chunks: Number(existing.n), ms: 0, mode: `an earlier run (BENCH_KB_DATA_DIR, ${Number(existing.n).toLocaleString('en-US')} chunks already there)` };
    progress(`${label}: ${load.mode}`);
  } else {
    progress(`${label}: loading ${TARGET_CHUNKS.toLocaleString('en-US')} chunks (${mode})${modeNote}`);
    load = mode === 'service' ? await loadViaService(service, vocab) : await loadDirect(dataSource, vocab);
  }
  load.mode += modeNote;
  progress(`${label}: loaded in ${(load.ms / 1000).toFixed(1)} s`);
  let maintenance = '';
  const maintenanceStart = performance.now();
  if (dialect === 'postgres') {
    // What autovacuum would do soon after a bulk load: set the visibility maps and gather
    // statistics.
    await dataSource.query('VACUUM (ANALYZE) knowledge_chunks');
    await dataSource.query('VACUUM (ANALYZE) knowledge_items');
    await dataSource.query('VACUUM (ANALYZE) knowledge_postings');
    maintenance = 'VACUUM (ANALYZE) after the load';
  } else {
    await dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
    maintenance = 'WAL checkpoint after the load (no ANALYZE: the app does none)';
  }
  const maintenanceMs = performance.now() - maintenanceStart;
  const [counts] = await dataSource.query(
    'SELECT (SELECT count(*) FROM knowledge_items) AS items, (SELECT count(*) FROM knowledge_chunks) AS chunks, (SELECT avg(token_count) FROM knowledge_chunks) AS words',
  );

  // The load's garbage is not the searches' to collect (run with --expose-gc, as `npm run bench` does).
  (globalThis as { gc?: () => void }).gc?.();
  // Both sides read from a warm page cache: the chunks table (what the LIKE scans read, and the
  // rows search fetches) and the search index are each read once in full before anything is
  // measured. This machine's page cache is small and reclaimed: without this, whichever side
  // ran first paid for reading its pages from disk (search's p95 went from 4 to 8 ms when the
  // run came right after another program had filled the cache).
  progress(`${label}: reading the table and the search index once (page cache)`);
  const pagesStarted = performance.now();
  await readAllPages(dataSource, dialect);
  const pagesMs = performance.now() - pagesStarted;
  // What a started server does in the background (KnowledgeService.onApplicationBootstrap).
  progress(`${label}: warming the search cache`);
  const warmed = await service.warmSearchCache();
  // Warm-up: the queries after the measured ones (distinct from them).
  const measured = queries.slice(0, QUERY_COUNT * SEARCH_ROUNDS);
  const warmup = queries.slice(measured.length, measured.length + WARMUP_QUERIES);
  progress(`${label}: warm-up, ${warmup.length} queries`);
  for (const q of warmup) await service.search(q.text, { limit: 10 });

  // search() and retrieve() are measured in SEARCH_ROUNDS rounds of QUERY_COUNT distinct queries,
  // spread over the run: the first before the LIKE passes, the others between parts of the
  // ranked LIKE pass and after it. Both sides thus meet the same moments of this machine (a pass
  // of 200 searches lasts about a second, the ranked LIKE pass a minute or more).
  const timings: QueryTiming[] = measured.map((query) => ({ query, searchMs: NaN, retrieveMs: NaN, coldMs: NaN, searchHits: 0 }));
  const loadAtSearch: number[][] = [];
  let searchTotalMs = 0;
  const measureRound = async (round: number): Promise<void> => {
    progress(`${label}: measuring search() and retrieve(), round ${round + 1}/${SEARCH_ROUNDS}`);
    loadAtSearch.push(os.loadavg());
    const started = performance.now();
    for (const t of timings.slice(round * QUERY_COUNT, (round + 1) * QUERY_COUNT)) {
      if (searchTotalMs + (performance.now() - started) > SEARCH_BUDGET_S * 1000) break;
      const s = await timed(() => service.search(t.query.text, { limit: 10 }));
      const r = await timed(() => service.retrieve(t.query.text));
      t.searchMs = s.ms;
      t.retrieveMs = r.ms;
      t.searchHits = s.value.length;
    }
    searchTotalMs += performance.now() - started;
  };
  await measureRound(0);

  // Questions in the other offered languages, searched through the English of their words
  // (src/retrieval/crosslingual: more terms per search). One unmeasured pass first: the lexicon,
  // the stemmers and CC-CEDICT are read on a process' first such question.
  progress(`${label}: retrieve() for ${FOREIGN_QUESTIONS.length} questions in other languages`);
  for (const q of FOREIGN_QUESTIONS) await service.retrieve(q);
  const foreignMs: number[] = [];
  for (let pass = 0; pass < 3; pass++) for (const q of FOREIGN_QUESTIONS) foreignMs.push((await timed(() => service.retrieve(q))).ms);

  // LIKE: an evenly spaced subset of the measured queries (of every round), run in an interleaved
  // order so that a pass cut short by its budget is still spread over the whole list.
  const likeCount = Math.min(LIKE_QUERY_COUNT, timings.length);
  const likeStep = timings.length / likeCount;
  const likeIdx = [...new Set(Array.from({ length: likeCount }, (_, i) => Math.floor(i * likeStep)))];
  const likeOrder = [...likeIdx.filter((_, i) => i % 2 === 0), ...likeIdx.filter((_, i) => i % 2 === 1)];
  progress(`${label}: LIKE scan over ${likeIdx.length} of the queries (budget ${LIKE_BUDGET_S} s)`);
  // Warm the table's pages (a full scan) so LIKE is not charged for the first read from disk.
  // Then time it again: what LIKE costs when nothing lets it stop early (1 term, no match).
  const cold = likeSql(dialect, ['zzqqzzunmatched']);
  await dataSource.query(cold.sql, cold.params);
  const fullScanMs = await medianMs(() => dataSource.query(cold.sql, cold.params));
  const likeStarted = performance.now();
  let lastReport = likeStarted;
  let likeDone = 0;
  for (const i of likeOrder) {
    if (performance.now() - likeStarted > LIKE_BUDGET_S * 1000) break;
    const { sql, params } = likeSql(dialect, timings[i].query.terms);
    const l = await timed(() => dataSource.query(sql, params) as Promise<unknown[]>);
    timings[i].likeMs = l.ms;
    timings[i].likeHits = l.value.length;
    if (dialect === 'postgres') {
      // Plain LIKE too: case-sensitive (misses capitalised words), but cheaper per row than ILIKE.
      const cs = likeSql(dialect, timings[i].query.terms, 'LIKE');
      timings[i].caseLikeMs = (await timed(() => dataSource.query(cs.sql, cs.params))).ms;
    }
    likeDone++;
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      progress(`  LIKE ${likeDone}/${likeIdx.length}`);
    }
  }
  const likeTotalMs = performance.now() - likeStarted;

  // Ranked LIKE: the same subset and order, in SEARCH_ROUNDS - 1 parts with a search round after
  // each; it has to examine every matching row.
  progress(`${label}: ranked LIKE scan over ${likeIdx.length} of the queries (budget ${RANKED_LIKE_BUDGET_S} s)`);
  const parts = Math.max(1, SEARCH_ROUNDS - 1);
  let rankedTotalMs = 0;
  let rankedDone = 0;
  for (let part = 0; part < parts; part++) {
    const started = performance.now();
    lastReport = started;
    for (const i of likeOrder.slice(Math.round((part * likeOrder.length) / parts), Math.round(((part + 1) * likeOrder.length) / parts))) {
      if (rankedTotalMs + (performance.now() - started) > RANKED_LIKE_BUDGET_S * 1000) break;
      const { sql, params } = rankedLikeSql(dialect, timings[i].query.terms);
      timings[i].rankedLikeMs = (await timed(() => dataSource.query(sql, params))).ms;
      rankedDone++;
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        progress(`  ranked LIKE ${rankedDone}/${likeIdx.length}`);
      }
    }
    rankedTotalMs += performance.now() - started;
    if (part + 1 < SEARCH_ROUNDS) await measureRound(part + 1);
  }
  const loadAfter = os.loadavg();

  // The same searches on a service with nothing cached (what a search before the warm-up after
  // a start or a write costs), in a pass of their own so that their garbage does not land on the measured passes.
  progress(`${label}: search() with an empty postings cache`);
  for (const t of timings) {
    if (Number.isNaN(t.searchMs)) continue;
    const fresh = knowledgeServiceOn(dataSource);
    t.coldMs = (await timed(() => fresh.search(t.query.text, { limit: 10 }))).ms;
  }

  // Queries a budget left unmeasured are left out.
  const all = timings.filter((t) => !Number.isNaN(t.searchMs));
  const withLike = all.filter((t) => t.likeMs !== undefined);
  const searchMs = all.map((t) => t.searchMs);
  const retrieveMs = all.map((t) => t.retrieveMs);
  const subsetSearch = withLike.map((t) => t.searchMs);
  const subsetLike = withLike.map((t) => t.likeMs as number);
  const perQueryRatio = withLike.map((t) => (t.likeMs as number) / t.searchMs);
  const caseLike = withLike.filter((t) => t.caseLikeMs !== undefined).map((t) => t.caseLikeMs as number);
  const withRanked = all.filter((t) => t.rankedLikeMs !== undefined);
  const rankedSearch = withRanked.map((t) => t.searchMs);
  const rankedLike = withRanked.map((t) => t.rankedLikeMs as number);
  const rankedRatio = withRanked.map((t) => (t.rankedLikeMs as number) / t.searchMs);
  const rankedP50 = percentile(rankedLike, 50) / percentile(all.map((t) => t.searchMs), 50);
  const rankedP95 = percentile(rankedLike, 95) / percentile(all.map((t) => t.searchMs), 95);
  const coldMs = all.map((t) => t.coldMs);
  const p50 = percentile(searchMs, 50);
  const p95 = percentile(searchMs, 95);
  const speedP50 = percentile(subsetLike, 50) / percentile(subsetSearch, 50);
  const speedP95 = percentile(subsetLike, 95) / percentile(subsetSearch, 95);
  const speedMedian = percentile(perQueryRatio, 50);
  const slowerThanLike = perQueryRatio.filter((r) => r < 1).length;
  const yesNo = (ok: boolean): string => (ok ? '**yes**' : '**no**');

  out.push(`## ${label}`);
  out.push('');
  out.push(
    `${Number(counts.chunks).toLocaleString('en-US')} chunks in ${Number(counts.items).toLocaleString('en-US')} items ` +
      `(${Number(counts.words).toFixed(0)} words per chunk on average). Built in ${(load.ms / 1000).toFixed(1)} s via ${load.mode}; ` +
      `${maintenance} ${(maintenanceMs / 1000).toFixed(1)} s. ` +
      `search() + retrieve() measured on ${all.length} of ${measured.length} queries` +
      `${all.length < measured.length ? ` (the ${SEARCH_BUDGET_S} s budget ran out)` : ''}, in ${SEARCH_ROUNDS} rounds of ${QUERY_COUNT} distinct queries ` +
      `(${SEARCH_ROUNDS > 1 ? 'the first before the LIKE passes, the others between parts of the ranked LIKE pass and after it' : 'before the LIKE passes'}), ${(searchTotalMs / 1000).toFixed(1)} s in all, after reading the table and the search index once (${(pagesMs / 1000).toFixed(1)} s, see above) and the server's search cache warm-up ` +
      `(${warmed.terms} frequent terms, ${fmtBytes(warmed.bytes)} of postings and impacts, ${(warmed.ms / 1000).toFixed(2)} s) and ${warmup.length} unmeasured warm-up searches; ` +
      `LIKE on ${withLike.length} of them (every ${likeStep.toFixed(1)}th${withLike.length < likeIdx.length ? `, ${likeIdx.length - withLike.length} skipped: ${LIKE_BUDGET_S} s budget` : ''}), ${(likeTotalMs / 1000).toFixed(1)} s; ` +
      `ranked LIKE on ${withRanked.length}${withRanked.length < likeIdx.length ? ` (${likeIdx.length - withRanked.length} skipped: ${RANKED_LIKE_BUDGET_S} s budget)` : ''}, ${(rankedTotalMs / 1000).toFixed(1)} s. ` +
      `Load average (1/5/15 min) when each search() round began: ${loadAtSearch.map((avg) => avg.map((l) => l.toFixed(2)).join(' / ')).join('; ')}; after the LIKE passes: ${loadAfter.map((l) => l.toFixed(2)).join(' / ')} (${os.cpus().length} cores).`,
  );
  out.push('');
  out.push(
    table(
      ['Measure', 'queries', 'p50', 'p95', 'max', 'goal', 'met'],
      [
        ['`KnowledgeService.search(q, {limit: 10})`', String(all.length), fmtMs(p50), fmtMs(p95), fmtMs(Math.max(...searchMs)), `p95 <= ${GOAL_P95_MS} ms`, yesNo(p95 <= GOAL_P95_MS)],
        ...(SEARCH_ROUNDS > 1
          ? Array.from({ length: SEARCH_ROUNDS }, (_, round) => {
              const ms = timings.slice(round * QUERY_COUNT, (round + 1) * QUERY_COUNT).map((t) => t.searchMs).filter((v) => !Number.isNaN(v));
              return [`  search(), round ${round + 1} of ${SEARCH_ROUNDS}`, String(ms.length), fmtMs(percentile(ms, 50)), fmtMs(percentile(ms, 95)), ms.length > 0 ? fmtMs(Math.max(...ms)) : '–', '', ''];
            })
          : []),
        ['`KnowledgeService.retrieve(q)` (200 candidates, thesaurus expansion)', String(all.length), fmtMs(percentile(retrieveMs, 50)), fmtMs(percentile(retrieveMs, 95)), fmtMs(Math.max(...retrieveMs)), '–', ''],
        ['  retrieve(q), questions in the 10 other languages (3 passes)', String(foreignMs.length), fmtMs(percentile(foreignMs, 50)), fmtMs(percentile(foreignMs, 95)), fmtMs(Math.max(...foreignMs)), `p95 <= ${GOAL_P95_MS} ms`, yesNo(percentile(foreignMs, 95) <= GOAL_P95_MS)],
        ['`search()` with an empty postings cache (new KnowledgeService per query, not warmed: a search before the warm-up that follows a start or a write)', String(all.length), fmtMs(percentile(coldMs, 50)), fmtMs(percentile(coldMs, 95)), fmtMs(Math.max(...coldMs)), '', ''],
        ['`search()` on the LIKE subset', String(withRanked.length), fmtMs(percentile(rankedSearch, 50)), fmtMs(percentile(rankedSearch, 95)), fmtMs(Math.max(...rankedSearch)), '', ''],
        [`ranked LIKE scan, the yardstick (same WHERE, \`ORDER BY\` title/text LIKE hits \`DESC LIMIT 10\`: like search(), it must examine every match), same queries`, String(withRanked.length), fmtMs(percentile(rankedLike, 50)), fmtMs(percentile(rankedLike, 95)), fmtMs(Math.max(...rankedLike)), '', ''],
        ['**Speed-up ranked LIKE / search: ratio of p50s, ratio of p95s** (search() over all the queries)', String(withRanked.length), fmtRatio(rankedP50), fmtRatio(rankedP95), '', `>= ${GOAL_SPEEDUP}x`, yesNo(rankedP50 >= GOAL_SPEEDUP && rankedP95 >= GOAL_SPEEDUP)],
        ['Speed-up ranked LIKE / search per query (median; min)', String(withRanked.length), fmtRatio(percentile(rankedRatio, 50)), `min ${fmtRatio(Math.min(...rankedRatio))}`, '', `>= ${GOAL_SPEEDUP}x`, yesNo(percentile(rankedRatio, 50) >= GOAL_SPEEDUP)],
        [`For scale: unranked LIKE scan that stops at the first 10 matches (\`title ${dialect === 'postgres' ? 'ILIKE' : 'LIKE'} '%w%' OR text ... LIMIT 10\`; not the same job: no ranking, any 10 rows), same queries`, String(withLike.length), fmtMs(percentile(subsetLike, 50)), fmtMs(percentile(subsetLike, 95)), fmtMs(Math.max(...subsetLike)), '', ''],
        [`LIKE full scan, for scale: 1 term matching nothing (\`... LIKE '%zzqqzzunmatched%' ...\`), median of 3`, '1', fmtMs(fullScanMs), '', '', '', ''],
        ['Unranked LIMIT 10 LIKE / search: ratio of p50s, ratio of p95s; per query median', String(withLike.length), fmtRatio(speedP50), fmtRatio(speedP95), `median ${fmtRatio(speedMedian)} (search slower on ${slowerThanLike}/${withLike.length})`, '', ''],
        ...(dialect === 'postgres'
          ? [
              ['For scale: the unranked LIMIT 10 scan with case-sensitive `LIKE` instead of ILIKE (misses capitalised words), same queries', String(caseLike.length), fmtMs(percentile(caseLike, 50)), fmtMs(percentile(caseLike, 95)), fmtMs(Math.max(...caseLike)), '', ''],
              ['Unranked LIMIT 10 LIKE (case-sensitive) / search: ratio of p50s, ratio of p95s', String(caseLike.length), fmtRatio(percentile(caseLike, 50) / percentile(subsetSearch, 50)), fmtRatio(percentile(caseLike, 95) / percentile(subsetSearch, 95)), '', '', ''],
            ]
          : []),
      ],
    ),
  );
  out.push('');

  // Per query class.
  const classes: QueryClass[] = ['common', 'mixed', 'rare', 'phrase', 'typo'];
  const classDesc: Record<QueryClass, string> = {
    common: 'common (top-150 words)',
    mixed: 'mixed common/mid/rare',
    rare: 'rare (tail words, codes)',
    phrase: 'domain phrase + words',
    typo: 'one misspelt word',
  };
  out.push(
    table(
      ['Query class', 'n', 'search p50', 'search p95', 'retrieve p95', 'avg hits', 'ranked LIKE n', 'ranked LIKE p50', 'ranked LIKE p95', 'speed-up (median per query)'],
      classes.map((cls) => {
        const of = all.filter((t) => t.query.cls === cls);
        const lk = of.filter((t) => t.rankedLikeMs !== undefined);
        return [
          classDesc[cls],
          String(of.length),
          fmtMs(percentile(of.map((t) => t.searchMs), 50)),
          fmtMs(percentile(of.map((t) => t.searchMs), 95)),
          fmtMs(percentile(of.map((t) => t.retrieveMs), 95)),
          (of.reduce((n, t) => n + t.searchHits, 0) / Math.max(1, of.length)).toFixed(1),
          String(lk.length),
          fmtMs(percentile(lk.map((t) => t.rankedLikeMs as number), 50)),
          fmtMs(percentile(lk.map((t) => t.rankedLikeMs as number), 95)),
          fmtRatio(percentile(lk.map((t) => (t.rankedLikeMs as number) / t.searchMs), 50)),
        ];
      }),
    ),
  );
  out.push('');

  progress(`${label}: sizes`);
  const size = await sizes(dataSource);
  summaries.push({
    label,
    chunks: Number(counts.chunks),
    searchP50: p50,
    searchP95: p95,
    likeP50: percentile(rankedLike, 50),
    likeP95: percentile(rankedLike, 95),
    speedP50: rankedP50,
    speedP95: rankedP95,
    // Postgres: the stored tsv column exists only for the index triggers, so it counts too.
    indexBytes: size.rows.filter((r) => r.index || r.what.startsWith('tsv column')).reduce((sum, r) => sum + r.bytes, 0),
    rawBytes: size.rawText,
  });
  out.push(
    table(
      ['Size', 'bytes', 'vs raw text'],
      [
        ['raw chunk text, sum of UTF-8 bytes of `text`', fmtBytes(size.rawText), '1.00x'],
        ['raw chunk title + text', fmtBytes(size.rawTitleText), fmtRatio(size.rawTitleText / size.rawText)],
        ...size.rows.map((r) => [r.index ? `**${r.what}**` : r.what, fmtBytes(r.bytes), fmtRatio(r.bytes / size.rawText)]),
      ],
    ),
  );
  out.push('');

  // Where the time goes: trace the slowest search() calls statement by statement.
  if (SLOWEST_TRACED > 0) {
    progress(`${label}: tracing the ${SLOWEST_TRACED} slowest search() calls`);
    out.push(`### ${label}: the ${SLOWEST_TRACED} slowest \`search()\` calls, statement by statement`);
    out.push('');
    const slowest = [...all].sort((a, b) => b.searchMs - a.searchMs).slice(0, SLOWEST_TRACED);
    for (const [n, t] of slowest.entries()) {
      const dfs = await Promise.all(t.query.terms.map(async (term) => `${term} (${(await documentFrequency(dataSource, term)).toLocaleString('en-US')})`));
      tracer.calls = [];
      tracer.on = true;
      const again = await timed(() => service.search(t.query.text, { limit: 10 }));
      tracer.on = false;
      const calls = tracer.calls;
      out.push(
        `${n + 1}. \`${t.query.text}\` (${t.query.cls}): measured ${fmtMs(t.searchMs)}, traced re-run ${fmtMs(again.ms)}; ` +
          `terms with the chunks containing them: ${dfs.join(', ')}`,
      );
      for (const call of calls) out.push(`   - ${fmtMs(call.ms)}: \`${oneLine(call.sql)}\``);
      if (n === 0) {
        // One plan per distinct statement (the slowest instance), skipping trivial ones.
        const byShape = new Map<string, TracedCall>();
        for (const call of calls) {
          const shape = call.sql.replace(/rowid IN \([^)]*\)/g, 'rowid IN (...)');
          if (call.ms >= 1 && (!byShape.has(shape) || byShape.get(shape)!.ms < call.ms)) byShape.set(shape, call);
        }
        for (const call of byShape.values()) {
          out.push('');
          out.push(`   Plan of \`${oneLine(call.sql, 80)}\`${dialect === 'postgres' ? ' (EXPLAIN ANALYZE, BUFFERS)' : ' (EXPLAIN QUERY PLAN)'}:`);
          out.push('');
          out.push('   ```');
          for (const line of (await explain(dataSource, call)).split('\n')) out.push(`   ${line}`);
          out.push('   ```');
        }
        // The ranking statement (the one the index issues per search), its slowest instance.
        const ranking = calls.filter((c) => c.sql.includes('knowledge_postings'));
        const slowestCall = [...(ranking.length > 0 ? ranking : calls)].sort((a, b) => b.ms - a.ms)[0];
        if (slowestCall) {
          out.push('');
          out.push(`   Variants of its slowest ranking statement (bench-only SQL; median of 3 runs each):`);
          out.push('');
          for (const line of table(['variant', 'ms'], await variants(dataSource, slowestCall, [
            ['whole search(), as measured (postings cache of the measuring service)', () => service.search(t.query.text, { limit: 10 })],
            ['whole search(), empty postings cache (new KnowledgeService)', () => knowledgeServiceOn(dataSource).search(t.query.text, { limit: 10 })],
          ])).split('\n')) out.push(`   ${line}`);
        }
      }
      out.push('');
    }
  }
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const vocab = buildVocabulary();
  const queries = buildQueries(vocab);
  progress(`vocabulary ${vocab.words.length} words, ${queries.length} queries`);
  // Each section is written as soon as it is complete.
  const emit = (text: string): void => {
    process.stdout.write(`${text}\n\n`);
  };
  emit([
    '# Knowledge search benchmark',
    '',
    `Host: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}. Corpus: seeded synthetic support text, ` +
      `${vocab.words.length.toLocaleString('en-US')}-word content vocabulary (Zipf-Mandelbrot, s = ${ZIPF_S}, offset ${CONTENT_RANK_OFFSET}) + function words + domain phrases + ` +
      `${CODE_SPACE.toLocaleString('en-US')} rare codes; `+
      `queries: 2-5 content terms each. Goals: search p95 <= ${GOAL_P95_MS} ms, >= ${GOAL_SPEEDUP}x faster than a LIKE scan that ranks (ratio of p50s and of p95s). ` +
      `Load average (1/5/15 min) at the start: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}.`,
  ].join('\n'));

  // SQLite. BENCH_KB_DATA_DIR keeps the database for the next run, which then skips the load.
  const keptDir = process.env.BENCH_KB_DATA_DIR?.trim();
  const dataDir = keptDir ? path.resolve(keptDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-knowledge-'));
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    const config = loadConfig({}, { dataDir, databaseUrl: undefined, databaseSchema: undefined, logLevel: 'error' });
    const dataSource = await openDataSource(config);
    try {
      const [version] = await dataSource.query('SELECT sqlite_version() AS v');
      emit(await benchDialect(`SQLite ${version.v} (inverted index, BM25 in process)`, dataSource, vocab, queries));
    } finally {
      await dataSource.destroy();
    }
  } finally {
    if (!keptDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }

  // Postgres.
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (databaseUrl) {
    // BENCH_KB_PG_SCHEMA keeps the data in that schema for the next run (which skips the load).
    const keptSchema = process.env.BENCH_KB_PG_SCHEMA?.trim();
    const schema = keptSchema || `bench_kb_${randomBytes(5).toString('hex')}`;
    const config = loadConfig({}, { dataDir: os.tmpdir(), databaseUrl, databaseSchema: schema, logLevel: 'error' });
    try {
      const dataSource = await openDataSource(config);
      try {
        const [version] = await dataSource.query(`SELECT current_setting('server_version') AS v`);
        emit(await benchDialect(`Postgres ${version.v} (inverted index, BM25 in process)`, dataSource, vocab, queries));
      } finally {
        await dataSource.destroy();
      }
    } finally {
      if (!keptSchema) await dropPostgresSchema(databaseUrl, schema);
    }
  } else {
    emit('Postgres: skipped (DATABASE_URL not set).');
  }
  emit(['## Summary', '', summaryTable()].join('\n'));
  emit(`Load average (1/5/15 min) at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')}.`);
}

// Run when started, not when a profiling script imports the corpus and queries.
if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench/knowledge failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
