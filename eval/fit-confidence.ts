/**
 * How the ranking weights and the confidence of src/retrieval/relevance.ts were chosen.
 *
 *   EVAL_DUMP=/tmp/eval.json npm run eval && npx ts-node --transpile-only eval/fit-confidence.ts /tmp/eval.json
 *
 * Reads the candidates `npm run eval` dumped (each question's best items with their features)
 * and, on the corpora it tunes on (EVAL_TUNE_ON, default the Python FAQ and Northwind; the git and
 * zlib FAQs are held out):
 *  1. grid-searches the ranking weights (titleBonus, coverageBonus) for the best mean of R@1 and
 *     MRR before any floor, and prints the held-out corpora's figures for the chosen weights;
 *  2. fits the match (matchOf), a logistic regression of "the first item is right" (unanswerable
 *     questions: never) on the first item's coverage, title coverage and lead over the second;
 *  3. prints the accuracy per band on the tuning and on the held-out corpora;
 *  4. fits the distinctness of the reply's confidence (replyConfidence: match x 1 / (1 + e^-(bias +
 *     a x lead))) on the replies of the `lexical` mode that cite something, by maximum likelihood
 *     of "the first source is right", and prints the resulting accuracy per confidence band, as
 *     `npm run eval` does, for every mode.
 */
import * as fs from 'node:fs';

interface Candidate {
  key: string;
  right: boolean;
  bm25Norm: number;
  coverage: number;
  ownCoverage: number;
  titleCoverage: number;
  relevance: number;
  match: number;
}
interface Outcome {
  corpus: string;
  mode: string;
  question: { q: string; lang: string; expect: string[] };
  /** Keys of the cited items, best first; rank: 1-based rank of the first right one, 0 when none. */
  cited: string[];
  rank: number;
  candidates?: Candidate[];
}

const outcomes: Outcome[] = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const tuneOn = (process.env.EVAL_TUNE_ON ?? 'python-faq,northwind').split(',');
const isTuning = (o: Outcome) => tuneOn.some((name) => o.corpus.startsWith(name));

function ranked(o: Outcome, title: number, coverage: number): (Candidate & { relevance: number })[] {
  return (o.candidates ?? []).map((c) => ({ ...c, relevance: c.bm25Norm + title * c.titleCoverage + coverage * c.coverage })).sort((a, b) => b.relevance - a.relevance);
}

function quality(set: Outcome[], title: number, coverage: number): { r1: number; r3: number; mrr: number } {
  const answerable = set.filter((o) => o.question.expect.length > 0);
  let r1 = 0;
  let r3 = 0;
  let mrr = 0;
  for (const o of answerable) {
    const rank = ranked(o, title, coverage).findIndex((c) => c.right) + 1;
    if (rank === 1) r1++;
    if (rank >= 1 && rank <= 3) r3++;
    if (rank > 0) mrr += 1 / rank;
  }
  const n = answerable.length || 1;
  return { r1: r1 / n, r3: r3 / n, mrr: mrr / n };
}

const tuning = outcomes.filter(isTuning);
const held = outcomes.filter((o) => !isTuning(o));
let best = { title: 0, coverage: 0, score: -1 };
// EVAL_WEIGHTS=title,coverage: keep those ranking weights (fit the confidence only).
const fixed = process.env.EVAL_WEIGHTS?.split(',').map(Number);
if (fixed?.length === 2) best = { title: fixed[0], coverage: fixed[1], score: 0 };
else for (let title = 0; title <= 3.001; title += 0.25) {
  for (let coverage = 0; coverage <= 3.001; coverage += 0.25) {
    const q = quality(tuning, title, coverage);
    const score = (q.r1 + q.mrr) / 2;
    if (score > best.score + 1e-9) best = { title, coverage, score };
  }
}
const fmt = (q: { r1: number; r3: number; mrr: number }) => `R@1 ${q.r1.toFixed(3)} R@3 ${q.r3.toFixed(3)} MRR ${q.mrr.toFixed(3)}`;
console.log(`ranking weights: titleBonus ${best.title}, coverageBonus ${best.coverage}`);
console.log(`  tuning (${tuneOn.join(', ')}): ${fmt(quality(tuning, best.title, best.coverage))}  (0/0: ${fmt(quality(tuning, 0, 0))})`);
console.log(`  held out:                 ${fmt(quality(held, best.title, best.coverage))}  (0/0: ${fmt(quality(held, 0, 0))})`);
for (const corpus of [...new Set(outcomes.map((o) => o.corpus))]) {
  const own = outcomes.filter((o) => o.corpus === corpus);
  console.log(`  ${corpus}: ${fmt(quality(own, best.title, best.coverage))}  (0/0: ${fmt(quality(own, 0, 0))})`);
}

