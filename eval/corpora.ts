/**
 * The corpora `npm run eval` measures retrieval on.
 *
 * Four public FAQs written by others, read at run time from the Debian packages that install
 * them (their text is not part of this repository), split into one knowledge item per question
 * (the FAQ's question as the title, its answer as the content):
 *  - the Python FAQ (python3-doc): /usr/share/doc/python3.N/html/_sources/faq/*.rst.txt
 *  - the git FAQ (git-doc): /usr/share/doc/git-doc/gitfaq.txt
 *  - the zlib FAQ (zlib1g-dev): /usr/share/doc/zlib1g-dev/FAQ.gz
 *  - the Debian FAQ (debian-faq): /usr/share/doc/debian/FAQ/debian-faq.en.txt.gz (added later, held out)
 * And one corpus imported as a website (held out): Python's HOWTOs and tutorial, python3-doc's
 * HTML served on 127.0.0.1 and imported by the website importer, one item per page
 * (eval/site-corpus.ts).
 * All four are the support pages of a software product, so their items go to Customer Support.
 *
 * And the made-up Northwind help centre and handbook (test/fixtures/faq-corpus.ts). Ranking work is
 * tuned on the Python FAQ and Northwind (`tuned`); the git and zlib FAQs are held out: only their
 * figures are evidence that a change generalises.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FAQ_ITEMS, FAQ_QUESTIONS } from '../test/fixtures/faq-corpus';
import type { KnowledgeItemInput } from '../src/shared/contracts/knowledge';
import { pythonHtmlRoot, sitePages } from './site-corpus';

/** A knowledge item with the key questions name it by. */
export interface CorpusItem extends KnowledgeItemInput {
  key: string;
  content: string;
}

export interface EvalQuestion {
  /** ISO 639-1 code of the language the question is written in. */
  lang: string;
  q: string;
  /** Keys of the items that answer it; empty: the corpus does not cover it ("not found" is right). */
  expect: string[];
  /** The vertical the visitor asks in. */
  vertical: string;
}

export interface Corpus {
  name: string;
  /** Where it comes from (shown in the report). */
  source: string;
  /** true: ranking was tuned on it (reported apart from the held-out corpora). */
  tuned: boolean;
  items: CorpusItem[];
  questions: EvalQuestion[];
  /** A corpus imported through the website importer (eval/site-corpus.ts) from this HTML root; `items` is empty. */
  site?: { root: string; pages: string[] };
}

/** Thrown when a corpus' Debian package is not installed. */
export class MissingCorpusError extends Error {}

/** The newest installed Python documentation's FAQ sources (python3-doc installs /usr/share/doc/python3.N). */
function pythonFaqDir(): string {
  const docs = fs.existsSync('/usr/share/doc') ? fs.readdirSync('/usr/share/doc').filter((d) => /^python3\.\d+$/.test(d)) : [];
  docs.sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1]));
  const found = docs.map((d) => `/usr/share/doc/${d}/html/_sources/faq`).find((dir) => fs.existsSync(dir));
  return found ?? '/usr/share/doc/python3/html/_sources/faq';
}
const GIT_FAQ = '/usr/share/doc/git-doc/gitfaq.txt';
const ZLIB_FAQ = '/usr/share/doc/zlib1g-dev/FAQ.gz';
const DEBIAN_FAQ = '/usr/share/doc/debian/FAQ/debian-faq.en.txt.gz';
const VERTICAL = 'customer-service';
const QUESTIONS_DIR = path.join(__dirname, 'questions');

function readInstalled(file: string, pkg: string): string {
  if (!fs.existsSync(file)) {
    throw new MissingCorpusError(`${file} is missing: install the Debian package ${pkg} (sudo apt-get install ${pkg})`);
  }
  return file.endsWith('.gz') ? gunzipSync(fs.readFileSync(file)).toString('utf8') : fs.readFileSync(file, 'utf8');
}

function questionsOf(file: string, vertical: string): EvalQuestion[] {
  const data = JSON.parse(fs.readFileSync(path.join(QUESTIONS_DIR, file), 'utf8')) as { questions: Omit<EvalQuestion, 'vertical'>[] };
  return data.questions.map((q) => ({ ...q, vertical }));
}

function item(key: string, title: string, content: string): CorpusItem {
  return { key, title: title.replace(/\s+/g, ' ').trim().slice(0, 200), content: content.trim(), category: 'FAQ', vertical: VERTICAL, tags: ['faq'] };
}

/** Checks that every key a question names is an item of the corpus (a typo would count as a miss). */
function checked(corpus: Corpus): Corpus {
  const keys = new Set(corpus.site ? corpus.site.pages : corpus.items.map((i) => i.key));
  for (const q of corpus.questions) {
    for (const key of q.expect) if (!keys.has(key)) throw new Error(`${corpus.name}: "${q.q}" expects unknown item "${key}"`);
  }
  return corpus;
}

