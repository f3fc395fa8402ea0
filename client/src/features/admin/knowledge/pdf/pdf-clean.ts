/**
 * Turns the text items PDF.js gives for each page into clean text for a knowledge item:
 *
 * - Lines are rebuilt from the items' positions. Items that touch (a ligature such as "fi" is an
 *   item of its own in Chromium's PDFs: "fi" + "le") are joined without a space, so "file" stays
 *   one word; ligature characters (U+FB00..U+FB06) become their letters.
 * - Print headers and footers go: a line at the top or bottom edge of a page that repeats on other
 *   pages (numbers ignored), a page number ("3", "Page 3 of 9", "1/1"), a browser's print date
 *   ("11/23/26, 7:12 PM  Title") or address ("about:blank", "https://…  1/2"), and a book's
 *   running header, which names the chapter and the page ("Chapter 2: Installing 14") and so
 *   repeats on that chapter's pages only.
 * - A word a typesetter cut at a line's end ("manip-" / "ulation") is joined again, and a table of
 *   contents' dot leaders shrink to an ellipsis.
 *
 * Pure functions, no PDF.js: pdf-text.ts feeds them, the tests feed them real PDFs.
 */

/** The part of a PDF.js text item used here (`transform[4]` is x, `transform[5]` is y). */
export interface PdfTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL?: boolean;
}

export interface PdfLine {
  text: string;
  /** Baseline height on the page (PDF units, 0 at the bottom). */
  y: number;
}

/** Items closer than this share of the font size are one word. */
const TOUCHING = 0.15;

const LIGATURES: Record<string, string> = { '\uFB00': 'ff', '\uFB01': 'fi', '\uFB02': 'fl', '\uFB03': 'ffi', '\uFB04': 'ffl', '\uFB05': 'st', '\uFB06': 'st' };

export function joinLigatures(text: string): string {
  return text.replace(/[\uFB00-\uFB06]/g, (c) => LIGATURES[c] ?? c);
}

/** The page's lines in reading order of the content stream, with their height on the page. */
export function pageLines(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let text = '';
  let y = 0;
  let end: number | null = null;
  let size = 0;
  const flush = () => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean) lines.push({ text: joinLigatures(clean), y });
    text = '';
    end = null;
  };
  for (const item of items) {
    const x = item.transform[4] ?? 0;
    const itemY = item.transform[5] ?? 0;
    const blank = item.str.trim() === '';
    if (text && !blank && Math.abs(itemY - y) > Math.max(size, item.height, 1) * 0.5) flush();
    if (!blank) {
      if (!text) {
        y = itemY;
        size = item.height;
      } else if (end !== null && x - end > TOUCHING * Math.max(size, item.height, 1) && !/\s$/.test(text)) {
        text += ' ';
      }
      text += item.str;
      end = x + item.width;
      size = Math.max(size, item.height);
    } else if (text) {
      text += ' ';
      end = x + item.width;
    }
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

const PAGE_NUMBER = /^(?:page\s+)?[-–]?\s*\d{1,4}\s*[-–]?(?:\s*(?:\/|of)\s*\d{1,4})?$/i;
const PRINT_DATE = /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AP]M)?\b/i;
const ADDRESS = /^(?:about:blank|file:\/\/\S*|https?:\/\/\S+)(?:\s+\d{1,4}\s*\/\s*\d{1,4})?$/i;

/** A line that only a printer puts at a page's edge. */
export function isPrintMargin(line: string): boolean {
  const text = line.trim();
  return PAGE_NUMBER.test(text) || PRINT_DATE.test(text) || ADDRESS.test(text);
}

/** Numbers differ from page to page in a running header ("Page 2", "2/9"): they are ignored. */
const shape = (text: string) => text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

/** How many lines at each edge of a page may be header or footer (browsers print one each). */
const EDGE_LINES = 1;

/** The document's text without print headers, footers and page numbers; pages separated by a blank line. */
export function cleanPdfPages(pages: readonly PdfLine[][]): string {
  const edges = pages.map((lines) => {
    const byHeight = [...lines].sort((a, b) => b.y - a.y);
    return new Set([...byHeight.slice(0, EDGE_LINES), ...byHeight.slice(-EDGE_LINES)]);
  });
  // How many pages have a line of that shape at an edge.
  const seen = new Map<string, number>();
  for (const edge of edges) for (const s of new Set([...edge].map((l) => shape(l.text)))) seen.set(s, (seen.get(s) ?? 0) + 1);
  const repeated = (line: PdfLine) => pages.length >= 2 && (seen.get(shape(line.text)) ?? 0) >= Math.max(2, Math.ceil(pages.length / 2));
  // A running header with the page number at one end, on at least two pages (a chapter's).
  const running = (line: PdfLine) => RUNNING_HEADER.test(line.text.trim()) && (seen.get(shape(line.text)) ?? 0) >= 2;

  return pages
    .map((lines, i) =>
      joinHyphenated(
        lines
          .filter((line) => !(edges[i].has(line) && (isPrintMargin(line.text) || repeated(line) || running(line))))
          .map((line) => line.text.replace(DOT_LEADER, ' … ').trimEnd()),
      ).join('\n'),
    )
    .filter((page) => page !== '')
    .join('\n\n');
}

/** A table of contents' dot leader ("Introduction . . . . . . 1"): one ellipsis instead. */
const DOT_LEADER = /(?:\s*\.){4,}\s*/g;

/** A header line with words and a page number at its start or end ("Chapter 2: Installing 14", "14 User Guide"). */
const RUNNING_HEADER = /^(?:\d{1,4}\s+\p{L}.*|.*\p{L}.*\s\d{1,4})$/u;

/** Lines with a word cut at the end ("manip-") joined to the next one, which goes on in lower case ("ulation ..."). */
export function joinHyphenated(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const last = out.length - 1;
    if (last >= 0 && /\p{Ll}{2}-$/u.test(out[last]) && /^\p{Ll}{2}/u.test(line)) {
      // The rest of the cut word joins the line before; what follows it stays on its own line.
      const [rest, ...more] = line.split(' ');
      out[last] = out[last].slice(0, -1) + rest;
      if (more.length > 0) out.push(more.join(' '));
    } else out.push(line);
  }
  return out;
}
