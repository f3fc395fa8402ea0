/**
 * Splits a knowledge item's content into passages for the search index and the prompt.
 *
 * Passages are ~120-220 words, cut on paragraph, line and sentence boundaries (never inside a
 * word), and each one after the first repeats the tail of the previous one (a sentence or two) so
 * an answer that straddles a boundary is still found whole in one passage. A short item is one
 * passage; an item with no content is one empty passage, so its title is still searchable.
 *
 * Content is Markdown: a heading is where a passage prefers to start, and a table row, a list item
 * or a fenced code block is never cut (each is one unit; only one longer than the ceiling on its
 * own is split, a code block into fenced runs of lines). A passage under a heading starts with its
 * heading path as an italic line ("_Gift wrapping › Prices_"), so it still says what it is about
 * when read alone; `headingPath` gives the path above the content's own headings (an
 * attachment's name).
 */

export interface ChunkerOptions {
  /** A passage ends at a paragraph break once it has at least this many words. */
  minWords?: number;
  /** Hard ceiling per passage (overlap included); long sentences are split to respect it. */
  maxWords?: number;
  /** At most this many words are repeated from the end of the previous passage. */
  overlapWords?: number;
  /** Headings above the content's own (e.g. the attachment's name); default none. */
  headingPath?: string[];
}

export interface TextChunk {
  /** 0-based position in the item. */
  ord: number;
  text: string;
  /** Whitespace-separated words in `text` (the index's document length and a prompt-size guide). */
  tokenCount: number;
  /** The headings the passage sits under, outermost first (empty for content without headings). */
  headingPath: string[];
}

const DEFAULTS: Required<Omit<ChunkerOptions, 'headingPath'>> = { minWords: 120, maxWords: 220, overlapWords: 30 };

/** How a unit is joined to the one before it. */
type Separator = 'paragraph' | 'line' | 'space';

interface Unit {
  text: string;
  words: number;
  sep: Separator;
  /** The headings in force at this unit (a heading unit: including itself). */
  path: string[];
  /** A heading line. */
  heading?: boolean;
}

/** Sentence end: . ! ? or … optionally followed by closing quotes/brackets, then whitespace. */
const SENTENCE_BREAK = /(?<=[.!?\u2026]["'\u201d\u2019)\]]*)\s+/;

/** Whether a UTF-16 code unit is white space as `\s` defines it. */
function isSpace(c: number): boolean {
  return (
    c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Runs of non-space characters (what `text.trim().split(/\s+/)` counts), without building the array. */
function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const space = isSpace(text.charCodeAt(i));
    if (!space && !inWord) words += 1;
    inWord = !space;
  }
  return words;
}

/** Line endings to \n, trailing spaces off every line, at most one blank line in a row. */
function normalise(content: string): string {
  return content
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Breaks the text into sentence-sized units, remembering whether each one started a paragraph or
 * a line. A "sentence" longer than the ceiling (a pasted line with no punctuation) is cut into
 * evenly sized runs of whole words.
 */
/** `text.split(/\n\s*\n/)`, one paragraph at a time; a fenced code block is never split. */
function* paragraphsOf(text: string): Generator<string> {
  const breaks = /\n\s*\n/g;
  let start = 0;
  let fenced = text.includes('```') || text.includes('~~~');
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    if (fenced && insideFence(text.slice(start, m.index))) continue;
    yield text.slice(start, m.index);
    start = m.index + m[0].length;
    fenced = text.includes('```', start) || text.includes('~~~', start);
  }
  yield text.slice(start);
}

/** Whether `paragraph` opens a fenced code block it does not close. */
function insideFence(paragraph: string): boolean {
  let open: string | null = null;
  for (const line of paragraph.split('\n')) {
    const fence = FENCE.exec(line);
    if (!fence) continue;
    if (open === null) open = fence[1];
    else if (line.trim().startsWith(open)) open = null;
  }
  return open !== null;
}

/** A Markdown block: its lines, and whether it is one unit (a table row, list item, code block). */
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\S/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const FENCE = /^\s{0,3}(```+|~~~+)/;

function* toUnits(text: string, maxWords: number, minWords: number, basePath: string[] = []): Generator<Unit> {
  const pieceTarget = Math.max(1, Math.floor((minWords + maxWords) / 2));
  const levels: { level: number; text: string }[] = [];
  const path = () => [...basePath, ...levels.map((h) => h.text)];
  let p = -1;
  for (const paragraph of paragraphsOf(text)) {
    p += 1;
    const lines = paragraph.split('\n');
    for (let l = 0; l < lines.length; l += 1) {
      const line = lines[l];
      // How a unit starting this line joins the one before it.
      const lineSep: Separator = l > 0 ? 'line' : p > 0 ? 'paragraph' : 'space';
      const heading = HEADING.exec(line);
      if (heading) {
        const level = heading[1].length;
        while (levels.length > 0 && levels[levels.length - 1].level >= level) levels.pop();
        levels.push({ level, text: heading[2].replace(/[*_`]/g, '') });
        yield { text: line.trim(), words: countWords(line), sep: lineSep, path: path(), heading: true };
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        // paragraphsOf keeps a fenced block in one paragraph: it runs to its closing fence.
        const block = [line];
        let closed = false;
        for (l += 1; l < lines.length; l += 1) {
          block.push(lines[l]);
          if (lines[l].trim().startsWith(fence[1])) {
            closed = true;
            break;
          }
        }
        const at = path();
        let firstPiece = true;
        for (const body of codeRuns(block, closed, fence[1], maxWords)) {
          yield { text: body, words: countWords(body), sep: firstPiece ? lineSep : 'line', path: at };
          firstPiece = false;
        }
        continue;
      }
      if (TABLE_ROW.test(line) || LIST_ITEM.test(line)) {
        // A list item takes its indented continuation lines with it.
        let body = line;
        let end = l;
        while (LIST_ITEM.test(line) && end + 1 < lines.length && /^\s{2,}\S/.test(lines[end + 1]) && !LIST_ITEM.test(lines[end + 1])) body += `\n${lines[(end += 1)]}`;
        const words = countWords(body);
        if (words <= maxWords) {
          l = end;
          yield { text: body.trimEnd(), words, sep: lineSep, path: path() };
          continue;
        }
      }
      let first = true;
      for (const sentence of line.trim().split(SENTENCE_BREAK)) {
        const words = sentence.split(/\s+/).filter(Boolean);
        if (words.length === 0) continue;
        const pieces = words.length > maxWords ? Math.ceil(words.length / pieceTarget) : 1;
        const size = Math.ceil(words.length / pieces);
        for (let i = 0; i < words.length; i += size) {
          const slice = words.slice(i, i + size);
          yield { text: slice.join(' '), words: slice.length, sep: first ? lineSep : 'space', path: path() };
          first = false;
        }
      }
    }
  }
}

