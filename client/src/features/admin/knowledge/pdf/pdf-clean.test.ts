/**
 * PDF cleanup on real PDFs printed by Chromium with its default print header (date, time, title)
 * and footer (address, "n/m"), in a serif font whose "fi"/"ff" ligatures PDF.js gives as separate
 * items (testing/fixtures/make-printed-pdfs.cjs made them).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLegacyPdfJs } from '../testing/legacy-pdfjs';
import { cleanPdfPages, isPrintMargin, joinHyphenated, joinLigatures, pageLines, type PdfLine } from './pdf-clean';
import { extractPdfText } from './pdf-text';

const fixture = (name: string) => new Uint8Array(readFileSync(resolve(__dirname, '../testing/fixtures', name)));

describe('extractPdfText on PDFs printed by Chromium', () => {
  it('a one-page print: no date/time header, no address footer, no "1/1"; ligatures joined', async () => {
    const text = await extractPdfText(await loadLegacyPdfJs(), fixture('refund-notes-printed.pdf'));
    expect(text).toBe('Refund notes\nRefunds are filed by the office within fifteen days.');
    expect(text).not.toMatch(/\d{1,2}\/\d{1,2}\/\d{2}, \d{1,2}:\d{2}/);
    expect(text).not.toContain('about:blank');
    expect(text).not.toContain('1/1');
    expect(text).not.toMatch(/\bfi le|o ff ice|fi fteen/);
  });

  it('a two-page print: both pages kept, each page header and footer ("1/2", "2/2") gone', async () => {
    const text = await extractPdfText(await loadLegacyPdfJs(), fixture('records-policy-printed.pdf'));
    expect(text.startsWith('Records policy\nParagraph 1: the office keeps every signed file for five years; financial officers reflect')).toBe(true);
    expect(text).toContain('Paragraph 30:');
    expect(text).not.toMatch(/\b[12]\/2\b/);
    expect(text).not.toContain('about:blank');
    expect(text).not.toMatch(/AM|PM/);
    // The title is the first line once (the print header repeated it on each page).
    expect(text.match(/Records policy/g)).toHaveLength(1);
    expect(text.split('\n\n')).toHaveLength(2);
  });
});

describe('pdf-clean pure functions', () => {
  it('joins touching items and keeps spaced ones apart', () => {
    const item = (str: string, x: number, width: number) => ({ str, transform: [1, 0, 0, 1, x, 700], width, height: 12 });
    expect(pageLines([item('o', 0, 6), item('ff', 6, 8), item('ice', 14, 18), item('hours', 40, 30)])).toEqual([{ text: 'office hours', y: 700 }]);
    expect(joinLigatures('\uFB01le \uFB02ow')).toBe('file flow');
  });

  it('recognises page numbers, print dates and addresses, not ordinary lines', () => {
    for (const line of ['1/1', '3', 'Page 2 of 9', '- 4 -', '11/23/26, 7:12 PM Employee handbook', 'about:blank 1/2', 'https://intranet.example.com/policy 3/7']) expect(isPrintMargin(line)).toBe(true);
    for (const line of ['Refunds take 14 days.', '2024 annual report', 'Section 3: Leave']) expect(isPrintMargin(line)).toBe(false);
  });

  it('drops a running header repeated on the pages (numbers aside), keeps body lines that merely repeat elsewhere', () => {
    const page = (n: number, body: string[]): PdfLine[] => [{ text: `ACME Corp handbook, chapter ${n}`, y: 800 }, ...body.map((text, i) => ({ text, y: 700 - i * 20 })), { text: 'Confidential', y: 20 }];
    const text = cleanPdfPages([page(1, ['Leave is 25 days.', 'Ask HR.']), page(2, ['Ask HR.', 'Expenses within 30 days.']), page(3, ['Travel by train.', 'More.'])]);
    expect(text).toBe('Leave is 25 days.\nAsk HR.\n\nAsk HR.\nExpenses within 30 days.\n\nTravel by train.\nMore.');
  });

  it("drops a book's running header that names the chapter and the page, which repeats on that chapter's pages only", () => {
    const page = (header: string, body: string): PdfLine[] => [{ text: header, y: 800 }, { text: body, y: 700 }, { text: 'The last line of the page.', y: 40 + body.length }];
    const pages = [
      page('Chapter 1: Introduction 1', 'Libtasn1 is a library.'),
      page('Chapter 2: ASN.1 structure handling 2', 'The parser is case sensitive.'),
      page('Chapter 2: ASN.1 structure handling 3', 'Here is the list of types.'),
      page('Chapter 2: ASN.1 structure handling 4', 'Naming.'),
      page('Chapter 3: Utilities 5', 'Invoking asn1Parser.'),
      page('Chapter 3: Utilities 6', 'Invoking asn1Coding.'),
      page('Chapter 4: Function reference 7', 'asn1_parser2tree.'),
      page('Chapter 4: Function reference 8', 'asn1_delete_structure.'),
    ];
    const text = cleanPdfPages(pages);
    expect(text).not.toMatch(/Chapter [234]/);
    expect(text).toContain('The parser is case sensitive.');
    // A header seen once (a chapter of one page) is left: nothing says it is not body text.
    expect(text).toContain('Chapter 1: Introduction 1');
  });

  it("shrinks a table of contents' dot leaders to an ellipsis", () => {
    const lines = (texts: string[]): PdfLine[] => texts.map((text, i) => ({ text, y: 700 - i * 20 }));
    expect(cleanPdfPages([lines(['Contents', '1 Introduction . . . . . . . . . . 1', '2 Usage. . . . . . 4', 'Wait...', 'Really....'])])).toBe(
      'Contents\n1 Introduction … 1\n2 Usage … 4\nWait...\nReally …',
    );
  });

  it('joins a word cut at the end of a line, and nothing else', () => {
    expect(joinHyphenated(['Distinguished Encoding Rules (DER) manip-', 'ulation. Copyright'])).toEqual(['Distinguished Encoding Rules (DER) manipulation.', 'Copyright']);
    expect(joinHyphenated(['a list of items -', 'next line'])).toEqual(['a list of items -', 'next line']);
    expect(joinHyphenated(['Pre-', 'Order'])).toEqual(['Pre-', 'Order']);
    expect(joinHyphenated(['The code is ABC-', 'def'])).toEqual(['The code is ABC-', 'def']);
  });
});