/** The features the confidence is fitted on (EVAL_FEATURES=coverage,title,lead to try others). */
const FEATURES = (process.env.EVAL_FEATURES ?? 'coverage,title,lead').split(',');

/** Features of the first item: coverage, own coverage, title coverage, lead over the second. */
function features(o: Outcome): { x: number[]; y: number } | undefined {
  const list = ranked(o, best.title, best.coverage);
  if (list.length === 0) return undefined;
  const [first, second] = list;
  const lead = second && first.relevance > 0 ? 1 - second.relevance / first.relevance : 1;
  const all: Record<string, number> = { coverage: first.coverage, own: first.ownCoverage, title: first.titleCoverage, lead, bm: first.bm25Norm };
  return { x: FEATURES.map((name) => all[name]), y: first.right ? 1 : 0 };
}

const train = tuning.map(features).filter((f): f is { x: number[]; y: number } => f !== undefined);
const w = [0, ...FEATURES.map(() => 0)];
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const predict = (x: number[]) => sigmoid(x.reduce((z, v, k) => z + w[k + 1] * v, w[0]));
for (let epoch = 0; epoch < 20000; epoch++) {
  const grad = w.map(() => 0);
  for (const { x, y } of train) {
    const err = predict(x) - y;
    grad[0] += err;
    for (let k = 0; k < x.length; k++) grad[k + 1] += err * x[k];
  }
  // A little L2 regularisation (not on the bias) keeps the weights of correlated features sane.
  for (let k = 0; k < w.length; k++) w[k] -= (0.5 * grad[k]) / train.length + 0.0005 * (k > 0 ? w[k] : 0);
}
console.log(`confidence fit: bias ${w[0].toFixed(2)}, ${FEATURES.map((name, k) => `${name} ${w[k + 1].toFixed(2)}`).join(', ')}`);

function bands(label: string, set: Outcome[]): void {
  const rows = set.map(features).filter((f): f is { x: number[]; y: number } => f !== undefined);
  const edges = [0, 0.2, 0.35, 0.5, 0.7, 0.9, 1.01];
  const parts: string[] = [];
  for (let b = 0; b + 1 < edges.length; b++) {
    const inBand = rows.filter((r) => predict(r.x) >= edges[b] && predict(r.x) < edges[b + 1]);
    const right = inBand.filter((r) => r.y === 1).length;
    parts.push(`${edges[b].toFixed(2)}+: ${right}/${inBand.length}`);
  }
  console.log(`  ${label}: ${parts.join('  ')}`);
}
bands('tuning', tuning);
bands('held out', held);

/** R@1 after the floor (the first item right and cited) against the share of unanswerable questions answered "not found". */
function floors(label: string, set: Outcome[]): void {
  const parts: string[] = [];
  for (const floor of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]) {
    let r1 = 0;
    let answerable = 0;
    let notFound = 0;
    let unanswerable = 0;
    for (const o of set) {
      const f = features(o);
      const cited = f !== undefined && predict(f.x) >= floor;
      if (o.question.expect.length > 0) {
        answerable++;
        if (cited && f.y === 1) r1++;
      } else {
        unanswerable++;
        if (!cited) notFound++;
      }
    }
    parts.push(`floor ${floor}: R@1 ${(r1 / (answerable || 1)).toFixed(2)} not found ${(notFound / (unanswerable || 1)).toFixed(2)}`);
  }
  console.log(`  ${label}:\n    ${parts.join('\n    ')}`);
}
floors('tuning', tuning);
floors('held out', held);
floors('held out, English', held.filter((o) => o.question.lang === 'en'));