/** A fenced code block whole, or, longer than the ceiling, as several fenced runs of its lines. */
function* codeRuns(block: string[], closed: boolean, fence: string, maxWords: number): Generator<string> {
  const body = closed ? block : [...block, fence];
  if (countWords(body.join('\n')) <= maxWords) {
    yield body.join('\n');
    return;
  }
  const open = body[0];
  const inner = body.slice(1, -1);
  let run: string[] = [];
  let words = 0;
  for (const line of inner) {
    const w = countWords(line);
    if (run.length > 0 && words + w > maxWords - 2) {
      yield [open, ...run, fence].join('\n');
      run = [];
      words = 0;
    }
    run.push(line);
    words += w;
  }
  if (run.length > 0) yield [open, ...run, fence].join('\n');
}

/** The passage with its heading path as an italic first line ("_Gift wrapping › Prices_"). */
function withPath(body: string, path: string[]): string {
  if (path.length === 0) return body;
  const line = `_${path.join(' › ').replace(/_/g, '\\_')}_`;
  return body ? `${line}\n\n${body}` : line;
}

function render(units: Unit[]): string {
  let out = '';
  units.forEach((unit, i) => {
    if (i > 0) out += unit.sep === 'paragraph' ? '\n\n' : unit.sep === 'line' ? '\n' : ' ';
    out += unit.text;
  });
  return out;
}

/** The trailing units of `chunk` worth repeating at the start of the next passage. */
function overlapOf(chunk: Unit[], overlapWords: number): Unit[] {
  if (overlapWords <= 0 || chunk.length === 0) return [];
  const tail: Unit[] = [];
  let words = 0;
  for (let i = chunk.length - 1; i >= 0; i--) {
    if (words + chunk[i].words > overlapWords) break;
    tail.unshift(chunk[i]);
    words += chunk[i].words;
  }
  if (tail.length > 0) return tail;
  // The last sentence alone is too long to repeat (typically a cut-up line without punctuation):
  // repeat its last few words instead.
  const last = chunk[chunk.length - 1].text.split(' ');
  const keep = last.slice(-Math.ceil(overlapWords / 2));
  return [{ text: keep.join(' '), words: keep.length, sep: 'space', path: chunk[chunk.length - 1].path }];
}