// ------------------------------------------------------------------------------------------------
// Python FAQ: reStructuredText. A heading is a line followed by an underline of one repeated
// punctuation character (with an optional overline); a question is a heading with text below it.

/** RST inline markup to plain text: roles, links, literals, emphasis, substitutions. */
function rstText(text: string): string {
  return text
    .replace(/:[a-z:]+:`([^`<]*?)\s*<[^>]*>`/g, '$1')
    .replace(/:[a-z:]+:`[~!]?([^`]*)`/g, '$1')
    .replace(/`([^`<]+?)\s*<[^>]+>`__?/g, '$1')
    .replace(/``([^`]+)``/g, '$1')
    .replace(/`([^`]+)`_{0,2}/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1$2')
    .replace(/\|([^|\s]+)\|/g, '$1');
}

/** The body of a question: directives, comments and labels left out; '::' before code becomes ':'. */
function rstBody(lines: string[]): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (/^\.\.\s/.test(line) || /^:[a-z]+:/.test(line)) {
      // A directive or comment, and its indented block unless it is code worth keeping.
      skipping = !/^\.\.\s+(code-block|sourcecode|code|doctest)::/.test(line);
      continue;
    }
    if (skipping && (line.trim() === '' || /^\s/.test(line))) continue;
    skipping = false;
    out.push(rstText(line).replace(/::\s*$/, ':'));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

export function parsePythonFaq(file: string, source: string): CorpusItem[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const isRule = (line: string | undefined): boolean => line !== undefined && /^([=\-~^*#"'+`])\1{2,}\s*$/.test(line);
  const headings: { title: string; at: number; bodyFrom: number }[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || /^\s/.test(line) || isRule(line) || !isRule(lines[i + 1])) continue;
    const overlined = isRule(lines[i - 1]);
    headings.push({ title: line.trim(), at: overlined ? i - 1 : i, bodyFrom: i + 2 });
  }
  const items: CorpusItem[] = [];
  headings.forEach((h, n) => {
    const end = n + 1 < headings.length ? headings[n + 1].at : lines.length;
    const body = rstBody(lines.slice(h.bodyFrom, end));
    if (body === '') return;
    items.push(item(`${file}#${h.title}`, rstText(h.title), body));
  });
  return items;
}

function pythonFaq(): Corpus {
  const dir = pythonFaqDir();
  if (!fs.existsSync(dir)) readInstalled(path.join(dir, 'general.rst.txt'), 'python3-doc');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.rst.txt') && f !== 'index.rst.txt')
    .sort();
  const items = files.flatMap((f) => parsePythonFaq(f.replace(/\.rst\.txt$/, ''), readInstalled(path.join(dir, f), 'python3-doc')));
  // Ranking weights, the floor, the confidence fit and the cross-language settings were chosen on
  // its questions (with Northwind's); the git and zlib FAQs are held out.
  return checked({ name: 'python-faq', source: `python3-doc ${dir}`, tuned: true, items, questions: questionsOf('python-faq.json', VERTICAL) });
}

// ------------------------------------------------------------------------------------------------
// git FAQ: AsciiDoc. Each entry is an [[anchor]] line, the question ending in '::', then the
// answer (continuation paragraphs joined by '+' lines), up to the next anchor or section.

/** AsciiDoc markup to plain text. */
function asciidocText(text: string): string {
  return text
    .replace(/linkgit:([\w-]+)\[(\d)\]/g, '$1($2)')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/(^|\s)_([^_]+)_(?=\s|[.,;:]|$)/g, '$1$2');
}

export function parseGitFaq(source: string): CorpusItem[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const items: CorpusItem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const anchor = /^\[\[([\w-]+)\]\]$/.exec(lines[i]);
    if (!anchor) continue;
    const question = lines[i + 1]?.replace(/::\s*$/, '') ?? '';
    const body: string[] = [];
    let j = i + 2;
    for (; j < lines.length; j++) {
      const line = lines[j];
      if (/^\[\[[\w-]+\]\]$/.test(line)) break;
      // A section heading: a line followed by a rule of dashes as long as it.
      if (line.trim() !== '' && /^-{3,}$/.test(lines[j + 1] ?? '') && (lines[j + 1] ?? '').length === line.length) break;
      if (line === '+') body.push('');
      else if (line === '----') continue;
      else body.push(line.replace(/^\t/, ''));
    }
    items.push(item(anchor[1], asciidocText(question), asciidocText(body.join('\n'))));
    i = j - 1;
  }
  return items;
}

function gitFaq(): Corpus {
  const items = parseGitFaq(readInstalled(GIT_FAQ, 'git-doc'));
  return checked({ name: 'git-faq', source: `git-doc ${GIT_FAQ}`, tuned: false, items, questions: questionsOf('git-faq.json', VERTICAL) });
}

// ------------------------------------------------------------------------------------------------
// zlib FAQ: plain text. Entries are numbered ("12. Can zlib handle .Z files?"); the question runs
// to the first blank line, the answer to the next entry.

