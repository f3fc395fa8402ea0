/**
 * Where a reply's cited passage sits in its knowledge item. The server sends the passage as it was
 * indexed (the item's words in order with the white space normalised: src/knowledge/chunker.ts), so
 * it is found by comparing everything but white space. The item is then cut into what comes
 * before, the passage and what comes after, each a whole run of markdown blocks (cut on blank
 * lines, never inside a fenced code block), so each part renders as the item would.
 */
export interface PassageSplit {
  before: string;
  passage: string;
  after: string;
}

/** Blank line (a markdown block break). */
const BLANK_LINE = /\n[ \t]*\n/g;
const FENCE = /^[ \t]*(```|~~~)/gm;

function isSpace(c: string): boolean {
  return /\s/.test(c);
}

function fencesIn(text: string): number {
  return (text.match(FENCE) ?? []).length;
}

/**
 * The italic heading-path line the chunker puts before a passage under a heading
 * ("_Gift wrapping › Prices_", underscores in it escaped): it says what the passage is about when
 * read alone, but is not part of the item's text, so it is left out when looking for the passage.
 */
const HEADING_PATH_LINE = /^_(?:\\.|[^_\\])*_\s+/;

/** The character range [start, end) of `passage` in `content`, white space aside; null when it is not there. */
export function findPassage(content: string, passage: string): { start: number; end: number } | null {
  const wanted = passage.replace(HEADING_PATH_LINE, '').replace(/\s+/g, '');
  if (wanted === '') return null;
  const positions: number[] = [];
  let squeezed = '';
  for (let i = 0; i < content.length; i += 1) {
    if (isSpace(content[i])) continue;
    positions.push(i);
    squeezed += content[i];
  }
  const at = squeezed.indexOf(wanted);
  if (at < 0) return null;
  return { start: positions[at], end: positions[at + wanted.length - 1] + 1 };
}

/** `content` cut around the passage at block boundaries; null when the passage is not in it. */
export function splitAtPassage(content: string, passage: string): PassageSplit | null {
  const range = findPassage(content, passage);
  if (!range) return null;
  // Back to the start of the block the passage starts in, forward to the end of the one it ends in.
  // A passage that starts inside a block and runs on into the next ones starts with the tail of
  // the passage before it (the chunker repeats a sentence or two): that block is left out.
  let start = 0;
  let end = content.length;
  let inside: number | null = null;
  for (const m of content.matchAll(BLANK_LINE)) {
    const index = m.index ?? 0;
    if (index + m[0].length <= range.start) start = index + m[0].length;
    else if (index >= range.end) {
      end = index;
      break;
    } else if (inside === null && index > range.start) inside = index + m[0].length;
  }
  if (inside !== null && range.start > start) start = inside;
  // Never cut inside a fenced code block: an odd number of fences before a cut means one is open.
  while (start > 0 && fencesIn(content.slice(0, start)) % 2 === 1) {
    const previous = content.lastIndexOf('\n\n', start - 3);
    start = previous < 0 ? 0 : previous + 2;
  }
  while (end < content.length && fencesIn(content.slice(0, end)) % 2 === 1) {
    const next = content.indexOf('\n\n', end + 2);
    end = next < 0 ? content.length : next;
  }
  return { before: content.slice(0, start), passage: content.slice(start, end), after: content.slice(end) };
}