/** Splits `content` into passages; see the file comment for the rules. */
export function chunkContent(content: string | null | undefined, options: ChunkerOptions = {}): TextChunk[] {
  return [...chunkStream(content, options)];
}

/**
 * chunkContent, one passage at a time: a caller indexing a large text (a 10 MB attachment is
 * ~10,000 passages and ~1 s of work) takes a batch, writes it and lets other work run before
 * asking for the next. Only the normalising and the word count go over the whole text at once
 * (~60 ms for 10 MB).
 */
export function* chunkStream(content: string | null | undefined, options: ChunkerOptions = {}): Generator<TextChunk> {
  const { minWords, maxWords, overlapWords } = { ...DEFAULTS, ...options };
  const basePath = options.headingPath ?? [];
  if (!(maxWords > 0) || minWords > maxWords) throw new RangeError('chunkContent: need 0 < minWords <= maxWords');
  const text = normalise(content ?? '');
  const total = countWords(text);
  if (total <= maxWords) {
    // One passage: its own headings are in it; only a path given from outside is added.
    const whole = withPath(text, basePath);
    yield { ord: 0, text: whole, tokenCount: countWords(whole), headingPath: basePath };
    return;
  }

  // Spread the words evenly: as many passages as the ceiling (minus the repeated overlap) needs,
  // each taking about the same share of new words, so the last one is not a stub.
  const passages = Math.ceil(total / Math.max(1, maxWords - overlapWords));
  const share = Math.ceil(total / passages);
  // Passages made but not given out yet: the last two may still be folded together (below).
  const held: { units: Unit[]; fresh: number }[] = [];
  let ord = 0;
  const passage = (chunk: { units: Unit[] }): TextChunk => {
    const [head] = chunk.units;
    const headingPath = head?.path ?? basePath;
    // A passage opening with the only heading of its path names itself; others get the path line.
    const named = head?.heading === true && headingPath.length === 1 && basePath.length === 0;
    const body = named ? render(chunk.units) : withPath(render(chunk.units), headingPath);
    return { ord: ord++, text: body, tokenCount: countWords(body), headingPath };
  };
  let current: Unit[] = [];
  let currentWords = 0;
  let fresh = 0; // words in `current` that are not overlap

  const flush = (): void => {
    held.push({ units: current, fresh });
    current = overlapOf(current, overlapWords);
    currentWords = current.reduce((n, u) => n + u.words, 0);
    fresh = 0;
  };

  for (const unit of toUnits(text, maxWords, minWords, basePath)) {
    if (fresh > 0) {
      const overflows = currentWords + unit.words > maxWords;
      // Cut at whichever boundary lands nearest the share; a paragraph break is taken a bit early,
      // a heading earlier still (a new section starts a new passage, without the overlap).
      const shareReached = fresh + unit.words / 2 > share;
      const paragraphBreak = unit.sep === 'paragraph' && fresh >= share * 0.75 && currentWords >= minWords;
      const sectionBreak = unit.heading === true && fresh >= minWords / 2;
      if (overflows || shareReached || paragraphBreak || sectionBreak) {
        flush();
        if (unit.heading) {
          current = [];
          currentWords = 0;
        }
      }
    }
    while (held.length > 2) yield passage(held.shift()!);
    if (fresh === 0 && currentWords + unit.words > maxWords) {
      // The overlap would push this passage over the ceiling: start clean instead.
      current = [];
      currentWords = 0;
    }
    current.push(unit);
    currentWords += unit.words;
    fresh += unit.words;
  }
  if (fresh > 0) held.push({ units: current, fresh });

  // A tiny last passage reads badly on its own: fold it into the previous one when that stays
  // within the ceiling.
  if (held.length >= 2) {
    const last = held[held.length - 1];
    const prev = held[held.length - 2];
    const prevWords = prev.units.reduce((n, u) => n + u.words, 0);
    const startsSection = last.units[last.units.length - countFreshUnits(last)]?.heading === true;
    if (last.fresh < minWords / 2 && prevWords + last.fresh <= maxWords && !startsSection) {
      const freshUnits = last.units.slice(last.units.length - countFreshUnits(last));
      prev.units = prev.units.concat(freshUnits);
      prev.fresh += last.fresh;
      held.pop();
    }
  }
  for (const chunk of held) yield passage(chunk);
}

/** Number of trailing units of a passage that are new (not repeated from the previous one). */
function countFreshUnits(chunk: { units: Unit[]; fresh: number }): number {
  let words = 0;
  let n = 0;
  for (let i = chunk.units.length - 1; i >= 0 && words < chunk.fresh; i--) {
    words += chunk.units[i].words;
    n++;
  }
  return n;
}