/** Ranking by a mix of BM25 and the confidence itself: relevance' = bm25Norm + mix x confidence. */
function byConfidence(set: Outcome[], mix: number): { r1: number; r3: number; mrr: number } {
  const conf = (c: Candidate) => 1 / (1 + Math.exp(-(w[0] + w[1] * c.coverage + w[2] * c.titleCoverage)));
  const answerable = set.filter((o) => o.question.expect.length > 0);
  let r1 = 0;
  let r3 = 0;
  let mrr = 0;
  for (const o of answerable) {
    const list = [...(o.candidates ?? [])].sort((a, b) => b.bm25Norm + mix * conf(b) - (a.bm25Norm + mix * conf(a)));
    const rank = list.findIndex((c) => c.right) + 1;
    if (rank === 1) r1++;
    if (rank >= 1 && rank <= 3) r3++;
    if (rank > 0) mrr += 1 / rank;
  }
  const n = answerable.length || 1;
  return { r1: r1 / n, r3: r3 / n, mrr: mrr / n };
}
if (FEATURES.join(',') === 'coverage,title') {
  for (const mix of [0, 0.1, 0.2, 0.3, 0.5, 1, 2]) console.log(`rank by bm25Norm + ${mix} x confidence: tuning ${fmt(byConfidence(tuning, mix))}; held out ${fmt(byConfidence(held, mix))}`);
}

// ------------------------------------------------------------------------------------------------
// 4. The reply's confidence: match x distinctness (src/retrieval/relevance.ts, replyConfidence).

/** The cited first source's match and its lead over the most relevant other candidate. */
function replyFeatures(o: Outcome): { match: number; lead: number } | undefined {
  const list = o.candidates ?? [];
  const first = list.find((c) => c.key === o.cited[0]);
  if (!first) return undefined;
  const runnerUp = list.filter((c) => c !== first).reduce<Candidate | undefined>((best, c) => (!best || c.relevance > best.relevance ? c : best), undefined);
  const lead = runnerUp && first.relevance > 0 ? Math.min(1, Math.max(0, 1 - runnerUp.relevance / first.relevance)) : 1;
  return { match: first.match, lead };
}

const replies = (set: Outcome[]) =>
  set.filter((o) => o.cited.length > 0).map((o) => ({ o, f: replyFeatures(o) })).filter((r): r is { o: Outcome; f: { match: number; lead: number } } => r.f !== undefined);
const distinct = [0, 0];
const replyConfidence = (f: { match: number; lead: number }) => f.match * sigmoid(distinct[0] + distinct[1] * f.lead);
const fitOn = replies(tuning.filter((o) => o.mode === 'lexical'));
for (let epoch = 0; epoch < 30000; epoch++) {
  const grad = [0, 0];
  for (const { o, f } of fitOn) {
    const y = o.rank === 1 ? 1 : 0;
    const q = sigmoid(distinct[0] + distinct[1] * f.lead);
    const p = Math.min(1 - 1e-9, Math.max(1e-9, f.match * q));
    // d(-log-likelihood)/dz for p = match x sigmoid(z).
    const d = -(y / p - (1 - y) / (1 - p)) * f.match * q * (1 - q);
    grad[0] += d;
    grad[1] += d * f.lead;
  }
  distinct[0] -= (0.3 * grad[0]) / fitOn.length;
  distinct[1] -= (0.3 * grad[1]) / fitOn.length;
}
console.log(`reply confidence, distinctness fit (lexical, tuning corpora): bias ${distinct[0].toFixed(2)}, lead ${distinct[1].toFixed(2)}`);
function replyBands(label: string, set: Outcome[]): void {
  const edges = [0, 0.3, 0.5, 0.7, 0.9, 1.01];
  const rows = replies(set);
  const parts: string[] = [];
  for (let b = 0; b + 1 < edges.length; b++) {
    const inBand = rows.filter((r) => replyConfidence(r.f) >= edges[b] && replyConfidence(r.f) < edges[b + 1]);
    parts.push(`${edges[b].toFixed(1)}+: ${inBand.filter((r) => r.o.rank === 1).length}/${inBand.length}`);
  }
  console.log(`  ${label}: ${parts.join('  ')}`);
}
for (const mode of [...new Set(outcomes.map((o) => o.mode))]) {
  const ofMode = outcomes.filter((o) => o.mode === mode);
  replyBands(`${mode}, tuning`, ofMode.filter(isTuning));
  replyBands(`${mode}, held out`, ofMode.filter((o) => !isTuning(o)));
  replyBands(`${mode}, all`, ofMode);
}
