/**
 * Splits a knowledge item's content into passages for the search index and the prompt.
 *
 * Passages are ~120-220 words, cut on paragraph, line and sentence boundaries (never inside a
 * word), and each one after the first repeats the tail of the previous one (a sentence or two) so
 * an answer that straddles a boundary is still found whole in one passage. A short item is one
 * passage; an item with no content is one empty passage, so its title is still searchable.
 */

export interface ChunkerOptions {
  /** A passage ends at a paragraph break once it has at least this many words. */
  minWords?: number;
  /** Hard ceiling per passage (overlap included); long sentences are split to respect it. */
  maxWords?: number;
  /** At most this many words are repeated from the end of the previous passage. */
  overlapWords?: number;
}

export interface TextChunk {
  /** 0-based position in the item. */
  ord: number;
  text: string;
  /** Whitespace-separated words in `text` (the index's document length and a prompt-size guide). */
  tokenCount: number;
}

const DEFAULTS: Required<ChunkerOptions> = { minWords: 120, maxWords: 220, overlapWords: 30 };

/** How a unit is joined to the one before it. */
type Separator = 'paragraph' | 'line' | 'space';

interface Unit {
  text: string;
  words: number;
  sep: Separator;
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
/** `text.split(/\n\s*\n/)`, one paragraph at a time. */
function* paragraphsOf(text: string): Generator<string> {
  const breaks = /\n\s*\n/g;
  let start = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    yield text.slice(start, m.index);
    start = m.index + m[0].length;
  }
  yield text.slice(start);
}

function* toUnits(text: string, maxWords: number, minWords: number): Generator<Unit> {
  const pieceTarget = Math.max(1, Math.floor((minWords + maxWords) / 2));
  let p = -1;
  for (const paragraph of paragraphsOf(text)) {
    p += 1;
    const lines = paragraph.split('\n');
    for (let l = 0; l < lines.length; l += 1) {
      let first = true;
      for (const sentence of lines[l].trim().split(SENTENCE_BREAK)) {
        const words = sentence.split(/\s+/).filter(Boolean);
        if (words.length === 0) continue;
        const pieces = words.length > maxWords ? Math.ceil(words.length / pieceTarget) : 1;
        const size = Math.ceil(words.length / pieces);
        for (let i = 0; i < words.length; i += size) {
          const slice = words.slice(i, i + size);
          const sep: Separator = !first ? 'space' : l > 0 ? 'line' : p > 0 ? 'paragraph' : 'space';
          yield { text: slice.join(' '), words: slice.length, sep };
          first = false;
        }
      }
    }
  }
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
  return [{ text: keep.join(' '), words: keep.length, sep: 'space' }];
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
  if (!(maxWords > 0) || minWords > maxWords) throw new RangeError('chunkContent: need 0 < minWords <= maxWords');
  const text = normalise(content ?? '');
  const total = countWords(text);
  if (total <= maxWords) {
    yield { ord: 0, text, tokenCount: total };
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
    const body = render(chunk.units);
    return { ord: ord++, text: body, tokenCount: countWords(body) };
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

  for (const unit of toUnits(text, maxWords, minWords)) {
    if (fresh > 0) {
      const overflows = currentWords + unit.words > maxWords;
      // Cut at whichever boundary lands nearest the share; a paragraph break is taken a bit early.
      const shareReached = fresh + unit.words / 2 > share;
      const paragraphBreak = unit.sep === 'paragraph' && fresh >= share * 0.75 && currentWords >= minWords;
      if (overflows || shareReached || paragraphBreak) flush();
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
    if (last.fresh < minWords / 2 && prevWords + last.fresh <= maxWords) {
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