export function parseZlibFaq(source: string): CorpusItem[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const starts: { n: string; at: number }[] = [];
  lines.forEach((line, i) => {
    const m = /^\s?(\d{1,2})\.\s+\S/.exec(line);
    if (m) starts.push({ n: m[1], at: i });
  });
  return starts.map(({ n, at }, k) => {
    const end = k + 1 < starts.length ? starts[k + 1].at : lines.length;
    const block = lines.slice(at, end);
    const blank = block.findIndex((line) => line.trim() === '');
    const questionLines = blank < 0 ? block : block.slice(0, blank);
    const question = questionLines.join(' ').replace(/^\s?\d{1,2}\.\s+/, '');
    const answer = (blank < 0 ? [] : block.slice(blank + 1)).map((line) => line.replace(/^ {4}/, '')).join('\n');
    return item(n, question, answer);
  });
}

function zlibFaq(): Corpus {
  const items = parseZlibFaq(readInstalled(ZLIB_FAQ, 'zlib1g-dev'));
  return checked({ name: 'zlib-faq', source: `zlib1g-dev ${ZLIB_FAQ}`, tuned: false, items, questions: questionsOf('zlib-faq.json', VERTICAL) });
}

// ------------------------------------------------------------------------------------------------
// Debian FAQ: plain text (DocBook rendered). After the table of contents, each entry starts at the
// line's beginning with its number ("7.12. How do I put a package on hold?"), the question running
// to the first blank line; the answer is indented, up to the next entry or chapter.

export function parseDebianFaq(source: string): CorpusItem[] {
  // The rendering puts no-break spaces after numbers ("Chapter\u00a01.", "1.1.\u00a0What").
  const lines = source.replace(/\r\n?/g, '\n').replace(/\u00a0/g, ' ').split('\n');
  const entry = /^(\d+(?:\.\d+)+)\.\s+\S/;
  const starts: { n: string; at: number }[] = [];
  let inBody = false;
  lines.forEach((line, i) => {
    if (/^Chapter \d+\./.test(line)) inBody = true;
    const m = inBody ? entry.exec(line) : null;
    if (m) starts.push({ n: m[1], at: i });
  });
  const items: CorpusItem[] = [];
  starts.forEach(({ n, at }, k) => {
    let end = k + 1 < starts.length ? starts[k + 1].at : lines.length;
    const block = lines.slice(at, end);
    const chapter = block.findIndex((line) => /^Chapter \d+\./.test(line));
    if (chapter > 0) end = at + chapter;
    const blank = block.findIndex((line) => line.trim() === '');
    const question = (blank < 0 ? block : block.slice(0, blank)).join(' ').replace(entry.exec(block[0]) ? /^\d+(?:\.\d+)+\.\s+/ : /^/, '');
    const answer = (blank < 0 ? [] : lines.slice(at + blank + 1, end)).map((line) => line.replace(/^ {4}/, '')).join('\n').trim();
    if (answer !== '') items.push(item(n, question, answer));
  });
  return items;
}

function debianFaq(): Corpus {
  const items = parseDebianFaq(readInstalled(DEBIAN_FAQ, 'debian-faq'));
  return checked({ name: 'debian-faq', source: `debian-faq ${DEBIAN_FAQ}`, tuned: false, items, questions: questionsOf('debian-faq.json', VERTICAL) });
}

// ------------------------------------------------------------------------------------------------
// Python's HOWTOs and tutorial as a website (python3-doc's HTML), imported page by page through the
// website importer when the eval runs (eval/site-corpus.ts). Held out.

function pythonDocsSite(): Corpus {
  const root = pythonHtmlRoot();
  if (!root) readInstalled('/usr/share/doc/python3/html/howto/index.html', 'python3-doc');
  const pages = sitePages(root!);
  return checked({
    name: 'python-docs-site',
    source: `python3-doc ${root}/{howto,tutorial} served on 127.0.0.1 and imported by the website importer`,
    tuned: false,
    items: [],
    questions: questionsOf('python-docs-site.json', VERTICAL),
    site: { root: root!, pages },
  });
}

// ------------------------------------------------------------------------------------------------

function northwind(): Corpus {
  return checked({
    name: 'northwind (tuned on)',
    source: 'test/fixtures/faq-corpus.ts (made up)',
    tuned: true,
    items: FAQ_ITEMS.map(({ key, ...rest }) => ({ key, ...rest })),
    questions: FAQ_QUESTIONS.map((q) => ({ lang: 'en', q: q.question, expect: [q.expected], vertical: q.vertical })),
  });
}

/** The corpora, public ones first; a missing Debian package throws MissingCorpusError naming it. */
export function loadCorpora(): Corpus[] {
  return [pythonFaq(), gitFaq(), zlibFaq(), debianFaq(), pythonDocsSite(), northwind()];
}
